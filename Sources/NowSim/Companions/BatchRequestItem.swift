import Foundation

/// One entry of a Batch API request's `rest_requests` array, validated.
struct BatchRequestItem: Sendable {
    /// The caller's `id`, echoed in the response.
    var id: String
    /// The method, upper-cased.
    var method: String
    /// The instance-relative URL as sent (`/api/now/table/incident?sysparm_limit=1`).
    var url: String
    /// The item's own headers, in order.
    var headers: [(name: String, value: String)]
    /// The decoded `body`.
    var body: [UInt8]
    /// Whether the response entry leaves out the headers.
    var excludeResponseHeaders: Bool

    /// Validates entry `index` of `rest_requests`.
    ///
    /// - Throws: ``BatchRequestError`` naming the entry and the field.
    init(json: Any, index: Int) throws(BatchRequestError) {
        guard let object = json as? [String: Any] else {
            throw BatchRequestError("rest_requests[\(index)] is not an object")
        }
        func string(_ key: String) throws(BatchRequestError) -> String {
            guard let value = object[key] else {
                throw BatchRequestError("rest_requests[\(index)].\(key) is required")
            }
            guard let text = value as? String, !text.isEmpty else {
                throw BatchRequestError("rest_requests[\(index)].\(key) must be a non-empty string")
            }
            return text
        }
        id = try string("id")
        method = try string("method").uppercased()
        url = try string("url")
        guard url.hasPrefix("/") else {
            throw BatchRequestError("rest_requests[\(index)].url must be instance-relative (start with /)")
        }

        headers = []
        if let rawHeaders = object["headers"], !(rawHeaders is NSNull) {
            guard let list = rawHeaders as? [Any] else {
                throw BatchRequestError("rest_requests[\(index)].headers must be an array")
            }
            for (offset, entry) in list.enumerated() {
                guard let header = entry as? [String: Any], let name = header["name"] as? String, !name.isEmpty,
                    let value = header["value"] as? String
                else {
                    throw BatchRequestError(
                        "rest_requests[\(index)].headers[\(offset)] must be {\"name\":…,\"value\":…} with strings")
                }
                headers.append((name: name, value: value))
            }
        }

        body = []
        if let rawBody = object["body"], !(rawBody is NSNull) {
            guard let text = rawBody as? String, let data = Self.decodeBase64(text) else {
                throw BatchRequestError("rest_requests[\(index)].body must be a base64 string")
            }
            body = Array(data)
        }

        switch object["exclude_response_headers"] {
        case nil, is NSNull: excludeResponseHeaders = false
        case let flag as Bool: excludeResponseHeaders = flag
        case let text as String where text == "true" || text == "false": excludeResponseHeaders = text == "true"
        default:
            throw BatchRequestError("rest_requests[\(index)].exclude_response_headers must be true or false")
        }
    }

    /// The request the dispatcher runs: the item's method, URL and headers, run as the caller of
    /// `outer` (its `Authorization` header replaces any the item sent).
    func request(within outer: HTTPRequest) -> HTTPRequest {
        var target = Substring(url)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        let path: Substring
        let rawQuery: Substring
        if let question = target.firstIndex(of: "?") {
            path = target[..<question]
            rawQuery = target[target.index(after: question)...]
        } else {
            path = target
            rawQuery = ""
        }
        var innerHeaders: [String: String] = [:]
        for header in headers {
            innerHeaders[header.name.lowercased()] = header.value
        }
        innerHeaders["authorization"] = outer.header("authorization")
        return HTTPRequest(
            method: method, path: FormEncoding.percentDecode(path, plusAsSpace: false), rawQuery: String(rawQuery),
            queryItems: FormEncoding.decode(Array(rawQuery.utf8)), headers: innerHeaders, body: body,
            remoteAddress: outer.remoteAddress, isSecure: outer.isSecure)
    }

    /// Standard base64 (URL-safe letters and missing padding tolerated, whitespace ignored).
    static func decodeBase64(_ text: String) -> Data? {
        var cleaned = String(text.filter { !$0.isWhitespace })
        cleaned = cleaned.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch cleaned.utf8.count % 4 {
        case 2: cleaned += "=="
        case 3: cleaned += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: cleaned)
    }
}

/// Why a Batch API request body was rejected as a whole (answered with a 400 envelope).
struct BatchRequestError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the offending entry and field.
    var detail: String

    init(_ detail: String) { self.detail = detail }

    var description: String { detail }
}
