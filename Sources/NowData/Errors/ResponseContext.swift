import Foundation

/// What is known about a failed HTTP exchange: which request, what the server said.
///
/// Built by the transport; the URL has no user info, and request headers (which carry credentials) are
/// never recorded.
public struct ResponseContext: Sendable, Hashable {
    /// The HTTP method (`GET`, `POST`, …).
    public var method: String
    /// The request URL without user info.
    public var url: String
    /// The table the request addressed, when known.
    public var table: String?
    /// The HTTP status, when a response arrived.
    public var statusCode: HTTPStatusCode?
    /// `error.message` of the Table API error envelope.
    public var message: String?
    /// `error.detail` of the Table API error envelope (`nil` when absent or JSON `null`).
    public var detail: String?
    /// The first bytes of a body that was not a JSON error envelope (an HTML page from a proxy).
    public var bodyPrefix: String?
    /// The delay the server asked for in `Retry-After`, in seconds.
    public var retryAfter: Double?
    /// How many attempts were made, retries included.
    public var attempts: Int

    /// The context of an error made without a request, such as the SDK's documented
    /// `NowDataError.badResponse(statusCode: 404)`; its description says so.
    public static let unrecorded = ResponseContext(method: "", url: "")

    /// Creates a context.
    public init(
        method: String, url: String, table: String? = nil, statusCode: HTTPStatusCode? = nil,
        message: String? = nil, detail: String? = nil, bodyPrefix: String? = nil, retryAfter: Double? = nil,
        attempts: Int = 1
    ) {
        self.method = method
        self.url = url
        self.table = table
        self.statusCode = statusCode
        self.message = message
        self.detail = detail
        self.bodyPrefix = bodyPrefix
        self.retryAfter = retryAfter
        self.attempts = attempts
    }
}

extension ResponseContext: CustomStringConvertible {
    /// The characters of the server's `message` and `detail` that a description shows: an instance's
    /// error texts are short, and a longer one is cut rather than flooding a log.
    static let maximumMessageLength = 2000

    /// `GET https://…/api/now/table/incident (table incident, 2 attempts): message — detail`.
    public var description: String { description(showingURL: true) }

    /// ``description``, or without the URL — `GET table incident (2 attempts): message — detail` — for a
    /// line people read, where a URL of a page's query is long and says little (a caller logs it apart).
    public func description(showingURL: Bool) -> String {
        var text: String
        var notes: [String] = []
        if method.isEmpty && url.isEmpty {
            text = "an unrecorded request"
        } else if showingURL {
            text = "\(method) \(url)"
        } else {
            text = method + (table.map { " table \($0)" } ?? "")
        }
        if let table, showingURL { notes.append("table \(table)") }
        if attempts > 1 { notes.append("\(attempts) attempts") }
        if let retryAfter { notes.append("Retry-After \(retryAfter)s") }
        if !notes.isEmpty { text += " (\(notes.joined(separator: ", ")))" }
        // The server's words are hostile input: no control character of theirs reaches a terminal.
        if let message {
            text += ": \(PrintableText.escaped(String(message.prefix(Self.maximumMessageLength))))"
            if let detail, !detail.isEmpty {
                text += " — \(PrintableText.escaped(String(detail.prefix(Self.maximumMessageLength))))"
            }
        } else if let bodyPrefix {
            text += ": body starts \"\(PrintableText.escaped(bodyPrefix))\""
        }
        return text
    }
}
