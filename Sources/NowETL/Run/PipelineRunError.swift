/// A problem with how a run was asked for, found before any table runs.
public struct PipelineRunError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// What is wrong, for people.
    public var description: String
    /// The exit code: ``NowETLExitCode/usage`` (64) for a `--table` the pipeline does not have.
    public var exitCode: Int32

    /// Creates an error.
    public init(_ description: String, exitCode: Int32 = NowETLExitCode.usage) {
        self.description = description
        self.exitCode = exitCode
    }
}
