import Foundation
import NowData

/// Where a `nowetl` command writes: standard output for results, a ``Console`` on standard error for
/// logs and progress. Tests pass their own to capture both.
public struct CommandStreams: Sendable {
    /// Writes text (results: the summary, `validate`'s verdict, help) to standard output.
    public var standardOutput: @Sendable (String) -> Void
    /// Standard error.
    public var standardError: Console
    /// Whether standard error is a terminal (chooses the live progress line for `--progress auto`).
    public var standardErrorIsTerminal: Bool
    /// How many writes to either stream failed and were dropped so far (for the run summary).
    public var droppedWrites: @Sendable () -> Int

    /// Creates streams.
    public init(
        standardOutput: @escaping @Sendable (String) -> Void, standardError: Console, standardErrorIsTerminal: Bool,
        droppedWrites: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardErrorIsTerminal = standardErrorIsTerminal
        self.droppedWrites = droppedWrites
    }

    /// Streams on two descriptors: writes that fail are dropped and counted, never fatal
    /// (see ``StandardStream``). What goes to standard output (a preview of records, a report quoting an
    /// instance) has its control characters escaped as the console's lines do (``PrintableText``).
    public static func writing(to output: StandardStream, errorsTo error: StandardStream) -> CommandStreams {
        CommandStreams(
            standardOutput: { text in output.write(PrintableText.escaped(text, keepingLineBreaks: true)) },
            standardError: Console(stream: error),
            standardErrorIsTerminal: isatty(error.fileDescriptor) == 1,
            droppedWrites: { output === error ? output.droppedWrites : output.droppedWrites + error.droppedWrites })
    }

    /// The process's standard output and standard error.
    public static func process() -> CommandStreams {
        writing(to: .output, errorsTo: .error)
    }
}
