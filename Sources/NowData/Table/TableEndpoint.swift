import Foundation

/// Builds Table API URLs: `<instance>/api/now[/<version>]/table/<table>[/<sys_id>]?<query>` (and the
/// Aggregate API's `…/stats/<table>` with `api: "stats"`).
enum TableEndpoint {
    static func url(
        configuration: NowServiceConfiguration, table: String, sysId: SysID? = nil, queryItems: [URLQueryItem] = [],
        api: String = "table"
    ) throws(NowDataError) -> URL {
        if let sysId, sysId.isEmpty { throw .missingSysID }
        return try url(
            configuration: configuration, api: api, segments: [table] + (sysId.map { [$0] } ?? []),
            queryItems: queryItems)
    }

    /// `<instance>/api/now[/<version>]/<api>[/<segment>…]?<query>`: the first segment must be a table
    /// name's characters (a table, or the Attachment API's sys_id), the others are percent-encoded.
    static func url(
        configuration: NowServiceConfiguration, api: String, segments: [String], queryItems: [URLQueryItem] = []
    ) throws(NowDataError) -> URL {
        if let first = segments.first {
            guard !first.isEmpty, first.utf8.allSatisfy(isTableNameByte) else { throw .invalidURL }
        }
        var text = configuration.instanceURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/api/now"
        if let version = configuration.apiVersion, !version.isEmpty { text += "/" + FormEncoding.encode(version) }
        text += "/" + api
        for segment in segments { text += "/" + FormEncoding.encode(segment) }
        if !queryItems.isEmpty {
            text +=
                "?"
                + queryItems.map { FormEncoding.encode($0.name) + "=" + FormEncoding.encode($0.value ?? "") }
                .joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw .invalidURL }
        return url
    }

    private static func isTableNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
