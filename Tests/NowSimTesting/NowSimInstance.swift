import Foundation

/// `nowsim` arguments for a database seeded by `plan` (`incident=300,problem=40`) from generator seed
/// `value`, with the `admin` account (password `admin`) the tests read as.
public func seededNowSim(_ plan: String, value: Int) -> [String] {
    ["--seed", plan, "--seed-value", String(value), "--user", "admin:admin:admin"]
}

/// Runs `body` against a fresh `nowsim` on an ephemeral port and stops the server afterwards, also
/// when `body` throws: the server's life is the closure's (as HummingbirdTesting's `app.test(.live)`).
///
/// - Parameters:
///   - arguments: added to `nowsim serve --port 0 --port-file … --db … --quiet` (seeds, users, TLS…).
///   - faults: each becomes a `--fault` argument; faults act on the whole server.
///   - scheme: the scheme of ``NowSimInstance/baseURL`` (`https` when `arguments` carry a certificate).
///   - logRequests: keep nowsim's request log (no `--quiet`), readable as ``NowSimInstance/requestLog``.
/// - Throws: ``NowSimStartFailure`` when nowsim does not start, and whatever `body` throws.
public func withNowSim<Value>(
    arguments: [String] = [], faults: [String] = [], scheme: String = "http", logRequests: Bool = false,
    _ body: (NowSimInstance) async throws -> Value
) async throws -> Value {
    let sim = try await NowSimInstance.start(
        arguments: arguments, faults: faults, scheme: scheme, logRequests: logRequests)
    do {
        let value = try await body(sim)
        await sim.stop()
        return value
    } catch {
        await sim.stop()
        throw error
    }
}

/// The real `nowsim` binary serving on 127.0.0.1 for the tests.
///
/// Get one through ``withNowSim(arguments:faults:scheme:logRequests:_:)`` (scoped), ``shared(arguments:)`` (one per
/// argument set, started on first use and stopped when the test process exits) or ``start(arguments:faults:scheme:logRequests:)``
/// (stopped by ``stop()``, on deinit, or at exit). The binary comes from `NOWSIM_BIN` (set by `make test`) or
/// `<package>/.build/debug/nowsim`.
public final class NowSimInstance: @unchecked Sendable {
    // @unchecked: everything is immutable after init; the child guards its own state.
    private let child: ChildProcess

    /// The port nowsim listens on.
    public let port: Int
    /// `http` or `https`, as given at start.
    public let scheme: String
    /// The SQLite database of the instance.
    public let databasePath: String
    /// The folder holding the database, the port file and the server's output; removed on stop.
    public var directory: URL { child.directory }
    /// The process id of the server.
    public var pid: pid_t { child.pid }

