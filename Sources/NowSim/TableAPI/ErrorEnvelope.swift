import Foundation

/// ServiceNow's REST error body, `{"error":{"message":…,"detail":…},"status":"failure"}`, and the
/// responses that carry it.
///
/// Every Table API and companion error goes through here so that the literal messages clients
/// string-match (ref §1.4) are spelled in one place. The body is written compactly, `message`
/// before `detail`, with `detail` as JSON `null` when absent (never the string `"null"`). Real
/// instances have been seen writing `detail` first as well; key order carries no meaning.
///
/// Messages marked *[INF]* below are not documented anywhere we could find; they are plausible
/// choices, to be checked against a real instance.
public enum ErrorEnvelope {
    /// The `Content-Type` of every error response, spelled as real instances send it.
    public static let contentType = "application/json;charset=UTF-8"

    /// The `WWW-Authenticate` challenge a real instance sends with a 401.
    public static let basicChallenge = "BASIC realm=\"Service-now\""

    /// The complete error body for `message` and `detail` (`nil` → JSON `null`).
    public static func body(message: String, detail: String?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + message.utf8.count + (detail?.utf8.count ?? 4))
        bytes.append(UInt8(ascii: "{"))
        appendMembers(message: message, detail: detail, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Appends `"error":{…},"status":"failure"` (the envelope's members, without braces) to `bytes`.
    ///
    /// A cancelled transaction writes these members after an already started `{"result":[…` body
    /// (ref §1.4), so fault injection needs them on their own.
    public static func appendMembers(message: String, detail: String?, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #""error":{"message":"#.utf8)
        appendQuoted(message, to: &bytes)
        bytes.append(contentsOf: #","detail":"#.utf8)
        if let detail {
            appendQuoted(detail, to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        bytes.append(contentsOf: #"},"status":"failure""#.utf8)
    }

    /// An error response with the envelope as body and `Content-Type: application/json;charset=UTF-8`.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - message: The short text clients match on.
    ///   - detail: The longer text, or `nil` for JSON `null`.
    ///   - headers: Further headers, sent after `Content-Type`.
    public static func response(
        status: Int, message: String, detail: String?, headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [(name: "Content-Type", value: contentType)] + headers,
            body: body(message: message, detail: detail))
    }

    // MARK: - Literal messages of ref §1.4

    /// 401 `User Not Authenticated` / `Required to provide Auth information`, with the instance's
    /// `WWW-Authenticate: BASIC realm="Service-now"` challenge.
    ///
    /// Used for a missing, malformed or wrong `Authorization` header and for unknown or expired
    /// bearer tokens alike: the platform does not say which part was wrong.
    public static let notAuthenticated = response(
        status: 401, message: "User Not Authenticated", detail: "Required to provide Auth information",
        headers: [(name: "WWW-Authenticate", value: basicChallenge)])

    /// 404 `No Record found` / `Record doesn't exist or ACL restricts the record retrieval`.
    public static let noRecord = response(
        status: 404, message: "No Record found",
        detail: "Record doesn't exist or ACL restricts the record retrieval")

    /// 400 `Invalid table <name>` / `Table <name> does not exist`.
    public static func invalidTable(_ name: String) -> HTTPResponse {
        response(status: 400, message: "Invalid table \(name)", detail: "Table \(name) does not exist")
    }

    /// 403 `Operation Failed` / `ACL Exception Update Failed due to security constraints`.
    public static let aclUpdateFailed = operationFailed(
        detail: "ACL Exception Update Failed due to security constraints")

    /// 403 `Operation Failed` with another detail, e.g. `Data Policy Exception: …`.
    public static func operationFailed(detail: String) -> HTTPResponse {
        response(status: 403, message: "Operation Failed", detail: detail)
    }

    /// 403 `Operation Failed` / `Error during insert of <table> (<display value>)` (or `update`): a
    /// write the database refused, e.g. one that would duplicate `sys_user.user_name` (a unique
    /// index). Observed on a real instance for an insert that hit a unique index (docs/table-api.md
    /// §1.4); the `update` wording follows it.
    public static func writeFailed(operation: String, table: String, displayValue: String) -> HTTPResponse {
        operationFailed(detail: "Error during \(operation) of \(table) (\(displayValue))")
    }

    /// 403 `Insufficient rights to query records` with `detail: null` (status UNCERTAIN in ref §1.4).
    public static let insufficientRights = response(
        status: 403, message: "Insufficient rights to query records", detail: nil)

    /// 400 `Requested URI does not represent any resource` with `detail: null`.
    ///
    /// Some clients report this with 404; ref §1.4 leaves the status open, 400 is our choice.
    public static let noResource = response(
        status: 400, message: "Requested URI does not represent any resource", detail: nil)

    /// 429 `Rate limit exceeded` / `Rate limit of <limit> requests per hour for <apiName> exceeded`,
    /// with `Retry-After`.
    ///
    /// - Parameters:
    ///   - limit: The rule's requests per hour.
    ///   - apiName: The API as the platform names it (`Table API`).
    ///   - retryAfter: Seconds until the caller may try again (`Retry-After`).
    ///   - headers: The rule's `X-RateLimit-Limit`/`-Reset`/`-Rule` headers, if the caller has them.
    public static func rateLimited(
        limit: Int, apiName: String, retryAfter: Int = 60, headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        response(
            status: 429, message: "Rate limit exceeded",
            detail: "Rate limit of \(limit) requests per hour for \(apiName) exceeded",
            headers: [(name: "Retry-After", value: String(retryAfter))] + headers)
    }

    /// 400 with any message and detail, for request problems without a fixed text.
    public static func badRequest(message: String, detail: String?) -> HTTPResponse {
        response(status: 400, message: message, detail: detail)
    }

    /// 400 `Exception while reading request` / `The payload is not valid JSON.`
    ///
    /// *[INF]* The message is the platform's for failures while reading a request body (it is
    /// documented with the payload-size detail, KB0747638); the detail text is our choice.
    public static let invalidJSONBody = badRequest(
        message: "Exception while reading request", detail: "The payload is not valid JSON.")

    /// 400 `Exception while reading request` / `Rejected large REST payload with content-length = N
    /// bytes. Max allowed: M bytes.` (KB0747638; the status code is *[INF]*).
    public static func payloadTooLarge(contentLength: Int, maxAllowed: Int) -> HTTPResponse {
        badRequest(
            message: "Exception while reading request",
            detail: "Rejected large REST payload with content-length = \(contentLength) bytes. "
                + "Max allowed: \(maxAllowed) bytes.")
    }

    /// 405 for a verb the resource does not support, with an `Allow` header when `allowed` is given.
    ///
    /// *[INF]* The text is our choice: `Method not Supported` / `<METHOD> is not supported for this
    /// resource`.
    public static func methodNotAllowed(_ method: String, allowed: [String] = []) -> HTTPResponse {
        response(
            status: 405, message: "Method not Supported", detail: "\(method) is not supported for this resource",
            headers: allowed.isEmpty ? [] : [(name: "Allow", value: allowed.joined(separator: ", "))])
    }

    /// 415 for a request body of a media type the endpoint cannot read.
    ///
    /// The message has been observed from real instances (third-party test code); `detail: null` is
    /// *[INF]*.
    public static func unsupportedMediaType(
        supported: [String] = ["application/json", "application/xml", "text/xml"]
    ) -> HTTPResponse {
        response(
            status: 415,
            message: "Invalid content-type. Supported request media types for this service are: "
                + "[\(supported.joined(separator: ", "))]",
            detail: nil)
    }

    /// 406 for an `Accept` header the endpoint cannot satisfy.
    ///
    /// *[INF]* Worded after the 415 message: `Invalid Accept header. Supported response media types
    /// for this service are: [...]`, `detail: null`.
    public static func notAcceptable(supported: [String] = ["application/json", "application/xml"]) -> HTTPResponse {
        response(
            status: 406,
            message: "Invalid Accept header. Supported response media types for this service are: "
                + "[\(supported.joined(separator: ", "))]",
            detail: nil)
    }

    /// The message of a transaction killed by its quota rule (ref §1.4, KB1297438).
    public static let transactionCancelledMessage = "Transaction cancelled: maximum execution time exceeded"

    /// The detail of a cancelled transaction: the message plus the platform's standard suffix.
    public static let transactionCancelledDetail =
        transactionCancelledMessage
        + " Check logs for error trace or enable glide.rest.debug property to verify REST request processing"

    /// A complete cancelled-transaction response: 500 when the request timed out while still queued.
    ///
    /// For the 200 variant (the error written after a truncated `result`), use ``appendMembers(message:detail:to:)``
    /// with ``transactionCancelledMessage`` and ``transactionCancelledDetail``.
    public static func transactionCancelled(status: Int = 500) -> HTTPResponse {
        response(status: status, message: transactionCancelledMessage, detail: transactionCancelledDetail)
    }

    // MARK: - JSON strings

    /// Appends `string` as a JSON string literal (quotes included) to `bytes`.
    ///
    /// Escapes `"`, `\` and the C0 controls (short forms where JSON has them, `\u00XX` otherwise);
    /// everything else, including `/` and non-ASCII, is written as UTF-8 unchanged. This is
    /// `JSONWriter`'s escaping, so error bodies and result bodies spell strings alike.
    public static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        JSONWriter.appendQuoted(string, to: &bytes)
    }
}
