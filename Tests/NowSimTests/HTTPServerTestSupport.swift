import Foundation
import NowSim
import NowSimTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A handler for the server tests. Routes:
/// - `/echo…` (any method): JSON describing the request (method, path, raw query, items, headers, body length)
/// - `/body` (POST/PUT): the request body, byte for byte
/// - `/bytes?n=N`: N bytes of a fixed pattern (`byte i = i % 251`)
/// - `/slow?ms=M`: sleeps M ms, counting how many handlers run at once
/// - `/header?size=N`: a `Link` header of N characters
/// - `/status?code=N&body=B`: status N, body B, and a bogus `Content-Length: 999`
final class TestHandler: HTTPHandler, @unchecked Sendable {
    // @unchecked: the counters are guarded by `lock`.
    private let lock = NSLock()
    private var running = 0
    private(set) var maxConcurrent = 0

    /// How many `/slow` handlers are running right now.
    var runningNow: Int {
        lock.withLock { running }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/body":
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/octet-stream")], body: request.body)
        case "/bytes":
            let count = Int(request.query("n") ?? "0") ?? 0
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/octet-stream")], body: pattern(count))
        case "/slow":
            lock.withLock {
                running += 1
                maxConcurrent = max(maxConcurrent, running)
            }
            usleep(UInt32((Int(request.query("ms") ?? "50") ?? 50) * 1000))
            lock.withLock { running -= 1 }
            return HTTPResponse(status: 200, body: Array("slow".utf8))
        case "/header":
            let size = Int(request.query("size") ?? "0") ?? 0
            return HTTPResponse(
                status: 200, headers: [("Link", String(repeating: "l", count: size))], body: Array("ok".utf8))
        case "/status":
            let code = Int(request.query("code") ?? "200") ?? 200
            return HTTPResponse(
                status: code, headers: [("Content-Length", "999"), ("X-Status", "\(code)")],
                body: Array((request.query("body") ?? "").utf8))
        default:
            return echo(request)
        }
    }

    private func echo(_ request: HTTPRequest) -> HTTPResponse {
        let object = echoDescription(request).merging([
            "bodyLength": request.body.count,
            "bodyText": String(decoding: request.body.prefix(1000), as: UTF8.self),
            "secure": request.isSecure,
        ]) { $1 }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(data))
    }
}

/// The bytes `/bytes?n=` returns.
func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8($0 % 251) }
}

/// What `/echo` answered, decoded.
struct Echo {
    var method: String
    var path: String
    var rawQuery: String
    var query: [[String]]
    var headers: [String: String]
    var bodyLength: Int
    var bodyText: String
    var secure: Bool
    var remote: String

    init(_ data: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestFailure("echo is not a JSON object: \(String(decoding: data, as: UTF8.self))")
        }
        method = object["method"] as? String ?? ""
        path = object["path"] as? String ?? ""
        rawQuery = object["rawQuery"] as? String ?? ""
        query = object["query"] as? [[String]] ?? []
        headers = object["headers"] as? [String: String] ?? [:]
        bodyLength = object["bodyLength"] as? Int ?? -1
        bodyText = object["bodyText"] as? String ?? ""
        secure = object["secure"] as? Bool ?? false
        remote = object["remote"] as? String ?? ""
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects log lines in memory.
final class LogCapture: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var storage: [String] = []

    var log: RequestLog {
        RequestLog { [self] line in lock.withLock { storage.append(line) } }
    }

    var lines: [String] {
        lock.withLock { storage }
    }

    /// Waits briefly for a line containing `text` (the log line is written after the response is sent).
    func waitForLine(containing text: String) async throws -> String? {
        for _ in 0..<1000 {
            if let line = lines.first(where: { $0.contains(text) }) { return line }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// Starts a server with the test handler on an ephemeral loopback port.
func startTestServer(
    _ configuration: HTTPServer.Configuration = HTTPServer.Configuration(), handler: TestHandler = TestHandler(),
    log: RequestLog? = nil
) throws -> HTTPServer {
    let server = HTTPServer(configuration: configuration, handler: handler, log: log)
    try server.start()
    return server
}

/// The result of running curl.
struct CurlResult {
    var exitCode: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs curl with `arguments` (plus `-sS` and a time limit) and waits for it, off the cooperative pool.
func curl(_ arguments: [String], input: Data? = nil) async throws -> CurlResult {
    let result = try await Subprocess.run(
        Subprocess.tool("curl"), ["-sS", "--max-time", "30"] + arguments, input: input, timeout: 120)
    return CurlResult(exitCode: result.status, stdout: result.stdout, stderr: result.stderrText)
}

/// Sends `request` over a plain TCP connection to 127.0.0.1:`port` and returns everything the server sent
/// until it closed the connection (or `timeout` passed). For checks curl would hide (HEAD bodies).
func rawExchange(port: Int, request: String, host: String = "127.0.0.1", timeout: Double = 10) async throws -> [UInt8] {
    try await offCooperativePool { try rawExchangeBlocking(port: port, request: request, host: host, timeout: timeout) }
}

private func rawExchangeBlocking(port: Int, request: String, host: String, timeout: Double) throws -> [UInt8] {
    let isIPv6 = host.contains(":")
    let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    let connected: Int32
    if isIPv6 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET6, host, &address.sin6_addr)
        connected = connectSocket(fd, to: &address)
    } else {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        connected = connectSocket(fd, to: &address)
    }
    guard connected == 0 else { throw TestFailure("connect to \(host):\(port) failed: errno \(errno)") }
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { throw TestFailure("send failed: errno \(errno)") }
        sent += n
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        received.append(contentsOf: buffer[0..<n])
    }
    return received
}

/// What both echo handlers (this file's and the Batch API tests' EchoDispatcher) tell of a request:
/// method, path, query (raw and parsed), headers and the remote address.
func echoDescription(_ request: HTTPRequest) -> [String: Any] {
    [
        "method": request.method,
        "path": request.path,
        "rawQuery": request.rawQuery,
        "query": request.queryItems.map { [$0.name, $0.value] },
        "headers": request.headers,
        "remote": request.remoteAddress,
    ]
}

/// `connect(2)` of `fd` to `address`, a `sockaddr_in` or `sockaddr_in6`.
private func connectSocket<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
    withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
        }
    }
}

/// Splits a raw HTTP response into its head (status line and headers) and the bytes after it.
func splitResponse(_ bytes: [UInt8]) -> (head: String, rest: [UInt8]) {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard bytes.count >= 4 else { return (String(decoding: bytes, as: UTF8.self), []) }
    for index in 0...(bytes.count - 4) where Array(bytes[index..<index + 4]) == separator {
        return (String(decoding: bytes[..<index], as: UTF8.self), Array(bytes[(index + 4)...]))
    }
    return (String(decoding: bytes, as: UTF8.self), [])
}

/// A URLSession allowing many connections per host, for the concurrency tests.
func makeSession(connections: Int = 100) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connections
    configuration.timeoutIntervalForRequest = 30
    return URLSession(configuration: configuration)
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nowsim-http-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
