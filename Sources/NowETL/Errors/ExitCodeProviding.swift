/// An error that knows which process exit code it stands for (ARCHITECTURE.md, *Errors*).
///
/// The run orchestration ends `nowetl` with the code of the error that stopped it: an extractor
/// error conforms to say "instance unreachable" (69), "temporary failure after retries" (75) or
/// "authentication or permission" (77); errors that do not conform count as failures (1), except
/// NowData's own, which ``NowETLExitCode/code(for:)`` classifies.
public protocol ExitCodeProviding: Error {
    /// The process exit code, one of ``NowETLExitCode``'s.
    var exitCode: Int32 { get }
}
