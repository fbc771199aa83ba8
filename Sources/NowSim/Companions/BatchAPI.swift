import Foundation

/// `POST /api/now/v1/batch`: runs several REST requests from one call and returns their responses
/// together (ref §7.2).
///
/// Request body: `{"batch_request_id":"…","rest_requests":[{"id","method","url","headers":[{"name",
/// "value"}],"body":"<base64>","exclude_response_headers":false}]}`, where `id`, `method` and an
/// instance-relative `url` are required. Every item becomes an ``HTTPRequest`` handed to the
/// dispatcher (the whole nowsim router), in order; it carries the outer request's `Authorization`
/// header, so it runs as the same caller, and the item's other headers. The answer is 200 with
/// `{"batch_request_id","serviced_requests":[{"id","status_code","status_text","headers","body",
/// "execution_time"}],"unserviced_requests":["<id>",…]}`.
///
/// An item goes to `unserviced_requests`, without being run or without its response, when:
/// - its decoded body exceeds ``maxInputSize`` (platform default 5 MB,
///   `glide.rest.batch.max.inputSize`);
/// - its response body exceeds ``maxOutputSize`` (10 MB, `glide.rest.batch.max.outputSize`), or the
///   smaller size the caller asked for with `X-BATCHREQUEST-MAX-OUTPUT-SIZE` — the request has
///   then run, and its effects stay;
/// - the batch has already used ``timeLimit`` (30 s, the "REST Batch API request timeout" quota)
///   when the item's turn comes.
///
/// Whole-request problems are answered with the error envelope: a method other than POST (405), a
/// `Content-Type` other than JSON (415), an `Accept` that excludes JSON (406 — the platform's
/// `multipart/mixed` answer is not implemented), a body that is not JSON (400 `Exception while
/// reading request`), and a missing or malformed field (400 `Bad Request` with the field in
/// `detail`; this wording is ours). Nothing is run when validation fails.
public struct BatchAPI: Sendable {
    /// The request path the router should send here (the API exists only in this versioned form).
    public static let path = "/api/now/v1/batch"

    /// Runs the items; normally the router that handles every nowsim request.
    public let dispatcher: any HTTPHandler
    /// The largest decoded item body that is run, in bytes.
    public var maxInputSize: Int
    /// The largest item response body that is returned, in bytes.
    public var maxOutputSize: Int
    /// How long a batch may run before the remaining items are left unserviced.
    public var timeLimit: Duration

    /// Creates the Batch API over `dispatcher`.
    ///
    /// - Parameters:
    ///   - dispatcher: Runs each item.
    ///   - maxInputSize: Largest item body run (default 5 MiB).
    ///   - maxOutputSize: Largest item response returned (default 10 MiB).
    ///   - timeLimit: Time after which no further item starts (default 30 s).
    public init(
        dispatcher: any HTTPHandler, maxInputSize: Int = 5 * 1024 * 1024, maxOutputSize: Int = 10 * 1024 * 1024,
        timeLimit: Duration = .seconds(30)
    ) {
        self.dispatcher = dispatcher
        self.maxInputSize = maxInputSize
        self.maxOutputSize = maxOutputSize
        self.timeLimit = timeLimit
    }

    /// Answers one batch request from a caller that has already been authenticated as `user`.
    ///
    /// `user` is the caller the router authenticated; the items are authenticated again by the
    /// dispatcher through the forwarded `Authorization` header, which therefore must be present on
    /// `request` for them to succeed.
    public func handle(_ request: HTTPRequest, authenticatedAs user: APIUser) -> HTTPResponse {
        guard request.method == "POST" else {
            return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["POST"])
        }
        if let contentType = request.header("content-type"), Self.mediaType(contentType) != "application/json" {
            return ErrorEnvelope.unsupportedMediaType(supported: ["application/json"])
        }
        if let accept = request.header("accept"), !Self.acceptsJSON(accept) {
            return ErrorEnvelope.notAcceptable(supported: ["application/json"])
        }
        guard let json = try? JSONSerialization.jsonObject(with: Data(request.body)),
            let object = json as? [String: Any]
        else {
            return ErrorEnvelope.invalidJSONBody
        }

        let batchRequestID: String?
        let items: [BatchRequestItem]
        do throws(BatchRequestError) {
            (batchRequestID, items) = try Self.validate(object)
        } catch {
            return ErrorEnvelope.badRequest(message: "Bad Request", detail: error.detail)
        }

