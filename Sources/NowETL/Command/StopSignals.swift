import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT as requests to stop a run cleanly: the first one calls the stop handler (the
/// run is cancelled: fetching stops, unfinished outputs are aborted and their temporary files removed,
/// the summary is written, and `nowetl` exits 143 or 130); a second one ends the process at once with
/// the same code, and so does the first while no handler is set (`validate`, `preview`, `discover`).
///
/// A second signal skips the clean-up, never the atomicity: outputs only ever reach their names by
/// rename, so what it leaves are temporary files, which the next run removes (``OutputDirectoryLock``).
///
/// Signals are received through Dispatch sources, after their default action has been switched off,
/// so the handler runs on an ordinary thread rather than inside a signal handler. Only the executable
/// installs them (``install()``); the tests, which run commands in-process, drive ``deliver(_:)``.
public final class StopSignals: Sendable {
    private struct State {
        var received: Int32?
        var handler: (@Sendable (Int32) -> Void)?
    }

    private let state = Mutex(State())
    private let exitAtOnce: @Sendable (Int32) -> Void
    // Dispatch sources are thread-safe; they are kept only so that they live as long as this value.
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    /// A value that nothing delivers to except ``deliver(_:)``; `exitAtOnce` is what a second signal does
    /// (the process exits with `128 + signal` by default).
    public init(exitAtOnce: @escaping @Sendable (Int32) -> Void = { signal in _exit(128 + signal) }) {
        self.exitAtOnce = exitAtOnce
    }

    /// Receives SIGTERM and SIGINT of this process from now on (for the `nowetl` executable).
    public static func install() -> StopSignals {
        let signals = StopSignals()
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { signals.deliver(number) }
            source.resume()
            signals.sources.append(source)
        }
        return signals
    }

    /// The first stop signal received, if any.
    public var received: Int32? { state.withLock { $0.received } }

    /// Sets what the first signal does from now on.
    public func onStop(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Handles `signal` as if the process had received it.
    public func deliver(_ signal: Int32) {
        let (first, handler) = state.withLock { state -> (Bool, (@Sendable (Int32) -> Void)?) in
            guard state.received == nil else { return (false, nil) }
            state.received = signal
            return (true, state.handler)
        }
        if first, let handler {
            handler(signal)
        } else {
            exitAtOnce(signal)
        }
    }

    /// `SIGTERM` or `SIGINT` (or the number) for logs.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(signal)"
        }
    }
}

extension StopSignals {
    /// The one stop rule of `run`, `run --shard` and `merge`: `body` runs in a task the first stop signal
    /// cancels (unfinished outputs are aborted, nothing is committed after it). When the stop changed
    /// the outcome — a table failed, was not run or not committed, or no manifest was written — the exit
    /// code is 130 (SIGINT) or 143 (SIGTERM) and an `interrupted` line says so, with what the run journals
    /// of `journals` (an output directory) keep for the next run; a signal that came after everything
    /// was committed changes nothing.
    static func runStoppable(
        _ body: @escaping @Sendable () async -> PipelineRunResult, logger: RunLogger, stopSignals: StopSignals?,
        journals outputDirectory: String? = nil
    ) async -> PipelineRunResult {
        let task = Task { await body() }
        stopSignals?.onStop { signal in
            logger.warning(
                "stop requested: cancelling the run; unfinished outputs are aborted",
                [("signal", StopSignals.name(of: signal))])
            task.cancel()
        }
        var result = await task.value
        guard let signal = stopSignals?.received,
            result.manifestPath == nil
                || result.tables.contains(where: { [.failed, .notRun, .notCommitted].contains($0.status) })
        else { return result }
        result.exitCode = signal == SIGINT ? NowETLExitCode.interrupted : NowETLExitCode.terminated
        var fields: [(String, any LogFieldValue)] = [
            ("signal", StopSignals.name(of: signal)), ("exit_code", result.exitCode), ("committed", "none"),
        ]
        if let outputDirectory {
            let journals = TableJournal.summaries(outputDirectory: outputDirectory)
            fields += [
                ("journal_tables", journals.map(\.table).joined(separator: ",")),
                ("journal_pages", journals.reduce(0) { $0 + $1.pages }),
                ("journal_rows", journals.reduce(0) { $0 + $1.rows }),
                ("resume", "the next run continues from the journal (--restart discards it)"),
            ]
        }
        logger.warning("interrupted", fields)
        return result
    }
}
