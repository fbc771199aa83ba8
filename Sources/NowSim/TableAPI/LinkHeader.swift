/// Builds the `Link` header of a list response (ref §3.1).
///
/// Format as captured from instances: `<url>;rel="first",<url>;rel="prev",<url>;rel="next",<url>;rel="last"`
/// with no spaces; each URL repeats the request's parameters in their order with `sysparm_offset`
/// and `sysparm_limit` removed and appended last. `prev`/`next` appear only when such a page exists.
enum LinkHeader {
    static func value(
        request: HTTPRequest, baseURL: String, offset: Int, limit: Int, total: Int?, pageWasFull: Bool
    ) -> String {
        var kept = ""
        for part in request.rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if name == "sysparm_offset" || name == "sysparm_limit" { continue }
            kept += part
            kept += "&"
        }
        let prefix = baseURL + request.path + "?" + kept
        func link(_ pageOffset: Int, _ rel: String) -> String {
            "<\(prefix)sysparm_offset=\(pageOffset)&sysparm_limit=\(limit)>;rel=\"\(rel)\""
        }
        guard limit > 0 else { return link(0, "first") }
        var links = [link(0, "first")]
        if offset > 0 { links.append(link(max(0, offset - limit), "prev")) }
        if let total {
            if offset + limit < total { links.append(link(offset + limit, "next")) }
            let last = total > 0 ? ((total - 1) / limit) * limit : 0
            links.append(link(last, "last"))
        } else if pageWasFull {
            links.append(link(offset + limit, "next"))
        }
        return links.joined(separator: ",")
    }
}
