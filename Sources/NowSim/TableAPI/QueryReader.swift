import NowQuery

/// Reads the record filter of a list request: `sysparm_query`, or name=value pairs without it.
///
/// An instance never rejects a query: conditions it cannot understand are dropped and the rest runs
/// (ref §4.3). nowsim does the same with malformed segments: it removes the segment the parser
/// points at and parses again, remembering what it dropped so that
/// `--invalid-query-returns-no-rows` can turn any drop into an empty result.
struct QueryReader {
    /// The query that will run.
    var query: EncodedQuery
    /// Segments removed because they did not parse.
    var droppedSegments: [String]

    init(request: HTTPRequest, table: TableDefinition, catalog: Catalog) {
        droppedSegments = []
        if let text = request.query("sysparm_query") {
            (query, droppedSegments) = Self.parseLeniently(text)
            return
        }
        var conditions: [EncodedQuery.Term] = []
        for item in request.queryItems where !item.name.hasPrefix("sysparm_") {
            var value = item.value
            if let column = table.column(item.name), column.hasChoices,
                catalog.choiceLabel(table: table.name, element: item.name, value: value) == nil,
                let stored = catalog.choiceValue(table: table.name, element: item.name, label: value)
            {
                value = stored
            }
            conditions.append(
                .init(conditions: [.init(field: item.name, op: .equals, value: .literal(value))]))
        }
        query = EncodedQuery(groups: conditions.isEmpty ? [] : [.init(terms: conditions)])
    }

    /// Parses `text`, dropping `^`-separated segments that do not parse (at most one per error).
    static func parseLeniently(_ text: String) -> (EncodedQuery, [String]) {
        var remaining = text
        var dropped: [String] = []
        for _ in 0..<64 {
            do {
                return (try EncodedQuery(parsing: remaining), dropped)
            } catch {
                let offset = min(max(0, error.offset), remaining.utf8.count)
                let utf8 = Array(remaining.utf8)
                var start = offset
                while start > 0 && utf8[start - 1] != UInt8(ascii: "^") { start -= 1 }
                var end = offset
                while end < utf8.count && utf8[end] != UInt8(ascii: "^") { end += 1 }
                // Take the joining caret with the segment so the rest stays well-formed.
                var cutStart = start
                var cutEnd = end
                if cutStart > 0 {
                    cutStart -= 1
                } else if cutEnd < utf8.count {
                    cutEnd += 1
                }
                dropped.append(String(decoding: utf8[start..<end], as: UTF8.self))
                remaining = String(decoding: Array(utf8[0..<cutStart]) + Array(utf8[cutEnd...]), as: UTF8.self)
                // A dropped segment may leave an `^OR`/`^NQ` prefix dangling at the start.
                for prefix in ["OR", "NQ", "EQ"] where remaining.hasPrefix(prefix) && start == 0 {
                    if (try? EncodedQuery(parsing: remaining)) == nil {
                        remaining = String(remaining.dropFirst(prefix.count))
                    }
                }
            }
        }
        return (EncodedQuery(), dropped + [remaining])
    }
}
