/// Prints an ``EncodedQuery`` as encoded-query text for the wire.
///
/// Temporary home: the canonical printer (`EncodedQuery.description`) is being written in
/// `Sources/NowData/Query/`; when it lands, ``Filter`` should use it and this type should go.
/// The output follows ref §4.1: `^OR` inside terms, `^` between terms, `^NQ` between groups,
/// optional `^EQ`, then `ORDERBY`/`ORDERBYDESC` clauses.
enum QueryTextPrinter {
    static func query(_ query: EncodedQuery) -> String {
        var parts: [String] = []
        let groups = query.groups.map(group).filter { !$0.isEmpty }
        if !groups.isEmpty { parts.append(groups.joined(separator: "^NQ")) }
        if query.hasEndMarker { parts.append("EQ") }
        for sort in query.orderBy {
            parts.append((sort.descending ? "ORDERBYDESC" : "ORDERBY") + sort.field)
        }
        return parts.joined(separator: "^")
    }

    static func group(_ group: EncodedQuery.Group) -> String {
        group.terms.map(term).joined(separator: "^")
    }

    static func term(_ term: EncodedQuery.Term) -> String {
        term.conditions.map(condition).joined(separator: "^OR")
    }

    static func condition(_ condition: EncodedQuery.Condition) -> String {
        condition.field + condition.op.rawValue + value(condition.value)
    }

    static func value(_ value: EncodedQuery.Value) -> String {
        switch value {
        case .none: return ""
        case .literal(let text): return text
        case .list(let items): return items.joined(separator: ",")
        case .range(let low, let high): return operand(low) + "@" + operand(high)
        case .field(let field): return field
        case .dateRange(let label, let start, let end): return label + "@" + operand(start) + "@" + operand(end)
        case .relative(let unit, let direction, let count): return "@\(unit.rawValue)@\(direction.rawValue)@\(count)"
        case .script(let helper): return script(helper)
        }
    }

    static func operand(_ operand: EncodedQuery.Operand) -> String {
        switch operand {
        case .literal(let text): return text
        case .script(let helper): return script(helper)
        }
    }

    static func script(_ helper: EncodedQuery.DateHelper) -> String {
        let call: String
        switch helper {
        case .daysAgo(let n): call = "daysAgo(\(n))"
        case .daysAgoStart(let n): call = "daysAgoStart(\(n))"
        case .daysAgoEnd(let n): call = "daysAgoEnd(\(n))"
        case .hoursAgo(let n): call = "hoursAgo(\(n))"
        case .hoursAgoStart(let n): call = "hoursAgoStart(\(n))"
        case .hoursAgoEnd(let n): call = "hoursAgoEnd(\(n))"
        case .minutesAgo(let n): call = "minutesAgo(\(n))"
        case .minutesAgoStart(let n): call = "minutesAgoStart(\(n))"
        case .minutesAgoEnd(let n): call = "minutesAgoEnd(\(n))"
        case .monthsAgo(let n): call = "monthsAgo(\(n))"
        case .monthsAgoStart(let n): call = "monthsAgoStart(\(n))"
        case .monthsAgoEnd(let n): call = "monthsAgoEnd(\(n))"
        case .beginningOfToday: call = "beginningOfToday()"
        case .endOfToday: call = "endOfToday()"
        case .beginningOfYesterday: call = "beginningOfYesterday()"
        case .endOfYesterday: call = "endOfYesterday()"
        case .beginningOf(let period, let offset): call = "beginningOf\(offset.rawValue)\(period.rawValue)()"
        case .endOf(let period, let offset): call = "endOf\(offset.rawValue)\(period.rawValue)()"
        case .dateGenerate(let date, let time): call = "dateGenerate('\(date)','\(time)')"
        case .now: call = "nowDateTime()"
        }
        return "javascript:gs." + call
    }
}