        var outputLimit = maxOutputSize
        if let asked = request.header("x-batchrequest-max-output-size").flatMap({ Int($0) }), asked > 0 {
            outputLimit = min(outputLimit, asked)
        }

        var body: [UInt8] = Array("{".utf8)
        if let batchRequestID {
            body.append(contentsOf: #""batch_request_id":"#.utf8)
            ErrorEnvelope.appendQuoted(batchRequestID, to: &body)
            body.append(UInt8(ascii: ","))
        }
        body.append(contentsOf: #""serviced_requests":["#.utf8)
        var unserviced: [String] = []
        var servicedCount = 0
        let clock = ContinuousClock()
        let batchStart = clock.now
        for item in items {
            guard item.body.count <= maxInputSize, clock.now - batchStart < timeLimit else {
                unserviced.append(item.id)
                continue
            }
            let itemStart = clock.now
            let response = dispatcher.handle(item.request(within: request))
            let elapsed = clock.now - itemStart
            guard response.body.count <= outputLimit else {
                unserviced.append(item.id)
                continue
            }
            if servicedCount > 0 { body.append(UInt8(ascii: ",")) }
            servicedCount += 1
            Self.appendServiced(item, response, milliseconds: Self.milliseconds(elapsed), to: &body)
        }
        body.append(contentsOf: #"],"unserviced_requests":["#.utf8)
        for (offset, id) in unserviced.enumerated() {
            if offset > 0 { body.append(UInt8(ascii: ",")) }
            ErrorEnvelope.appendQuoted(id, to: &body)
        }
        body.append(contentsOf: "]}".utf8)
        return HTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: ErrorEnvelope.contentType)], body: body)
    }

    /// Checks the top-level shape and every item before anything runs.
    private static func validate(
        _ object: [String: Any]
    ) throws(BatchRequestError) -> (batchRequestID: String?, items: [BatchRequestItem]) {
        var batchRequestID: String?
        switch object["batch_request_id"] {
        case .none: batchRequestID = nil
        case .some(let value) where value is NSNull: batchRequestID = nil
        case .some(let value):
            guard let text = value as? String else {
                throw BatchRequestError("batch_request_id must be a string")
            }
            batchRequestID = text
        }
        guard let rawItems = object["rest_requests"] else {
            throw BatchRequestError("rest_requests is required")
        }
        guard let list = rawItems as? [Any] else {
            throw BatchRequestError("rest_requests must be an array")
        }
        var items: [BatchRequestItem] = []
        items.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            items.append(try BatchRequestItem(json: entry, index: index))
        }
        return (batchRequestID, items)
    }

    private static func appendServiced(
        _ item: BatchRequestItem, _ response: HTTPResponse, milliseconds: Int, to body: inout [UInt8]
    ) {
        body.append(contentsOf: #"{"id":"#.utf8)
        ErrorEnvelope.appendQuoted(item.id, to: &body)
        body.append(contentsOf: #","status_code":"#.utf8)
        body.append(contentsOf: String(response.status).utf8)
        body.append(contentsOf: #","status_text":"#.utf8)
        ErrorEnvelope.appendQuoted(BatchStatusText.forStatus(response.status), to: &body)
        body.append(contentsOf: #","headers":["#.utf8)
        if !item.excludeResponseHeaders {
            for (offset, header) in response.headers.enumerated() {
                if offset > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: #"{"name":"#.utf8)
                ErrorEnvelope.appendQuoted(header.name, to: &body)
                body.append(contentsOf: #","value":"#.utf8)
                ErrorEnvelope.appendQuoted(header.value, to: &body)
                body.append(UInt8(ascii: "}"))
            }
        }
        body.append(contentsOf: #"],"body":""#.utf8)
        body.append(contentsOf: Data(response.body).base64EncodedString().utf8)
        body.append(contentsOf: #"","execution_time":"#.utf8)
        body.append(contentsOf: String(milliseconds).utf8)
        body.append(UInt8(ascii: "}"))
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    private static func mediaType(_ value: some StringProtocol) -> String {
        let type = value.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether an `Accept` value admits `application/json` (directly or by wildcard).
    private static func acceptsJSON(_ accept: String) -> Bool {
        accept.split(separator: ",").contains { range in
            let type = mediaType(range)
            return type == "application/json" || type == "application/*" || type == "*/*" || type.isEmpty
        }
    }
}
