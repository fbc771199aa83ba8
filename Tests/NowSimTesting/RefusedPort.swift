import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that refuses every connection and that no other test can take while this value
/// lives: a TCP socket bound to `127.0.0.1:0` that never listens (Linux answers a connect with RST).
///
/// A stopped server's port would do only until a test running in parallel is given the same port.
public final class RefusedPort: Sendable {
    private let socket: Int32
    /// The port.
    public let port: UInt16

    /// Binds the socket.
    /// - Throws: `POSIXError` when no socket can be bound.
    public init() throws {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
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
        guard bound == 0, named == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        socket = fd
        port = UInt16(bigEndian: actual.sin_port)
    }

    deinit { close(socket) }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }
}
