/// The honest answer of a command that needs the extractor (the real ``TableRunning``) in a build
/// that does not include it yet: exit 1 and a message, never a pretend export.
public struct ExtractorUnavailableError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// The command that needs it (`run`, `preview`, `discover`).
    public var command: String

    /// Creates the error for `command`.
    public init(command: String) {
        self.command = command
    }

    /// `run needs the extractor, which this build does not include yet …` (the command prefixes `nowetl: `).
    public var description: String {
        "\(command) needs the extractor, which this build does not include yet "
            + "(validate works; the extractor lands with issue 4)"
    }

    /// 1 (failed).
    public var exitCode: Int32 { NowETLExitCode.failed }
}
