/// An error that knows which process exit code it stands for (the codes are ``NowETLExitCode``'s).
///
/// ``NowETLError`` takes its exit code from its code (``NowETLError/Code/exitCode``, the one table);
/// ``ConfigError`` (78) and a usage error of the command line (64) conform too. The run orchestration
/// ends `nowetl` with the code of the error that stopped it (``NowETLExitCode/code(for:)``); errors that
/// do not conform count as failures (1), except NowData's own, which are classified.
public protocol ExitCodeProviding: Error {
    /// The process exit code, one of ``NowETLExitCode``'s.
    var exitCode: Int32 { get }
}
