import Foundation

/// Where a `nowetl` command writes: standard output for results, a ``Console`` on standard error for
/// logs and progress. Tests pass their own to capture both.
public struct CommandStreams: Sendable {
    /// Writes text (results: the summary, `validate`'s verdict, help) to standard output.
    public var standardOutput: @Sendable (String) -> Void
    /// Standard error.
    public var standardError: Console
    /// Whether standard error is a terminal (chooses the live progress line for `--progress auto`).
    public var standardErrorIsTerminal: Bool

    /// Creates streams.
    public init(
        standardOutput: @escaping @Sendable (String) -> Void, standardError: Console, standardErrorIsTerminal: Bool
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardErrorIsTerminal = standardErrorIsTerminal
    }

    /// The process's standard output and standard error.
    public static func process() -> CommandStreams {
        CommandStreams(
            standardOutput: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            standardError: .standardError(), standardErrorIsTerminal: Console.standardErrorIsTerminal)
    }
}
