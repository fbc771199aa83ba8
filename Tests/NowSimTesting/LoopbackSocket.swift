import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A TCP socket bound to `127.0.0.1` on a port the kernel picks: the start of every test server and
/// port of the harness (``ConnectProxy``, ``RefusedPort``, the PostgreSQL server's free port, the
/// scripted HTTP server of NowDataTests), so none of them races another test for a fixed port.
public enum LoopbackSocket {
    /// A new TCP socket (`-1` when the system has none left).
    public static func tcp() -> Int32 {
        #if canImport(Glibc)
            socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    /// Binds a new TCP socket to `127.0.0.1:0` and reads back its port.
    ///
    /// - Parameters:
    ///   - backlog: when given, the socket listens with this backlog; without it, it never listens
    ///     (Linux answers a connect with RST).
    ///   - reuseAddress: sets `SO_REUSEADDR` before binding.
    /// - Returns: the socket, which the caller closes, and its port.
    /// - Throws: `POSIXError(.EIO)` when no socket can be made; `POSIXError(.EADDRINUSE)` when it cannot be
    ///   bound, named or made to listen (the socket is closed then).
    public static func bound(listen backlog: Int32? = nil, reuseAddress: Bool = false) throws -> (
        socket: Int32, port: UInt16
    ) {
        let fd = tcp()
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    /// Accepts connections on `listener` and serves each on a thread of its own, until `accept` fails (the
    /// listener was shut down) or `admit` refuses a client; then closes the listener. Closing it here, and
    /// not where the server is stopped, keeps its descriptor number from being reused by a parallel test's
    /// socket while this loop may still accept on it.
    ///
    /// - Parameters:
    ///   - admit: whether to serve `client` (`false` once the server stopped: the loop closes it and ends).
    ///   - serve: the work on one client, on its own thread; it closes the client.
    public static func acceptLoop(
        _ listener: Int32, admit: (Int32) -> Bool, serve: @escaping @Sendable (Int32) -> Void
    ) {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard admit(client) else {
                close(client)
                return
            }
            let thread = Thread { serve(client) }
            thread.start()
        }
    }
}
