extension EncodedQuery: CustomStringConvertible {
    /// The canonical encoded-query text.
    ///
    /// Groups are joined by `^NQ`, the terms of a group by `^`, the conditions of a term by `^OR`;
    /// then `^EQ` if ``hasEndMarker``, then one `^ORDERBY<field>`/`^ORDERBYDESC<field>` per sort
    /// clause (without the leading `^` when nothing precedes it). Operators print as their canonical
    /// token (its `rawValue`, so `NOTLIKE` and `!*` come back as `NOT LIKE`).
    ///
    /// `EncodedQuery(parsing: q.description) == q` holds for every query the parser produces, and
    /// for hand-built ones that respect the grammar: field names `[A-Za-z0-9_]+` parts joined by
    /// dots, no `^` in values (ServiceNow has no escape), no `,` in list items and no empty `.list`, no `@` in range
    /// bounds and labels, no literal starting with `javascript:`, value shapes that fit the operator, a non-empty ``Term`` in every
    /// ``Group``, and no `OR`/`NQ`/`ORDERBY`/`EQ` look-alike at the start of a field name.
    public var description: String {
        var text = ""
        for (groupIndex, group) in groups.enumerated() {
            if groupIndex > 0 { text += "^NQ" }
            for (termIndex, term) in group.terms.enumerated() {
                if termIndex > 0 { text += "^" }
                for (conditionIndex, condition) in term.conditions.enumerated() {
                    if conditionIndex > 0 { text += "^OR" }
                    condition.write(to: &text)
                }
            }
        }
        if hasEndMarker { text += text.isEmpty ? "EQ" : "^EQ" }
        for sort in orderBy {
            if !text.isEmpty { text += "^" }
            text += sort.description
        }
        return text
    }
}

extension EncodedQuery.Condition: CustomStringConvertible, EncodedQueryPart {
    /// The condition as encoded-query text: `<field><operator><value>`.
    public var description: String { text }

    fileprivate func write(to text: inout String) {
        text += field
        text += op.rawValue
        value.write(to: &text)
    }
}

extension EncodedQuery.Sort: CustomStringConvertible {
    /// `ORDERBY<field>` or `ORDERBYDESC<field>`.
    public var description: String { (descending ? "ORDERBYDESC" : "ORDERBY") + field }
}

extension EncodedQuery.Value: CustomStringConvertible, EncodedQueryPart {
    /// The operand as it follows the operator (`a,b`, `1@3`, `Today@javascript:…@javascript:…`,
    /// `@hour@ago@1`; empty for ``none``).
    public var description: String { text }

    fileprivate func write(to text: inout String) {
        switch self {
        case .none: break
        case .literal(let literal): text += literal
        case .list(let items): text += items.joined(separator: ",")
        case .range(let low, let high): text += "\(low)@\(high)"
        case .field(let field): text += field
        case .dateRange(let label, let start, let end): text += "\(label)@\(start)@\(end)"
        case .relative(let unit, let direction, let count): text += "@\(unit.rawValue)@\(direction.rawValue)@\(count)"
        case .script(let helper): text += helper.description
        }
    }
}

extension EncodedQuery.Operand: CustomStringConvertible {
    /// The literal, or `javascript:gs.…(…)` for a helper.
    public var description: String {
        switch self {
        case .literal(let literal): literal
        case .script(let helper): helper.description
        }
    }
}

extension EncodedQuery.DateHelper: CustomStringConvertible {
    /// The helper as written in a query, with its `javascript:` prefix: `javascript:gs.daysAgo(3)`.
    ///
    /// ``now`` prints as `gs.nowDateTime()`; `gs.now()` is accepted as an alias when parsing.
    public var description: String { "javascript:gs." + call }

    /// `daysAgo(3)`, `beginningOfLastWeek()`, `dateGenerate('2024-01-31','end')`.
    private var call: String {
        switch self {
        case .daysAgo(let n): "daysAgo(\(n))"
        case .daysAgoStart(let n): "daysAgoStart(\(n))"
        case .daysAgoEnd(let n): "daysAgoEnd(\(n))"
        case .hoursAgo(let n): "hoursAgo(\(n))"
        case .hoursAgoStart(let n): "hoursAgoStart(\(n))"
        case .hoursAgoEnd(let n): "hoursAgoEnd(\(n))"
        case .minutesAgo(let n): "minutesAgo(\(n))"
        case .minutesAgoStart(let n): "minutesAgoStart(\(n))"
        case .minutesAgoEnd(let n): "minutesAgoEnd(\(n))"
        case .monthsAgo(let n): "monthsAgo(\(n))"
        case .monthsAgoStart(let n): "monthsAgoStart(\(n))"
        case .monthsAgoEnd(let n): "monthsAgoEnd(\(n))"
        case .quartersAgo(let n): "quartersAgo(\(n))"
        case .quartersAgoStart(let n): "quartersAgoStart(\(n))"
        case .quartersAgoEnd(let n): "quartersAgoEnd(\(n))"
        case .yearsAgo(let n): "yearsAgo(\(n))"
        case .yearsAgoStart(let n): "yearsAgoStart(\(n))"
        case .yearsAgoEnd(let n): "yearsAgoEnd(\(n))"
        case .beginningOfToday: "beginningOfToday()"
        case .endOfToday: "endOfToday()"
        case .beginningOfYesterday: "beginningOfYesterday()"
        case .endOfYesterday: "endOfYesterday()"
        case .beginningOfTomorrow: "beginningOfTomorrow()"
        case .endOfTomorrow: "endOfTomorrow()"
        case .beginningOf(let period, let offset): "beginningOf\(offset.rawValue)\(period.rawValue)()"
        case .endOf(let period, let offset): "endOf\(offset.rawValue)\(period.rawValue)()"
        case .dateGenerate(let date, let time): "dateGenerate('\(date)','\(time)')"
        case .now: "nowDateTime()"
        }
    }
}

/// A part of an encoded query that appends its text to the query's: printed alone, it is that text.
private protocol EncodedQueryPart {
    /// Appends the part's text.
    func write(to text: inout String)
}

extension EncodedQueryPart {
    /// The part's text alone.
    fileprivate var text: String {
        var text = ""
        write(to: &text)
        return text
    }
}
