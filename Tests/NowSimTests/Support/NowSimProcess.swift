import Foundation
import NowSimTestSupport
import Testing

/// The real `nowsim` binary, started on an ephemeral port for the tests and stopped with SIGTERM.
///
/// The binary comes from `NOWSIM_BIN` (set by `make test`) or the package's debug build folder.
final class NowSimProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    private var stopped: Int32?
    let databasePath: String
    let directory: URL
    private let stderrPipe = Pipe()

    /// The base URL, e.g. `http://127.0.0.1:41234`.
    var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }
    let scheme: String

    /// Starts nowsim with `arguments` added to `serve --port 0 --port-file … --db …`.
    init(arguments: [String] = [], scheme: String = "http") throws {
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory.appendingPathComponent("nowsim-test-\(UUID().uuidString)")
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("instance.sqlite").path
        let portFile = directory.appendingPathComponent("port").path
        self.scheme = scheme

        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaryPath())
        process.arguments =
            ["serve", "--port", "0", "--port-file", portFile, "--db", databasePath, "--quiet"] + arguments
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        let deadline = Date().addingTimeInterval(120)
        var port: Int?
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                port = number
                break
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        guard let port else {
            terminateChild(process)
            let output = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NowSimStartFailure(message: "nowsim did not start: \(output)")
        }
        self.port = port
    }

    deinit { stop() }

    /// Starts nowsim (see `init`) without blocking the cooperative pool while it seeds and binds.
    static func start(arguments: [String] = [], scheme: String = "http") async throws -> NowSimProcess {
        let process = try await offCooperativePool { Box(try NowSimProcess(arguments: arguments, scheme: scheme)) }
        return process.value
    }

    /// Sends SIGTERM and waits (SIGKILL after 20 s); returns the exit status.
    ///
    /// Waits with `waitpid` (see ``terminateChild(_:grace:)``) rather than `Process.waitUntilExit`,
    /// which spins a run loop at full CPU when called off the main thread on Linux.
    @discardableResult
    func stop() -> Int32 {
        if stopped == nil { stopped = terminateChild(process) }
        try? FileManager.default.removeItem(at: directory)
        return stopped ?? 0
    }

    /// The path of the nowsim binary under test.
    static func binaryPath() -> String {
        if let path = ProcessInfo.processInfo.environment["NOWSIM_BIN"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/nowsim").path
    }

    // MARK: - HTTP

    /// One HTTP exchange's outcome.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body parsed as JSON.
        var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
        /// `result` as an array of objects.
        var resultList: [[String: Any]] { ((json as? [String: Any])?["result"] as? [[String: Any]]) ?? [] }
        /// `result` as one object.
        var resultObject: [String: Any] { ((json as? [String: Any])?["result"] as? [String: Any]) ?? [:] }
        /// A header by name, any case.
        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Sends a GET (see the full form below).
    func request(
        _ path: String, query: [(String, String)] = [], headers: [String: String] = [:], body: Data? = nil,
        user: String? = "admin", password: String = "admin"
    ) async throws -> Response {
        try await request("GET", path, query: query, headers: headers, body: body, user: user, password: password)
    }

    /// Sends a request; `query` items are percent-encoded here, so pass them raw.
    func request(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: [String: String] = [:],
        body: Data? = nil, user: String? = "admin", password: String = "admin"
    ) async throws -> Response {
        var target = path
        if !query.isEmpty {
            target += "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        var allHeaders: [(String, String)] = [("Accept", "application/json")]
        if let user {
            allHeaders.append(("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
        }
        if body != nil && headers["Content-Type"] == nil { allHeaders.append(("Content-Type", "application/json")) }
        for (name, value) in headers {
            allHeaders.removeAll { $0.0.caseInsensitiveCompare(name) == .orderedSame }
            allHeaders.append((name, value))
        }
        let port = self.port
        let headerList = allHeaders
        let requestTarget = target
        // The socket client blocks; keep it off the cooperative pool, which has only one thread per core.
        let result = try await offCooperativePool {
            try RawHTTPClient.send(port: port, method: method, target: requestTarget, headers: headerList, body: body)
        }
        return Response(status: result.status, headers: result.headers, body: result.body)
    }

    /// Percent-encodes a query component the strict way (RFC 3986 unreserved characters only).
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

struct NowSimStartFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// One nowsim shared by the read-only tests, seeded once (deterministically) for the whole run.
enum SharedNowSim {
    static let seedArguments = [
        "--seed",
        "sys_user=120,sys_user_group=12,core_company=20,cmn_location=25,cmdb_ci=150,incident=1500,problem=200,change_request=200",
        "--seed-value", "42",
    ]
    private static let lock = NSLock()
    nonisolated(unsafe) private static var instance: NowSimProcess?

    /// Stops the shared instance when the test process exits, so no server outlives the run.
    static func stopShared() {
        lock.lock()
        defer { lock.unlock() }
        instance?.stop()
        instance = nil
    }

    /// The shared instance, started on first use (off the cooperative pool).
    static func get() async throws -> NowSimProcess {
        try await offCooperativePool { Box(try startOnce()) }.value
    }

    private static func startOnce() throws -> NowSimProcess {
        lock.lock()
        defer { lock.unlock() }
        if let instance { return instance }
        let started = try NowSimProcess(arguments: seedArguments)
        instance = started
        atexit { SharedNowSim.stopShared() }
        return started
    }
}

/// Carries a non-`Sendable` value across the thread hop of ``offCooperativePool(_:)``; the value is
/// handed over once and not shared.
struct Box<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
