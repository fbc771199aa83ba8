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
    /// The `Accept` header.
    var accept = "application/json"
    /// Where a 2xx answer's body goes instead of ``TransportResponse/body`` (an attachment's bytes); such a
    /// request should not validate its body as JSON.
    var stream: (any ResponseBodyStream)? = nil
    /// Validates and reads a 2xx body in one pass in place of ``ResponseBodyScanner`` (keyset pages whose
    /// caller decodes the body anyway); `nil` from it means "scan as usual".
    var bodyReader: (@Sendable (Data) -> ResponseBodyRead?)? = nil
}

/// What a body reader found: the scan it stands for and the reader's content.
struct ResponseBodyRead: Sendable {
    var scan: ResponseBodyScan
    var content: any Sendable
}

/// One response as the transport returns it.
struct TransportResponse: Sendable {
    var statusCode: HTTPStatusCode
    /// Header fields by lowercased name.
    var headers: [String: String]
    var body: Data
    /// The scan of a validated JSON body.
    var scan: ResponseBodyScan?
    /// What the request's ``TransportRequest/bodyReader`` read from the body, when it read it.
    var content: (any Sendable)? = nil
    /// Attempts used, retries included.
    var attempts: Int

    /// The header value for a case-insensitive name.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
