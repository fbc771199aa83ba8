import Dispatch
import Foundation

/// Turns SIGTERM and SIGINT into one orderly shutdown: the handler runs once, on a dispatch queue,
/// and `wait()` returns, so `nowsim` can stop the server and exit 0.
///
/// The signals' default action (terminate) is replaced for the life of the process; later signals are
/// ignored once the handler has run.
///
/// ```swift
/// let signals = ShutdownSignals()
/// let port = try server.start()
/// _ = signals.wait()
/// server.stop()
/// ```
public final class ShutdownSignals: @unchecked Sendable {
    // @unchecked Sendable: `sources` is written only in init and `cancel()`, and `received` only in
    // `fire`, all under `lock`; the handler is `@Sendable`.
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var received: Int32?
    private let done = DispatchSemaphore(value: 0)
    private let handler: @Sendable (Int32) -> Void

    /// Starts watching `signals`; `handler` runs once, for the first one that arrives.
    ///
    /// - Parameters:
    ///   - signals: the signals meaning "shut down"; SIGTERM and SIGINT by default.
    ///   - queue: where `handler` runs.
    ///   - handler: called once with the signal number, before `wait()` returns.
    public init(
        signals: [Int32] = [SIGTERM, SIGINT], queue: DispatchQueue = DispatchQueue(label: "nowsim.shutdown-signals"),
        handler: @escaping @Sendable (Int32) -> Void = { _ in }
    ) {
        self.handler = handler
        Self.ignoreBrokenPipe()
        // A parent may have started us with these signals blocked (a child inherits the mask of the
        // thread that spawned it); then SIGTERM would stay pending forever. Unblock them here, on the
        // thread that creates the sources (the main thread in nowsim, before its other threads).
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in signals { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        var created: [any DispatchSourceSignal] = []
        for number in signals {
            // Ignore first so that the default action cannot kill the process before the source is armed;
            // libdispatch then installs its own handler and delivers the signal to the source.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.fire(number) }
            source.resume()
            created.append(source)
        }
        lock.withLock { sources = created }
    }

    deinit {
        cancel()
    }

    /// The signal that arrived, if any.
    public var receivedSignal: Int32? {
        lock.withLock { received }
    }

    /// Blocks until a watched signal has arrived and the handler has run; returns the signal number.
    public func wait() -> Int32 {
        done.wait()
        done.signal()  // let any other waiter through too
        return lock.withLock { received ?? 0 }
    }

    /// Blocks up to `timeout` for a signal; returns it, or `nil` on timeout.
    public func wait(timeout: Duration) -> Int32? {
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        guard done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return nil }
        done.signal()
        return lock.withLock { received }
    }

    /// Stops watching; the signals stay ignored.
    public func cancel() {
        let cancelled: [any DispatchSourceSignal] = lock.withLock {
            defer { sources = [] }
            return sources
        }
        for source in cancelled { source.cancel() }
    }

    /// Ignores SIGPIPE process-wide, so writing to a socket the peer closed fails with EPIPE instead of
    /// killing the server. Idempotent.
    public static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    private func fire(_ number: Int32) {
        let first: Bool = lock.withLock {
            guard received == nil else { return false }
            received = number
            return true
        }
        guard first else { return }
        handler(number)
        done.signal()
    }
}