    /// The base URL, e.g. `http://127.0.0.1:41234`.
    public var baseURL: URL {
        // The string is built from a scheme and a number, so it always parses.
        URL(string: "\(scheme)://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// How long nowsim may take to seed and listen before the start counts as failed.
    public static let startupTimeout: TimeInterval = 180

    private init(child: ChildProcess, port: Int, scheme: String, databasePath: String) {
        self.child = child
        self.port = port
        self.scheme = scheme
        self.databasePath = databasePath
    }

    deinit {
        child.terminateBlocking(grace: 20)
        child.removeDirectory()
    }

    /// Starts `nowsim serve --port 0 --port-file … --db … --quiet` plus `arguments` and waits (on a thread
    /// of its own) until the port file names the port. With `logRequests`, `--quiet` is left out and the
    /// request log is kept (``requestLog``).
    ///
    /// - Throws: ``NowSimStartFailure`` with what nowsim printed when it exits first or does not listen
    ///   within ``startupTimeout``.
    public static func start(
        arguments: [String] = [], faults: [String] = [], scheme: String = "http", logRequests: Bool = false
    ) async throws -> NowSimInstance {
        try await offCooperativePool {
            try startBlocking(arguments: arguments, faults: faults, scheme: scheme, logRequests: logRequests)
        }
    }

    private static func startBlocking(arguments: [String], faults: [String], scheme: String, logRequests: Bool)
        throws -> NowSimInstance
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowsim-test-\(UUID().uuidString)")
        let portFile = directory.appendingPathComponent("port").path
        let database = directory.appendingPathComponent("instance.sqlite").path
        let all =
            ["serve", "--port", "0", "--port-file", portFile, "--db", database] + (logRequests ? [] : ["--quiet"])
            + arguments + faults.flatMap { ["--fault", $0] }
        let child: ChildProcess
        do {
            child = try ChildProcess(binaryPath(), all, scratch: directory)
        } catch {
            throw NowSimStartFailure(description: "nowsim did not start (\(binaryPath())): \(error)")
        }
        let deadline = Date().addingTimeInterval(startupTimeout)
        var pause: UInt32 = 1_000
        while true {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return NowSimInstance(child: child, port: port, scheme: scheme, databasePath: database)
            }
            if let status = child.poll() {
                let printed = child.printed
                child.removeDirectory()
                throw NowSimStartFailure(
                    description: "\(child.command) exited with \(status) before listening\n\(printed)")
            }
            if Date() >= deadline {
                child.terminateBlocking(grace: 5)
                let printed = child.printed
                child.removeDirectory()
                throw NowSimStartFailure(
                    description: "\(child.command) did not listen within \(startupTimeout) s\n\(printed)")
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Sends SIGTERM (SIGKILL after 20 s), waits on a thread of its own and removes ``directory``;
    /// returns the exit status. Later calls return the same status.
    @discardableResult
    public func stop() async -> Int32 {
        let status = await child.terminate(grace: 20)
        child.removeDirectory()
        return status
    }

    /// The lines of the request log so far (`<time> <peer> <METHOD> <target> <status> …`, one per finished
    /// request, see nowsim's `RequestLog`), for an instance started with `logRequests`; empty otherwise.
    ///
    /// A request is logged when its answer is finished, so one still in flight is not there yet.
    public var requestLog: [Substring] {
        String(decoding: child.stderr, as: UTF8.self).split(separator: "\n").filter { line in
            line.split(separator: " ", maxSplits: 3).count == 4 && line.first?.isNumber == true
        }
    }

    // MARK: - Shared instances

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedInstances: [[String]: Task<NowSimInstance, any Error>] = [:]

    /// The instance started with `arguments`, started on first use and shared by every test that asks for
    /// the same arguments; stopped when the test process exits.
    ///
    /// Share only servers that tests do not change (or that a serialized suite owns): faults and writes
    /// act on the whole server.
    public static func shared(arguments: [String]) async throws -> NowSimInstance {
        let task: Task<NowSimInstance, any Error> = sharedLock.withLock {
            if let task = sharedInstances[arguments] { return task }
            let task = Task { try await start(arguments: arguments) }
            sharedInstances[arguments] = task
            return task
        }
        return try await task.value
    }

    // MARK: - Binary

    /// The path of the nowsim binary under test: `NOWSIM_BIN`, else `<package>/.build/debug/nowsim`.
    public static func binaryPath() -> String {
        if let path = ProcessInfo.processInfo.environment["NOWSIM_BIN"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/nowsim").path
    }

    // MARK: - HTTP

    /// One HTTP exchange's outcome.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The headers as sent (last one wins for repeated names).
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// The body parsed as JSON.
        public var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
        /// `result` as an array of objects.
        public var resultList: [[String: Any]] { ((json as? [String: Any])?["result"] as? [[String: Any]]) ?? [] }
        /// `result` as one object.
        public var resultObject: [String: Any] { ((json as? [String: Any])?["result"] as? [String: Any]) ?? [:] }
        /// A header by name, any case.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Sends a GET (see the full form below).
    public func request(
        _ path: String, query: [(String, String)] = [], headers: [String: String] = [:], body: Data? = nil,
        user: String? = "admin", password: String = "admin"
    ) async throws -> Response {
        try await request("GET", path, query: query, headers: headers, body: body, user: user, password: password)
    }

    /// Sends a request over a plain socket (``RawHTTPClient``; `http` instances only); `query` items are
    /// percent-encoded here, so pass them raw. Basic authentication as `user` unless it is `nil`.
    public func request(
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
    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: - Faults

    /// Replaces the server's injected faults (`PUT /api/nowsim/faults`, as `admin`).
    public func setFaults(_ faults: [String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["faults": faults])
        let response = try await request("PUT", "/api/nowsim/faults", body: body)
        guard response.status == 200 else {
            throw NowSimStartFailure(
                description: "PUT /api/nowsim/faults \(faults) answered \(response.status): "
                    + String(decoding: response.body, as: UTF8.self))
        }
    }

    /// How many requests each fault in force has seen (`matched` of `GET /api/nowsim/faults`), in the
    /// order they were set. A request is counted before it is answered, so unlike the request log (a
    /// line written once the answer is sent) the count is complete when the client has its answer.
    public func matchedFaultCounts() async throws -> [Int] {
        let response = try await request("GET", "/api/nowsim/faults")
        guard response.status == 200, let result = (response.json as? [String: Any])?["result"] as? [String: Any],
            let matched = result["matched"] as? [Int]
        else {
            throw NowSimStartFailure(
                description: "GET /api/nowsim/faults answered \(response.status): "
                    + String(decoding: response.body, as: UTF8.self))
        }
        return matched
    }

    /// Runs `body` with `faults` in force, then clears them (also when `body` throws).
    public func withFaults<Value>(_ faults: [String], _ body: () async throws -> Value) async throws -> Value {
        try await setFaults(faults)
        do {
            let value = try await body()
            try await setFaults([])
            return value
        } catch {
            try? await setFaults([])
            throw error
        }
    }
}

/// nowsim could not be started or driven; the description carries the command and what it printed.
public struct NowSimStartFailure: Error, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// Creates a failure.
    public init(description: String) { self.description = description }
}
