import Foundation

/// One request as the transport sends it.
struct TransportRequest: Sendable {
    var method: HTTPMethod
    var url: URL
    /// The table addressed, for error context.
    var table: String?
    var body: Data?
    var contentType: String?
    /// Whether to add the `Authorization` header.
    var authorize: Bool = true
    /// Whether a 2xx body must be a complete Table API JSON envelope.
    var validatesJSONBody: Bool = true
    /// Retry even when the method is not idempotent (token requests).
    var forceRetryable: Bool = false
}

/// One response as the transport returns it.
struct TransportResponse: Sendable {
    var statusCode: HTTPStatusCode
    /// Header fields by lowercased name.
    var headers: [String: String]
    var body: Data
    /// The scan of a validated JSON body.
    var scan: ResponseBodyScan?
    /// Attempts used, retries included.
    var attempts: Int

    /// The header value for a case-insensitive name.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
