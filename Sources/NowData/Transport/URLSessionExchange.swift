import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request in flight on ``URLSessionCoreService``: what arrived so far, the continuation to resume
/// exactly once, and an inactivity watchdog.
///
/// The watchdog exists because swift-corelibs-foundation can leave a task pending forever once its own
/// timer is gone (a 401 with `WWW-Authenticate` answered by "default handling" is one such path). It
/// fails the request with `URLError(.timedOut)` when nothing arrived for longer than the request timeout
/// plus a second, so a request never outlives its timeout by much whatever the HTTP stack does.
///
/// `@unchecked Sendable`: all mutable state sits in `State` behind `lock` (a `Mutex` cannot hold the
/// task, which corelibs does not mark `Sendable`); callbacks and continuations run outside the lock.
final class URLSessionExchange: @unchecked Sendable {
    typealias Outcome = Result<(Data, URLResponse), any Error>

    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var task: URLSessionDataTask?
        var response: URLResponse?
        var body = Data()
        /// The 401 whose authentication challenge was cancelled; it is the request's answer.
        var challengedResponse: URLResponse?
        var lastActivity = DispatchTime.now()
        var cancelled = false
        var finished = false
        var watchdog: (any DispatchSourceTimer)?
        var onFinish: (@Sendable () -> Void)?
    }

    private let lock = NSLock()
    private var state = State()
    /// Seconds without progress after which the watchdog fails the request.
    let inactivityLimit: TimeInterval

    init(inactivityLimit: TimeInterval) {
        self.inactivityLimit = inactivityLimit
    }

    /// Stores the continuation and the task, arms the watchdog and resumes the task.
    func start(
        _ task: URLSessionDataTask, continuation: CheckedContinuation<(Data, URLResponse), any Error>,
        onFinish: @escaping @Sendable () -> Void
    ) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let cancelledEarly = withState { state -> Bool in
            state.continuation = continuation
            state.task = task
            state.onFinish = onFinish
            state.lastActivity = .now()
            state.watchdog = timer
            return state.cancelled
        }
        timer.setEventHandler { [weak self] in self?.watchdogFired() }
        timer.schedule(deadline: .now() + inactivityLimit)
        timer.resume()
        if cancelledEarly {
            finish(.failure(URLError(.cancelled)))
            task.cancel()
            return
        }
        task.resume()
    }

    /// Cancels the request (Swift task cancellation): resumes with `URLError(.cancelled)` at once.
    func cancel() {
        let task = withState { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        guard let task else { return }
        finish(.failure(URLError(.cancelled)))
        task.cancel()
    }

    // MARK: - Delegate events

    func received(_ response: URLResponse) {
        withState { state in
            state.response = response
            state.lastActivity = .now()
        }
    }

    func received(_ data: Data) {
        withState { state in
            state.body.append(data)
            state.lastActivity = .now()
        }
    }

    /// A redirect is being followed: what arrived belongs to the previous hop.
    func redirected() {
        withState { state in
            state.response = nil
            state.body = Data()
            state.lastActivity = .now()
        }
    }

    /// The stack raised an authentication challenge for `response` (a 401); the challenge is cancelled
    /// and the 401 becomes the answer.
    func challenged(by response: URLResponse?) {
        withState { state in
            state.challengedResponse = response ?? state.response
            state.lastActivity = .now()
        }
    }

    /// The task ended; `error` is `nil` on success.
    func completed(task: URLSessionTask, error: (any Error)?) {
        let outcome: Outcome = withState { state in
            if let challenged = state.challengedResponse { return .success((state.body, challenged)) }
            if let error { return .failure(error) }
            if let response = state.response ?? task.response { return .success((state.body, response)) }
            return .failure(URLError(.badServerResponse))
        }
        finish(outcome)
    }

    // MARK: - Internals

    private func withState<Value>(_ body: (inout State) -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    private func watchdogFired() {
        let limit = inactivityLimit
        let expiredTask = withState { state -> URLSessionDataTask?? in
            guard !state.finished else { return .none }
            let deadline = state.lastActivity + limit
            if DispatchTime.now() < deadline {
                state.watchdog?.schedule(deadline: deadline)
                return .none
            }
            return .some(state.task)
        }
        guard case .some(let task) = expiredTask else { return }
        finish(.failure(URLError(.timedOut)))
        task?.cancel()
    }

    private func finish(_ outcome: Outcome) {
        let (continuation, watchdog, onFinish) = withState {
            state -> (
                CheckedContinuation<(Data, URLResponse), any Error>?, (any DispatchSourceTimer)?,
                (@Sendable () -> Void)?
            ) in
            guard !state.finished else { return (nil, nil, nil) }
            state.finished = true
            defer {
                state.continuation = nil
                state.watchdog = nil
                state.onFinish = nil
            }
            return (state.continuation, state.watchdog, state.onFinish)
        }
        watchdog?.cancel()
        onFinish?()
        continuation?.resume(with: outcome)
    }
}
