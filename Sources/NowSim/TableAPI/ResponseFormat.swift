import Foundation

/// The media type of a Table API response, negotiated from `Accept` (ref §1.2, §1.5).
enum ResponseFormat {
    case json
    case xml

    /// The format `request` accepts, or `nil` when it accepts neither (406).
    ///
    /// No `Accept`, `*/*`, `application/*` and `application/json` give JSON; `application/xml` or
    /// `text/xml` (without JSON listed first) give XML.
    init?(accepting request: HTTPRequest) {
        guard let accept = request.header("accept")?.lowercased(), !accept.isEmpty else {
            self = .json
            return
        }
        for item in accept.split(separator: ",") {
            let type = item.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            switch type {
            case "application/json", "*/*", "application/*", "text/*", "application/json+v2": self = .json
            case "application/xml", "text/xml": self = .xml
            default: continue
            }
            return
        }
        return nil
    }

    /// The `Content-Type` of responses in this format.
    var contentType: String {
        switch self {
        case .json: "application/json;charset=UTF-8"
        case .xml: "application/xml;charset=UTF-8"
        }
    }
}

/// Writes the `result` envelope around records: `{"result":[…]}` or `<response><result>…</result></response>`.
protocol ResultEnvelope: RecordOutput {
    init(capacity: Int)
    /// The bytes written.
    var bytes: [UInt8] { get }
    /// Opens a list (`{"result":[`) or a single result (`{"result":`).
    mutating func startResults(list: Bool)
    /// Goes between two records of a list.
    mutating func separateRecords()
    /// Closes what ``startResults(list:)`` opened.
    mutating func endResults(list: Bool)
}

extension JSONWriter: ResultEnvelope {
    mutating func startResults(list: Bool) { list ? raw("{\"result\":[") : raw("{\"result\":") }
    mutating func separateRecords() { byte(UInt8(ascii: ",")) }
    mutating func endResults(list: Bool) { list ? raw("]}") : raw("}") }
}

extension XMLWriter: ResultEnvelope {
    mutating func startResults(list: Bool) { startResponse() }
    mutating func separateRecords() {}
    mutating func endResults(list: Bool) { endResponse() }
}

extension ErrorEnvelope {
    /// `response` as XML when it is a JSON error envelope and the caller asked for XML:
    /// `<response><error><message>…</message><detail>…</detail></error><status>failure</status></response>`.
    static func converted(_ response: HTTPResponse, to format: ResponseFormat) -> HTTPResponse {
        guard format == .xml, response.status >= 400,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return response }
        var out = XMLWriter()
        out.startResponse()
        out.raw("<error>")
        out.member("message", first: true, error["message"] as? String ?? "")
        if let detail = error["detail"] as? String {
            out.member("detail", first: false, detail)
        } else {
            out.raw("<detail/>")
        }
        out.raw("</error><status>failure</status>")
        out.endResponse()
        var converted = response
        converted.headers = response.headers.map {
            $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame ? ($0.name, format.contentType) : $0
        }
        converted.body = out.bytes
        return converted
    }
}
