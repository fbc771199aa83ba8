import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`, its output captured in files.
///
/// This is the one place the tests start programs. `Foundation.Process` is not used: off the main thread
/// on Linux its exit wait spins a run loop, and under load its running flag was seen never to turn
/// false, hanging the suite. Here the child's exit is observed with `waitpid` only, by whichever call
/// waits first; later calls see the remembered status. Every child is known to ``ChildProcessTracker``,
/// which kills the ones still running when the test process exits.
///
/// The blocking calls (``waitForExit(timeout:)``, ``terminateBlocking(grace:)``) poll `waitpid` with
/// short sleeps; async callers use ``wait(timeout:)`` and ``terminate(grace:)``, which do that on a thread
/// of their own so that Swift's cooperative pool (two threads on a 2-core machine) never blocks.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `exitStatus` is only read and written under `lock`; the rest is immutable after init.
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// The child's process id.
    public let pid: pid_t
    /// The command as a shell would show it, for error messages.
    public let command: String
    /// The folder holding the captured output (and anything the caller keeps there); removed by
    /// ``removeDirectory()`` and at process exit.
    public let directory: URL
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `program` (an absolute path, or a name looked up on `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - directory: the working directory of the child (the current one when `nil`).
    ///   - environment: variables added to (or replacing) the test process's own environment.
    ///   - input: the child's standard input; `/dev/null` when `nil`.
    ///   - scratch: where the output files go; a fresh temporary folder when `nil`.
    /// - Throws: ``SubprocessError`` when the program cannot be started.
    public init(
        _ program: String, _ arguments: [String] = [], directory: URL? = nil, environment: [String: String] = [:],
        input: Data? = nil, scratch: URL? = nil
    ) throws {
        let fileManager = FileManager.default
        let folder =
            scratch ?? fileManager.temporaryDirectory.appendingPathComponent("nowsimtesting-child-\(UUID().uuidString)")
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        self.directory = folder
        command = ([program] + arguments).map(Self.quoted).joined(separator: " ")
        stdoutPath = folder.appendingPathComponent("child.stdout").path
        stderrPath = folder.appendingPathComponent("child.stderr").path
        var inputPath = "/dev/null"
        if let input {
            inputPath = folder.appendingPathComponent("child.stdin").path
            try input.write(to: URL(fileURLWithPath: inputPath))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        // Default signal dispositions and an empty mask, as a shell would give: the test runner may
        // ignore SIGPIPE or block signals on the spawning thread.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // `env -C DIR` changes the child's directory (glibc's addchdir_np is not visible to Swift).
        var words = [program] + arguments
        if let directory { words = ["/usr/bin/env", "-C", directory.path] + words }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = words.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, words[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            try? fileManager.removeItem(at: folder)
            throw SubprocessError(
                command: command, problem: "cannot be started: \(String(cString: strerror(spawned)))", stdout: "",
                stderr: "")
        }
        self.pid = pid
        ChildProcessTracker.shared.add(self)
    }

    /// The exit status once the child has been reaped: its exit code, or 128 + the signal that killed it.
    public var status: Int32? { lock.withLock { exitStatus } }

    /// What the child wrote to standard output so far.
    public var stdout: Data { (try? Data(contentsOf: URL(fileURLWithPath: stdoutPath))) ?? Data() }
    /// What the child wrote to standard error so far.
    public var stderr: Data { (try? Data(contentsOf: URL(fileURLWithPath: stderrPath))) ?? Data() }
    /// Standard output and standard error as text, labelled, for failure messages.
    public var printed: String {
        let out = String(decoding: stdout, as: UTF8.self)
        let err = String(decoding: stderr, as: UTF8.self)
        return "stdout: \(out.isEmpty ? "(nothing)" : out)\nstderr: \(err.isEmpty ? "(nothing)" : err)"
    }

    /// Reaps the child if it has exited; returns its status, or `nil` while it runs. Never blocks.
    public func poll() -> Int32? {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                exitStatus = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
                ChildProcessTracker.shared.remove(self)
            } else if result == -1 && errno == ECHILD {
                // Not our child any more (cannot happen unless someone else reaped it); treat as gone.
                exitStatus = 255
                ChildProcessTracker.shared.remove(self)
            }
            return exitStatus
        }
    }

    /// Blocks until the child exits or `timeout` seconds pass; returns the status, `nil` on timeout.
    /// Call it from a thread of its own, not from async code.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt32 = 500
        while true {
            if let status = poll() { return status }
            if Date() >= deadline { return nil }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// SIGTERM, then SIGKILL if the child still runs after `grace` seconds; returns the exit status.
    /// Blocks; call it from a thread of its own (or at process exit).
    @discardableResult
    public func terminateBlocking(grace: TimeInterval = 20) -> Int32 {
        if let status = poll() { return status }
        kill(pid, SIGTERM)
        if let status = waitForExit(timeout: grace) { return status }
        kill(pid, SIGKILL)
        return waitForExit(timeout: 30) ?? 137
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns the exit status. Waits on a thread of its own.
    @discardableResult
    public func terminate(grace: TimeInterval = 20) async -> Int32 {
        (try? await offCooperativePool { self.terminateBlocking(grace: grace) }) ?? 137
    }

    /// Waits for the child to exit by itself; after `timeout` seconds it is killed (SIGKILL), reaped, and
    /// the call throws a ``SubprocessError`` naming the command and what it printed.
    public func wait(timeout: TimeInterval) async throws -> SubprocessResult {
        let status = try await offCooperativePool { () -> Int32? in
            if let status = self.waitForExit(timeout: timeout) { return status }
            kill(self.pid, SIGKILL)
            _ = self.waitForExit(timeout: 30)
            return nil
        }
        guard let status else {
            throw SubprocessError(
                command: command, problem: "was still running after \(timeout) s and was killed",
                stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
        }
        return SubprocessResult(command: command, status: status, stdout: stdout, stderr: stderr)
    }

    /// Removes ``directory`` (the captured output with it).
    public func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func quoted(_ word: String) -> String {
        word.isEmpty || word.contains(where: { " \"'$\\".contains($0) }) ? "'\(word)'" : word
    }
}

/// How a finished child exited and what it printed.
public struct SubprocessResult: Sendable {
    /// The command, for messages.
    public var command: String
    /// The exit code, or 128 + the signal that killed the child.
    public var status: Int32
    /// Standard output.
    public var stdout: Data
    /// Standard error.
    public var stderr: Data

    /// Standard output as UTF-8 text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    /// Standard output followed by standard error, as text.
    public var output: String { stdoutText + stderrText }
    /// The status with standard output and standard error as text, for tests that compare what was printed.
    public var textual: (status: Int32, stdout: String, stderr: String) { (status, stdoutText, stderrText) }
}

/// A child could not be started, or did not finish before its deadline.
public struct SubprocessError: Error, CustomStringConvertible {
    /// The command, as a shell would show it.
    public var command: String
    /// What went wrong.
    public var problem: String
    /// What the child wrote to standard output.
    public var stdout: String
    /// What the child wrote to standard error.
    public var stderr: String

    /// Creates an error.
    public init(command: String, problem: String, stdout: String, stderr: String) {
        self.command = command
        self.problem = problem
        self.stdout = stdout
        self.stderr = stderr
    }

    public var description: String {
        "\(command) \(problem)\nstdout: \(stdout.isEmpty ? "(nothing)" : stdout)\nstderr: \(stderr.isEmpty ? "(nothing)" : stderr)"
    }
}

/// Runs programs to completion: the tests' one way to run a command.
public enum Subprocess {
    /// Runs `program` with `arguments` and returns how it exited and what it printed.
    ///
    /// - Parameters:
    ///   - directory: the child's working directory.
    ///   - environment: variables added to the test process's environment.
    ///   - input: standard input; `/dev/null` when `nil`.
    ///   - timeout: after this many seconds the child is killed and the call throws. It guards against
    ///     hangs only; pick it far above the normal run time.
    /// - Throws: ``SubprocessError`` when the program cannot start or outlives `timeout`.
    public static func run(
        _ program: String, _ arguments: [String] = [], directory: URL? = nil, environment: [String: String] = [:],
        input: Data? = nil, timeout: TimeInterval = 120
    ) async throws -> SubprocessResult {
        let child = try ChildProcess(program, arguments, directory: directory, environment: environment, input: input)
        defer { child.removeDirectory() }
        return try await child.wait(timeout: timeout)
    }

    /// The path of `tool`: `/usr/bin/<tool>` when it exists, otherwise the first match on `PATH`, otherwise
    /// the bare name (so that starting it fails with a clear message).
    ///
    /// The system's copy comes first: version-manager shims (pyenv) cost a fifth of a second per start.
    public static func tool(_ name: String) -> String {
        let fileManager = FileManager.default
        if fileManager.isExecutableFile(atPath: "/usr/bin/" + name) { return "/usr/bin/" + name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where fileManager.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        return name
    }
}

/// Every child that has not been reaped yet, so that none outlives the test process.
///
/// One `atexit` handler, installed with the first child, sends SIGTERM to the children still running,
/// SIGKILL to those still there after a grace period, and removes their folders.
final class ChildProcessTracker: @unchecked Sendable {
    // @unchecked: `children` and `installed` are only touched under `lock`.
    static let shared = ChildProcessTracker()
    private let lock = NSLock()
    private var children: [pid_t: ChildProcess] = [:]
    private var installed = false

    func add(_ child: ChildProcess) {
        lock.withLock {
            children[child.pid] = child
            if !installed {
                installed = true
                atexit { ChildProcessTracker.shared.terminateAll() }
            }
        }
    }

    func remove(_ child: ChildProcess) {
        _ = lock.withLock { children.removeValue(forKey: child.pid) }
    }

    /// Stops every child still running (at process exit).
    func terminateAll() {
        let running = lock.withLock { Array(children.values) }
        for child in running { kill(child.pid, SIGTERM) }
        for child in running {
            child.terminateBlocking(grace: 5)
            child.removeDirectory()
        }
    }
}
