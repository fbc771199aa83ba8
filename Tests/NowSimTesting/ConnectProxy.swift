import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP `CONNECT` proxy on 127.0.0.1 with an ephemeral port: it opens a tunnel to the requested
/// `host:port`, copies bytes both ways, and records every tunnel (so a test sees that traffic went through
/// it, and how many connections were opened).
///
/// One thread per tunnel; anything but `CONNECT` is answered with 405. ``stop()`` (or deinit) closes the
/// listener and every open tunnel.
public final class ConnectProxy: @unchecked Sendable {
    // @unchecked: `targets`, `sockets` and `stopped` are only touched under `lock`; the rest is immutable.
    private let listener: Int32
    private let lock = NSLock()
    private var targets: [String] = []
    private var sockets: Set<Int32> = []
    private var stopped = false

    /// The port the proxy listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// The `host:port` of every tunnel opened so far, in order.
    public var tunnels: [String] { lock.withLock { targets } }

    /// Starts listening.
    /// - Throws: `POSIXError` when no socket can be bound.
    public init() throws {
        let (fd, port) = try LoopbackSocket.bound(listen: 64)
        listener = fd
        self.port = Int(port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting and closes every tunnel.
    ///
    /// The tunnels are shut down under the lock that ``forget(_:)`` closes them under, so a descriptor
    /// number another test's socket reused in between is never shut down here.
    public func stop() {
        let first: Bool = lock.withLock {
            guard !stopped else { return false }
            stopped = true
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        // Only shut down: the accept loop closes the listener when it leaves (see ``stop()``'s note).
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        LoopbackSocket.acceptLoop(listener, admit: track) { [self] client in serve(client) }
    }

    /// Remembers an open socket; `false` once stopped.
    private func track(_ fd: Int32) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            sockets.insert(fd)
            return true
        }
    }

    private func forget(_ fd: Int32) {
        lock.withLock {
            sockets.remove(fd)
            close(fd)
        }
    }

    private func serve(_ client: Int32) {
        defer { forget(client) }
        var head = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let separator = Data("\r\n\r\n".utf8)
        while head.range(of: separator) == nil {
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0, head.count < 65_536 else { return }
            head.append(contentsOf: chunk[0..<count])
        }
        guard let end = head.range(of: separator) else { return }
        let early = head[end.upperBound...]
        let requestLine = String(decoding: head[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let targetPort = UInt16(parts[1][parts[1].index(after: colon)...])
        else {
            _ = Self.sendAll(Data("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".utf8), to: client)
            return
        }
        let host = String(parts[1][..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard let upstream = Self.connect(host: host, port: targetPort) else {
            _ = Self.sendAll(Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8), to: client)
            return
        }
        guard track(upstream) else {
            close(upstream)
            return
        }
        defer { forget(upstream) }
        lock.withLock { targets.append(String(parts[1])) }
        guard Self.sendAll(Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8), to: client),
            early.isEmpty || Self.sendAll(Data(early), to: upstream)
        else { return }
        Self.pump(client, upstream)
    }

    /// Copies bytes both ways until either side closes.
    private static func pump(_ first: Int32, _ second: Int32) {
        var descriptors = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let ready = poll(&descriptors, 2, 1000)
            if ready < 0 && errno != EINTR { return }
            // A timeout or an interrupted poll leaves `revents` as they were: nothing to read yet.
            if ready <= 0 { continue }
            for index in 0..<2 where descriptors[index].revents != 0 {
                let count = recv(descriptors[index].fd, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                guard sendAll(Data(buffer[0..<count]), to: descriptors[1 - index].fd) else { return }
            }
        }
    }

    private static func connect(host: String, port: UInt16) -> Int32? {
        guard host == "127.0.0.1" || host == "localhost" else { return nil }  // tests tunnel to nowsim only
        let fd = LoopbackSocket.tcp()
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func sendAll(_ bytes: Data, to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }
}
