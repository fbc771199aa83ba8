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
    /// A body produced piece by piece while it is sent (an attachment's file), or `nil`; when set,
    /// ``body`` and ``padding`` are ignored and the length is unknown up front (chunked encoding).
    public var stream: (any ResponseBodyStream)?

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

/// A response body produced while it is sent, block by block, on libmicrohttpd's threads.
///
/// libmicrohttpd asks for the blocks one after another (never two at once for one response), but
/// possibly from different threads; implementations guard their state with a lock.
public protocol ResponseBodyStream: AnyObject, Sendable {
    /// Fills `buffer` with the next bytes: the count written, 0 at the end, `nil` when the body
    /// cannot be produced (the connection is then closed, so the client sees a short body).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int?
}

/// Something that answers HTTP requests; called concurrently from the server's thread pool.
public protocol HTTPHandler: Sendable {
    /// Answers one request. Must not throw: every failure becomes an error response.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
