/// Why the HTTP server could not start (or could not publish its port), with the context to fix it.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// A configuration value is out of range or malformed (host, port, sizes, half a TLS pair).
        case invalidConfiguration
        /// A certificate or key file could not be read.
        case certificateUnreadable
        /// HTTPS was asked for but this libmicrohttpd was built without TLS support.
        case tlsUnsupported
        /// libmicrohttpd refused to start: port in use, bad certificate, no permission, …
        case startFailed
        /// `start()` was called while the server was already running.
        case alreadyRunning
        /// The port file could not be written.
        case portFileUnwritable
    }

    /// The kind of failure.
    public var code: Code
    /// A readable explanation naming the address, file or value involved (never credentials).
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
