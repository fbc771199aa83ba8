import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion with `posix_spawn` and `waitpid`, capturing its output in files.
///
/// `Foundation.Process` is not used here: off the main thread on Linux its `waitUntilExit` spins a run
/// loop, and a run once never saw a child's exit through `isRunning`, hanging the suite. A blocking
/// `waitpid` on a thread of our own cannot miss it.
enum Subprocess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `program` with `arguments` in `directory`; returns the exit status (128 + signal when
    /// killed) and what it wrote to stdout and stderr.
    static func run(_ program: String, _ arguments: [String], environment: [String: String], directory: URL)
        async throws -> (status: Int32, stdout: String, stderr: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try runBlocking(program, arguments, environment: environment, directory: directory) }
                )
            }
        }
    }

    private static func runBlocking(
        _ program: String, _ arguments: [String], environment: [String: String], directory: URL
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("out").path
        let errPath = scratch.appendingPathComponent("err").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        // `env -C DIR` changes directory for the child (glibc's addchdir_np is not visible to Swift).
        let launcher = "/usr/bin/env"
        let argv = (["env", "-C", directory.path, program] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, launcher, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot start \(program): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid failed: errno \(errno)") }
        }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (code, out, err)
    }
}
