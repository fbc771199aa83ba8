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
        (socket, port) = try LoopbackSocket.bound()
    }

    deinit { close(socket) }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }
}
