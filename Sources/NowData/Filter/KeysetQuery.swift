/// Builds the `sysparm_query` text of keyset and offset pages from a filter's text.
///
/// Works on text so it handles raw filters too: the filter is split at `^` (values cannot contain `^`,
/// ref §4.3), `ORDERBY…` clauses and the `EQ` marker are dropped, and the keyset conditions are added
/// to every `^NQ` group — appending them once would only constrain the last group.
enum KeysetQuery {
    /// `<filter, per group>^sys_id>=LOW^sys_id<HIGH^sys_id>AFTER^ORDERBYsys_id`.
    static func keyset(filter: String?, lowerBound: SysID?, upperBound: SysID?, after: SysID?) -> String {
        var bounds: [String] = []
        if let lowerBound { bounds.append("sys_id>=" + lowerBound) }
        if let upperBound { bounds.append("sys_id<" + upperBound) }
        if let after { bounds.append("sys_id>" + after) }
        let groups = conditionGroups(filter ?? "")
        let body: String
        if groups.isEmpty {
            body = bounds.joined(separator: "^")
        } else {
            body = groups.map { ($0 + bounds).joined(separator: "^") }.joined(separator: "^NQ")
        }
        return body.isEmpty ? "ORDERBYsys_id" : body + "^ORDERBYsys_id"
    }

    /// The filter with `ORDERBYsys_id` appended as a tie-breaker unless it already sorts by sys_id last,
    /// so offset pages have a total order (ref §9.1).
    static func offset(filter: String?) -> String {
        let text = filter ?? ""
        let segments = text.split(separator: "^", omittingEmptySubsequences: true)
        let lastSort = segments.last { $0.hasPrefix("ORDERBY") }
        if lastSort == "ORDERBYsys_id" || lastSort == "ORDERBYDESCsys_id" { return text }
        return text.isEmpty ? "ORDERBYsys_id" : text + "^ORDERBYsys_id"
    }

    /// The condition segments of each `^NQ` group, without sorts and end markers.
    static func conditionGroups(_ text: String) -> [[String]] {
        var groups: [[String]] = []
        var current: [String] = []
        for rawSegment in text.split(separator: "^", omittingEmptySubsequences: true) {
            var segment = Substring(rawSegment)
            if segment.hasPrefix("ORDERBY") || segment == "EQ" { continue }
            if segment.hasPrefix("NQ") {
                if !current.isEmpty { groups.append(current) }
                current = []
                segment = segment.dropFirst(2)
                if segment.isEmpty { continue }
            }
            current.append(String(segment))
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }
}
