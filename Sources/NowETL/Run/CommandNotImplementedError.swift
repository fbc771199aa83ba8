/// The honest answer of a command that is not implemented yet (`preview`, `discover`): exit 1 and a
/// message, never a pretend result.
public struct CommandNotImplementedError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// The command (`preview`, `discover`).
    public var command: String

    /// Creates the error for `command`.
    public init(command: String) {
        self.command = command
    }

    /// `preview is not implemented yet …` (the command prefixes `nowetl: `).
    public var description: String {
        "\(command) is not implemented yet (run and validate work; see the README)"
    }

    /// 1 (failed).
    public var exitCode: Int32 { NowETLExitCode.failed }
}
