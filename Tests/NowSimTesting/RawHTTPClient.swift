import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client over a plain socket, for tests that must see every response as sent.
///
/// URLSession on Linux cannot be used for that: on a 401 carrying `WWW-Authenticate` (as an
/// instance sends) it either hangs or reports a cancelled task without the response, so tests of
/// error envelopes need their own client. One request per connection (`Connection: close`).
public enum RawHTTPClient {
    /// The exchange failed (connect, write, read or parse).
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A TCP connection to 127.0.0.1:`port` whose reads time out after `timeout` seconds; the caller
    /// closes the descriptor.
    ///
    /// Close-on-exec: a child another test spawns meanwhile must not inherit the connection, or closing
    /// it here would not end it for the server.
    public static func connectLoopback(port: Int, timeout: TimeInterval) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let number = errno
            close(fd)
            throw Failure(description: "connect to port \(port) failed: errno \(number)")
        }
        return fd
    }

    /// Sends one request to 127.0.0.1:`port` and reads the whole response.
    public static func send(
        port: Int, method: String, target: String, headers: [(String, String)], body: Data?, timeout: TimeInterval = 60
    ) throws -> (status: Int, headers: [String: String], body: Data) {
        let fd = try connectLoopback(port: port, timeout: timeout)
        defer { close(fd) }

        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        var bytes = Array(request.utf8)
        if let body { bytes += body }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "write failed: errno \(errno)") }
            sent += n
        }

        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            guard n > 0 else { throw Failure(description: "read failed or timed out: errno \(errno)") }
            response += buffer[0..<n]
        }
        return try parse(response, isHead: method == "HEAD")
    }

    /// The body of a `Transfer-Encoding: chunked` answer (a streamed attachment) without its framing.
    private static func dechunked(_ framed: ArraySlice<UInt8>) throws -> Data {
        var body = Data()
        var at = framed.startIndex
        while true {
            guard let lineEnd = framed[at...].firstIndex(of: 10) else {
                throw Failure(description: "chunked body ends inside a chunk size line")
            }
            let sizeText =
                String(decoding: framed[at..<lineEnd], as: UTF8.self)
                .split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else {
                throw Failure(description: "bad chunk size '\(sizeText)'")
            }
            at = lineEnd + 1
            if size == 0 { return body }
            guard framed.endIndex - at >= size + 2 else {
                throw Failure(description: "chunked body ends inside a chunk (the sender stopped)")
            }
            body.append(contentsOf: framed[at..<at + size])
            at += size + 2
        }
    }

    private static func parse(_ response: [UInt8], isHead: Bool) throws -> (Int, [String: String], Data) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, response.count - 3)).first(where: { Array(response[$0..<$0 + 4]) == separator })
        else { throw Failure(description: "no header end in \(response.count) bytes") }
        let head = String(decoding: response[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line '\(head[0])'")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(response[(end + 4)...])
        if isHead { body = Data() }
        if headers.first(where: { $0.key.lowercased() == "transfer-encoding" })?.value.lowercased() == "chunked" {
            body = try dechunked(response[(end + 4)...])
        }
        if let length = headers.first(where: { $0.key.lowercased() == "content-length" }).flatMap({ Int($0.value) }),
            !isHead
        {
            guard body.count == length else {
                throw Failure(description: "body has \(body.count) bytes, Content-Length says \(length)")
            }
        }
        return (status, headers, body)
    }
}
