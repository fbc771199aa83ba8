import Foundation
import Synchronization

/// Turns a table's ``TableProgress`` events into what the user sees: a live line redrawn in place on
/// a terminal, or a plain log line every so often otherwise.
///
/// Both are driven by the events (a page arriving, an output loading or writing rows after the
/// extraction: ``OutputProgress``), never by a timer: a table that receives no page for a while shows
/// nothing new, and the periodic lines come at most once per interval.
public final class ProgressReporter: Sendable {
    /// How progress is shown.
    public enum Style: Sendable, Hashable {
        /// The live status line, redrawn at most every `redrawInterval` seconds.
        case liveLine(redrawInterval: Double)
        /// A log line at most every `interval` seconds.
        case logLines(interval: Double)
        /// No progress output.
        case off
    }

    private struct State {
        var line: ProgressLine?
        var started = Date.distantPast
        var lastOutput = Date.distantPast
        /// When the current output phase (``OutputProgress``) started: its rate's clock.
        var phaseStarted = Date.distantPast
    }

    /// How progress is shown.
    public let style: Style
    private let logger: RunLogger
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// Creates a reporter writing through `logger` (and its console, for the live line).
    public init(style: Style, logger: RunLogger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.style = style
        self.logger = logger
        self.now = now
    }

    /// The style `--progress` asks for: `auto` is the live line on a terminal and log lines every
    /// `logInterval` seconds otherwise.
    public static func style(for mode: ProgressMode, standardErrorIsTerminal: Bool, logInterval: Double = 10)
        -> Style
    {
        switch mode {
        case .off: .off
        case .on: .liveLine(redrawInterval: 0.1)
        case .auto: standardErrorIsTerminal ? .liveLine(redrawInterval: 0.1) : .logLines(interval: logInterval)
        }
    }

    /// Starts showing `table`.
    public func begin(table: String) {
        let time = now()
        state.withLock { state in
            state.line = ProgressLine(table: table)
            state.started = time
            state.lastOutput = time
        }
    }

    /// Takes one event of the current table.
    public func handle(_ event: TableProgress) {
        let time = now()
        state.withLock { state in
            guard var line = state.line else { return }
            line.elapsed = time.timeIntervalSince(state.started)
            var phaseChanged = false
            switch event {
            case .counted(_, let count):
                line.count = count
            case .page(_, _, let totalRows, let pages):
                line.rows = totalRows
                line.pages = pages
            case .output(_, var output):
                if line.output?.output != output.output || line.output?.phase != output.phase {
                    state.phaseStarted = time
                    phaseChanged = true
                }
                // A database load's total is what the extraction received, when the output cannot tell.
                if output.total == nil, output.phase == .loading, line.rows >= output.rows { output.total = line.rows }
                line.output = output
                line.outputElapsed = time.timeIntervalSince(state.phaseStarted)
            case .journal, .transport, .window, .clockSkew:
                return
            case .finished:
                state.line = nil
                if case .liveLine = style { logger.console.setStatus(nil) }
                return
            }
            state.line = line
            switch style {
            case .off:
                break
            case .liveLine(let interval):
                // A count or a new output phase is drawn at once; the log lines keep their interval.
                if time.timeIntervalSince(state.lastOutput) >= interval || event.isCount || phaseChanged {
                    logger.console.setStatus(line.rendered)
                    state.lastOutput = time
                }
            case .logLines(let interval):
                if time.timeIntervalSince(state.lastOutput) >= interval {
                    logger.info("progress", line.logFields)
                    state.lastOutput = time
                }
            }
        }
    }

    /// Stops showing the current table (erases the live line).
    public func end() {
        state.withLock { state in
            state.line = nil
            if case .liveLine = style { logger.console.setStatus(nil) }
        }
    }
}

extension TableProgress {
    fileprivate var isCount: Bool {
        if case .counted = self { return true }
        return false
    }
}
