import CCurl
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One libcurl multi handle and the dedicated thread that drives it: exchanges are submitted from any
/// task, run concurrently on the multi handle's connections (kept between requests), and their
/// continuations are resumed from this thread when they finish or are cancelled.
///
/// The thread is a `Thread` of its own, never the cooperative pool: it blocks in `curl_multi_poll`.
///
/// `@unchecked Sendable`: the multi handle and ``running`` are touched only by the loop thread, except
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread; everything other threads
/// hand over (submissions, cancellations, the stop request) sits in ``shared`` behind a `Mutex`.
final class CurlMultiLoop: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<(Data, URLResponse), any Error>

    private struct Submission {
        var exchange: CurlExchange
        var continuation: Continuation
    }

    private struct Shared {
        var submissions: [Submission] = []
        var cancellations: [CurlExchange] = []
        var stopping = false
    }

    /// The multi handle (`CURLM *`), freed in `deinit` (after the thread let go of the loop).
    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    /// The exchanges on the multi handle, by easy handle; loop thread only.
    private var running: [UnsafeMutableRawPointer: Submission] = [:]

    /// Creates the multi handle and starts its thread.
    /// - Parameter maximumConnectionsPerHost: `CURLMOPT_MAX_HOST_CONNECTIONS`; more requests queue.
    init(maximumConnectionsPerHost: Int) {
        _ = Self.globalInit
        // curl_multi_init fails only when out of memory, where nothing else would work either.
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
        self.multi = multi
        _ = nowetl_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maximumConnectionsPerHost))
        let thread = Thread { [self] in run() }
        thread.name = "NowData.CurlMultiLoop"
        thread.start()
    }

    deinit { curl_multi_cleanup(multi) }

    /// `curl_global_init` once per process, before the first handle.
    private static let globalInit: CURLcode = nowetl_curl_global_init()

    /// Hands `exchange` to the loop; `continuation` is resumed once, from the loop thread or here when
    /// the exchange was cancelled before it got to the loop.
    func submit(_ exchange: CurlExchange, continuation: Continuation) {
        let accepted = shared.withLock { shared -> Bool in
            guard !shared.stopping, !exchange.cancelRequested.load(ordering: .sequentiallyConsistent) else {
                return false
            }
            shared.submissions.append(Submission(exchange: exchange, continuation: continuation))
            return true
        }
        guard accepted else {
            continuation.resume(throwing: URLError(.cancelled))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// Asks the loop to drop `exchange` (task cancellation); its continuation gets `URLError(.cancelled)`
    /// promptly. Without effect once the exchange finished.
    func cancel(_ exchange: CurlExchange) {
        exchange.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        shared.withLock { $0.cancellations.append(exchange) }
        curl_multi_wakeup(multi)
    }

    /// Ends the thread; exchanges still running are cancelled.
    func stop() {
        shared.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    // MARK: - Loop thread

    private func run() {
        while true {
            let (submissions, cancellations, stopping) = shared.withLock { shared in
                defer {
                    shared.submissions.removeAll()
                    shared.cancellations.removeAll()
                }
                return (shared.submissions, shared.cancellations, shared.stopping)
            }
            for submission in submissions { add(submission) }
            for exchange in cancellations { finish(exchange.handle, with: .failure(URLError(.cancelled))) }
            if stopping {
                for handle in Array(running.keys) { finish(handle, with: .failure(URLError(.cancelled))) }
                return
            }
            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            collectFinished()
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 1000, &ready)
        }
    }

    private func add(_ submission: Submission) {
        let code = curl_multi_add_handle(multi, submission.exchange.handle)
        guard code == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(code))
            submission.continuation.resume(
                throwing: URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl: \(message)"]))
            return
        }
        running[submission.exchange.handle] = submission
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard nowetl_curl_msg_is_done(message) != 0, let handle = nowetl_curl_msg_easy_handle(message) else {
                continue
            }
            let code = nowetl_curl_msg_result(message)
            guard let submission = running[handle] else { continue }
            finish(handle, with: submission.exchange.outcome(code))
        }
    }

    /// Takes the handle off the multi handle (its connection stays in the cache) and resumes the caller.
    private func finish(_ handle: UnsafeMutableRawPointer, with outcome: Result<(Data, URLResponse), any Error>) {
        guard let submission = running.removeValue(forKey: handle) else { return }
        _ = curl_multi_remove_handle(multi, handle)
        submission.continuation.resume(with: outcome)
    }
}
