import Foundation

/// One HTTP response produced by a handler; the server adds `Content-Length` and `Date`.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers in the order they are sent; names as they should appear on the wire.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty for 204 and HEAD).
    public var body: [UInt8]
    /// Bytes sent inside ``body`` without being held in memory, or `nil`.
    public var padding: BodyPadding?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (any case), if set.
    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })?.value
    }
}

/// Something that answers HTTP requests; called concurrently from the server's thread pool.
public protocol HTTPHandler: Sendable {
    /// Answers one request. Must not throw: every failure becomes an error response.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
