import Foundation

/// The real `nowetl` binary as a child process: the tests' one way to run it as a cron job would.
///
/// The binary is the one beside `nowsim` (both built by `swift build`; ``NowSimInstance/binaryPath()``).
/// Every child gets an empty `NOWETL_CRASH_AT`, so that a crash point set in the test process's own
/// environment never reaches a run that is not meant to crash; tests that want one pass it in
/// `environment`, which wins.
public enum NowETLProcess {
    /// The environment variable nowetl's crash points are armed with (`CrashPoint.environmentVariable`).
    public static let crashPointVariable = "NOWETL_CRASH_AT"

    /// The path of the nowetl binary beside the nowsim one.
    public static var path: String {
        URL(fileURLWithPath: NowSimInstance.binaryPath()).deletingLastPathComponent().appendingPathComponent("nowetl")
            .path
    }

    /// The environment of a child: no crash point, then `environment`.
    public static func environment(_ environment: [String: String]) -> [String: String] {
        [crashPointVariable: ""].merging(environment) { _, new in new }
    }

    /// Runs `nowetl ARGUMENTS` in `directory` to completion and returns how it exited and what it printed.
    ///
    /// - Parameters:
    ///   - environment: variables added to the test process's environment (pipeline `${VAR}`s, crash points).
    ///   - input: standard input; `/dev/null` when `nil`.
    ///   - timeout: a guard against hangs only (the child is killed and the call throws), far above a run's time.
    /// - Throws: ``SubprocessError`` when nowetl cannot start or outlives `timeout`.
    public static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], input: Data? = nil,
        timeout: TimeInterval = 300
    ) async throws -> SubprocessResult {
        try await Subprocess.run(
            path, arguments, directory: directory, environment: Self.environment(environment), input: input,
            timeout: timeout)
    }

    /// Starts `nowetl ARGUMENTS` in `directory` and returns the running child, for tests that stop or
    /// kill it midway; wait for it with ``ChildProcess/wait(timeout:)`` and remove its output folder with
    /// ``ChildProcess/removeDirectory()``.
    public static func start(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) throws -> ChildProcess {
        try ChildProcess(path, arguments, directory: directory, environment: Self.environment(environment))
    }
}
