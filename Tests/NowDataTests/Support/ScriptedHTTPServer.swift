import Foundation
import NowSimTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 with an ephemeral port that answers with scripted responses.
///
/// Purpose-built for transport tests: it can delay, truncate a body, send HTML, and records every request
/// it saw. One thread per connection; every response closes the connection.
final class ScriptedHTTPServer: @unchecked Sendable {
    /// A request as received.
    struct Request: Sendable {
        var method: String
        /// The request target (path and query, still percent-encoded).
        var target: String
        /// Header fields by lowercased name.
        var headers: [String: String]
        var body: Data

        var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

        /// Decoded query parameters (last value wins).
        var query: [String: String] {
            guard let components = URLComponents(string: "http://x" + target) else { return [:] }
            var result: [String: String] = [:]
            for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
            return result
        }

        /// The body as form fields (`application/x-www-form-urlencoded`).
        var form: [String: String] {
            var components = URLComponents()
            components.percentEncodedQuery = String(decoding: body, as: UTF8.self).replacingOccurrences(
                of: "+", with: "%20")
            var result: [String: String] = [:]
            for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
            return result
        }
    }

    /// A scripted response.
    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body = Data()
        /// Seconds to wait before answering.
        var delay: TimeInterval = 0
        /// Send only this many body bytes, without `Content-Length`, then close.
        var truncateAfter: Int? = nil
        /// Send the body one byte at a time, this many seconds apart (a slow but live server).
        var trickle: TimeInterval? = nil

        /// A JSON response.
        static func json(_ status: Int = 200, _ text: String, headers: [(String, String)] = []) -> Response {
            Response(
                status: status, headers: [("Content-Type", "application/json;charset=UTF-8")] + headers,
                body: Data(text.utf8))
        }
    }

    typealias Handler = @Sendable (Request) -> Response

    private let handler: Handler
    private let listener: Int32
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false

    /// The port the server listens on.
    let port: UInt16

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request received so far, in order.
    var requests: [Request] { lock.withLock { recorded } }

    /// Starts a server that answers every request through `handler`.
    init(handler: @escaping Handler) throws {
        self.handler = handler
        let (fd, port) = try LoopbackSocket.bound(listen: 64, reuseAddress: true)
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Starts a server that plays `script` in order and repeats the last response afterwards.
    convenience init(script: [Response]) throws {
        let counter = Counter()
        try self.init { _ in
            let index = counter.next()
            return script[min(index, script.count - 1)]
        }
    }

    deinit { stop() }

    /// Stops accepting connections.
    func stop() {
        let wasStopped = lock.withLock {
            let was = stopped
            stopped = true
            return was
        }
        guard !wasStopped else { return }
        // Only shut down: the accept loop closes the listener when it leaves, so its descriptor number
        // cannot be reused by a parallel test's socket while the loop may still accept on it.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        LoopbackSocket.acceptLoop(listener, admit: { [self] _ in !isStopped }, serve: { [self] in serve($0) })
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = readRequest(client) else { return }
        lock.withLock { recorded.append(request) }
        let response = handler(request)
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        var body = response.body
        if let limit = response.truncateAfter {
            body = body.prefix(limit)
        } else {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        guard let pause = response.trickle else {
            var bytes = Data(head.utf8)
            bytes.append(body)
            Self.sendAll(bytes, to: client)
            shutdown(client, Int32(SHUT_WR))
            return
        }
        guard Self.sendAll(Data(head.utf8), to: client) else { return }
        for byte in body {
            Thread.sleep(forTimeInterval: pause)
            guard Self.sendAll(Data([byte]), to: client) else { return }
        }
        shutdown(client, Int32(SHUT_WR))
    }

    /// Sends all of `bytes`; `false` when the peer went away.
    @discardableResult
    private static func sendAll(_ bytes: Data, to client: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    private func readRequest(_ client: Int32) -> Request? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let separator = Data("\r\n\r\n".utf8)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
            headerEnd = buffer.range(of: separator)
        }
        let headText = String(decoding: buffer[..<headerEnd!.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Data(buffer[headerEnd!.upperBound...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { break }
            body.append(contentsOf: chunk[0..<count])
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status"
        }
    }
}

/// A thread-safe counter for scripts.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}

/// Records values from concurrent code (delays, events).
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    func append(_ value: Value) { lock.withLock { stored.append(value) } }
    var values: [Value] { lock.withLock { stored } }
}
