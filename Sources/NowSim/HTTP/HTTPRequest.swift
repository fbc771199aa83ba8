import Foundation

/// One HTTP request as nowsim's handlers see it, fully read (headers and body).
///
/// Header names are lower-cased so that lookups need no case folding; query parameters keep their
/// order and duplicates, because the `Link` header must rebuild the caller's URL faithfully.
public struct HTTPRequest: Sendable {
    /// The request method, upper-case (`GET`, `POST`, …).
    public var method: String
    /// The percent-decoded path, without the query string (`/api/now/table/incident`).
    public var path: String
    /// The raw query string as sent, without the leading `?` (empty when there is none).
    public var rawQuery: String
    /// The decoded query parameters in the order they were sent.
    public var queryItems: [(name: String, value: String)]
    /// Headers with lower-cased names; a repeated header keeps its last value.
    public var headers: [String: String]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// The peer address, for the request log.
    public var remoteAddress: String
    /// Whether the request arrived over TLS.
    public var isSecure: Bool

    /// Creates a request; tests and the Batch API build requests this way too.
    public init(
        method: String, path: String, rawQuery: String = "", queryItems: [(name: String, value: String)] = [],
        headers: [String: String] = [:], body: [UInt8] = [], remoteAddress: String = "", isSecure: Bool = false
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
    }

    /// The last value of the query parameter `name`, if present.
    public func query(_ name: String) -> String? {
        queryItems.last(where: { $0.name == name })?.value
    }

    /// The value of the header `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
