import Foundation
import NowSimTestSupport

/// The real `nowsim` binary on an ephemeral port, for the extractor's end-to-end tests.
///
/// The binary comes from `NOWSIM_BIN` or `<package>/.build/debug/nowsim`. Starting and stopping block,
/// so they run on threads of their own (never on the cooperative pool) and poll rather than call
/// `Process.waitUntilExit`; SIGTERM stops the server, at the latest when the test process exits.
final class ETLNowSim: @unchecked Sendable {
    // `process` is only touched under `lock`; the rest is immutable after init.
    private let lock = NSLock()
    private let process: Process
    private let directory: URL

    /// The port nowsim listens on.
    let port: Int
    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts `nowsim serve --port 0 --port-file … --db … --quiet` plus `arguments` and waits for the port.
    private init(arguments: [String]) throws {
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory.appendingPathComponent("nowetl-nowsim-\(UUID().uuidString)")
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let portFile = directory.appendingPathComponent("port").path
        let errorFile = directory.appendingPathComponent("stderr")
        _ = fileManager.createFile(atPath: errorFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaryPath())
        process.arguments =
            ["serve", "--port", "0", "--port-file", portFile, "--db", directory.appendingPathComponent("db").path]
            + ["--quiet"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errorFile.path)
        try process.run()
        Self.track(process, directory: directory)
        var port: Int?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                port = number
                break
            }
            usleep(10_000)
        }
        guard let port else {
            terminateChild(process)
            let output = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            try? fileManager.removeItem(at: directory)
            throw ETLNowSimFailure(description: "nowsim did not start (\(Self.binaryPath())): \(output)")
        }
        self.port = port
    }

    /// Starts a server on a thread of its own.
    static func start(arguments: [String]) async throws -> ETLNowSim {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try ETLNowSim(arguments: arguments) })
            }
        }
    }

    deinit { stop() }

    private var stopped = false

    /// Sends SIGTERM, waits for the exit and removes the database.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        if !stopped {
            stopped = true
            terminateChild(process, grace: 10)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The path of the nowsim binary under test.
    static func binaryPath() -> String {
        if let path = ProcessInfo.processInfo.environment["NOWSIM_BIN"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/nowsim").path
    }

    // MARK: - Process safety net

    private static let trackedLock = NSLock()
    nonisolated(unsafe) private static var tracked: [(process: Process, directory: URL)] = []
    nonisolated(unsafe) private static var atexitInstalled = false

    private static func track(_ process: Process, directory: URL) {
        trackedLock.lock()
        defer { trackedLock.unlock() }
        tracked.append((process, directory))
        if !atexitInstalled {
            atexitInstalled = true
            atexit { ETLNowSim.terminateTracked() }
        }
    }

    private static func terminateTracked() {
        trackedLock.lock()
        let started = tracked
        trackedLock.unlock()
        for (process, directory) in started {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// nowsim could not be started.
struct ETLNowSimFailure: Error, CustomStringConvertible {
    var description: String
}

/// The servers of the extractor tests, each started once on first use: a plain one and one per fault
/// (faults act on the whole server, so tests that run in parallel must not share a faulty one).
enum ETLServers {
    /// The seed of every server: the same incidents everywhere.
    static let seed = ["--seed", "incident=1200", "--seed-value", "7", "--user", "admin:admin:admin"]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var servers: [String: Task<ETLNowSim, any Error>] = [:]

    /// The server with `fault` in force (`nil` for none).
    static func get(fault: String? = nil) async throws -> ETLNowSim {
        let key = fault ?? ""
        let task: Task<ETLNowSim, any Error> = lock.withLock {
            if let task = servers[key] { return task }
            let arguments = seed + (fault.map { ["--fault", $0] } ?? [])
            let task = Task { try await ETLNowSim.start(arguments: arguments) }
            servers[key] = task
            return task
        }
        return try await task.value
    }
}
