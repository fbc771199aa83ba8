import Foundation
import NowSimTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `nowsim` binary on an ephemeral port, for NowData's integration tests.
///
/// The binary comes from `NOWSIM_BIN` (set by `make test`) or `<package>/.build/debug/nowsim`. The
/// server is stopped with SIGTERM by ``stop()``, and at the latest when the test process exits.
final class NowSimServer: @unchecked Sendable {
    // `process` is only touched under `lock`; the rest is immutable after init.
    private let lock = NSLock()
    private let process: Process
    private let directory: URL
    private let stderrPipe = Pipe()

    /// The port nowsim listens on.
    let port: Int
    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts `nowsim serve --port 0 --port-file … --db … --quiet` plus `arguments`, and waits for the port.
    ///
    /// Blocks until nowsim listens; call it off the cooperative thread pool (see ``SharedNowSim/get()``).
    init(arguments: [String]) throws {
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory.appendingPathComponent("nowdata-nowsim-\(UUID().uuidString)")
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let portFile = directory.appendingPathComponent("port").path
        let database = directory.appendingPathComponent("instance.sqlite").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaryPath())
        process.arguments =
            ["serve", "--port", "0", "--port-file", portFile, "--db", database, "--quiet"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderrPipe
        try process.run()
        NowSimServer.track(process, directory: directory)

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
            let output = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try? fileManager.removeItem(at: directory)
            throw NowSimStartFailure(description: "nowsim did not start (\(Self.binaryPath())): \(output)")
        }
        self.port = port
    }

    private var stoppedStatus: Int32?

    deinit { stop() }

    /// Sends SIGTERM, waits for the exit and removes the database; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if stoppedStatus == nil { stoppedStatus = terminateChild(process) }
        try? FileManager.default.removeItem(at: directory)
        return stoppedStatus ?? 0
    }

    /// Replaces nowsim's injected faults (`PUT /api/nowsim/faults`, as `admin`).
    func setFaults(_ faults: [String]) async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("api/nowsim/faults"))
        request.httpMethod = "PUT"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["faults": faults])
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("admin:admin".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 10
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw NowSimStartFailure(description: "PUT faults failed: \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Runs `body` with `faults` in force, then clears them (also when `body` throws).
    func withFaults(_ faults: [String], _ body: () async throws -> Void) async throws {
        try await setFaults(faults)
        do {
            try await body()
            try await setFaults([])
        } catch {
            try? await setFaults([])
            throw error
        }
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

    /// Remembers a started process so that the `atexit` handler can stop it.
    private static func track(_ process: Process, directory: URL) {
        trackedLock.lock()
        defer { trackedLock.unlock() }
        tracked.append((process, directory))
        if !atexitInstalled {
            atexitInstalled = true
            atexit { NowSimServer.terminateTracked() }
        }
    }

    /// SIGTERM to every started nowsim that still runs, and its files removed (at process exit).
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

/// nowsim could not be started or driven.
struct NowSimStartFailure: Error, CustomStringConvertible {
    var description: String
}

/// The nowsim shared by the integration tests: started on first use, seeded deterministically, with
/// an admin and a read-only user.
enum SharedNowSim {
    static let arguments = [
        "--seed", "incident=300,problem=50", "--seed-value", "3",
        "--user", "reader:pw:snc_read_only", "--user", "admin:admin:admin",
    ]
    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<NowSimServer, any Error>?

    /// The shared server. Starting it blocks while nowsim seeds, so that happens on a thread of its own:
    /// blocking one of the cooperative pool's few threads would stall every other test meanwhile.
    static func get() async throws -> NowSimServer {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                lock.lock()
                defer { lock.unlock() }
                if started == nil { started = Result { try NowSimServer(arguments: arguments) } }
                continuation.resume(with: started!)
            }
        }
    }
}
