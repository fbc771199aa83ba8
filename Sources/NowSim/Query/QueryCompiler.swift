import Foundation
import NowQuery
import NowSQLite

/// The SQL form of an encoded query against one table: a `WHERE` condition with its parameters,
/// an `ORDER BY` list and the joins both need.
///
/// Values are always bound as parameters, never pasted into the SQL text. Conditions on unknown
/// fields are dropped, as an instance does, unless ``QueryCompiler/Options/invalidQueryReturnsNoRows``
/// is set (the instance property `glide.invalid_query.returns_no_rows`), in which case the whole
/// query matches nothing.
struct CompiledQuery {
    /// The SQL condition (without `WHERE`); `1` when everything matches.
    var whereSQL: String
    /// Parameters for the `?` placeholders of ``whereSQL``, in order.
    var parameters: [SQLiteValue]
    /// The `ORDER BY` list (without the keywords); empty when the query has no ORDERBY.
    var orderSQL: String
    /// Field names of conditions that were dropped because the field is unknown.
    var droppedFields: [String]
}

/// Compiles ``EncodedQuery`` values to parameterised SQLite for one table (see ``CompiledQuery``).
///
/// Semantics are those of NowQuery's encoded-query evaluator (`EncodedQuery+Evaluation.swift`),
/// which the tests use as a brute-force reference; the one deliberate difference is `INSTANCEOF`,
/// which here knows the class hierarchy.
struct QueryCompiler {
    /// Switches that change how queries are read.
    struct Options {
        /// `glide.invalid_query.returns_no_rows`: a condition on an unknown field empties the result.
        var invalidQueryReturnsNoRows = false
        /// The instant `javascript:gs.*` helpers and relative operators are computed from.
        var now = Date()
    }

    let catalog: Catalog
    let options: Options

    /// Compiles `query` against the table behind `joins`, adding the joins dot-walked fields need.
    func compile(_ query: EncodedQuery, joins: JoinPlan) -> CompiledQuery {
        var parameters: [SQLiteValue] = []
        var dropped: [String] = []
        var invalid = false
        var groupSQL: [String] = []
        for group in query.groups {
            var termSQL: [String] = []
            for term in group.terms {
                var alternatives: [String] = []
                for condition in term.conditions {
                    if let sql = compile(condition, joins: joins, parameters: &parameters) {
                        alternatives.append(sql)
                    } else {
                        dropped.append(condition.field)
                        invalid = true
                    }
                }
                if alternatives.isEmpty { continue }
                termSQL.append(
                    alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " OR ") + ")")
            }
            groupSQL.append(termSQL.isEmpty ? "1" : termSQL.joined(separator: " AND "))
        }
        var whereSQL: String
        switch groupSQL.count {
        case 0: whereSQL = "1"
        case 1: whereSQL = groupSQL[0]
        default: whereSQL = groupSQL.map { "(\($0))" }.joined(separator: " OR ")
        }
        var orderParts: [String] = []
        for sort in query.orderBy {
            guard let field = joins.resolve(sort.field) else {
                dropped.append(sort.field)
                continue
            }
            let expression = field.column.comparison == .number ? "CAST(\(field.expression) AS REAL)" : field.expression
            orderParts.append(expression + (sort.descending ? " DESC" : " ASC"))
        }
        if invalid && options.invalidQueryReturnsNoRows {
            whereSQL = "0"
            parameters = []
        }
        return CompiledQuery(
            whereSQL: whereSQL, parameters: parameters, orderSQL: orderParts.joined(separator: ", "),
            droppedFields: dropped)
    }

    /// SQL for one condition, or `nil` when its field (or a compared field) is unknown.
    ///
    /// Each case mirrors the table in `EncodedQuery+Evaluation.swift`.
    private func compile(
        _ condition: EncodedQuery.Condition, joins: JoinPlan, parameters: inout [SQLiteValue]
    ) -> String? {
        if condition.field == "123TEXTQUERY321" {
            return textSearch(condition.value, joins: joins, parameters: &parameters)
        }
        guard let field = joins.resolve(condition.field) else { return nil }
        let c = field.expression
        let kind = Self.fieldKind(field.column)

        func bind(_ value: String) -> String {
            parameters.append(.text(value))
            return "?"
        }
        /// `value op operand` under the evaluator's ordering: numeric for number columns when the
        /// operand is a decimal number, byte-wise otherwise; never true for empty values.
        func order(_ op: String, _ operand: String) -> String {
            if operand.isEmpty { return "0" }
            if kind == .number && Self.isDecimal(operand) {
                return "(\(Self.filled(c)) AND CAST(\(c) AS REAL) \(op) CAST(\(bind(operand)) AS REAL))"
            }
            return "(\(Self.filled(c)) AND \(c) \(op) \(bind(operand)))"
        }
        func within(_ low: EncodedQuery.Operand, _ high: EncodedQuery.Operand) -> String {
            "(\(order(">=", text(low, kind: kind))) AND \(order("<=", text(high, kind: kind))))"
        }
        func like(_ value: String, prefix: Bool, suffix: Bool) -> String {
            var pattern = prefix ? "%" : ""
            for ch in value {
                if ch == "%" || ch == "_" || ch == "\\" { pattern.append("\\") }
                pattern.append(ch)
            }
            if suffix { pattern.append("%") }
            return "(\(Self.filled(c)) AND \(c) LIKE \(bind(pattern)) ESCAPE '\\')"
        }
        func isIn(_ values: [String]) -> String {
            let filledValues = values.filter { !$0.isEmpty }
            var alternatives: [String] = []
            if !filledValues.isEmpty {
                alternatives.append("\(c) IN (\(filledValues.map { bind($0) }.joined(separator: ", ")))")
            }
            if filledValues.count < values.count { alternatives.append(Self.empty(c)) }
            return alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")"
        }
        func not(_ sql: String) -> String { "(NOT COALESCE(\(sql), 0))" }

        switch (condition.op, condition.value) {
        case (.isEmpty, _), (.emptyString, _): return Self.empty(c)
        case (.isNotEmpty, _): return Self.filled(c)
        case (.anything, _): return "1"
        case (.equals, .literal(let value)):
            return value.isEmpty ? Self.empty(c) : "(\(c) = \(bind(value)))"
        case (.notEquals, .literal(let value)):
            return value.isEmpty ? Self.filled(c) : "(\(Self.empty(c)) OR \(c) <> \(bind(value)))"
        case (.equals, .script(let helper)):
            return "(\(c) = \(bind(text(helper, kind: kind))))"
        case (.notEquals, .script(let helper)):
            return "(\(Self.empty(c)) OR \(c) <> \(bind(text(helper, kind: kind))))"
        case (.lessThan, .literal(let value)): return order("<", value)
        case (.lessThanOrEquals, .literal(let value)): return order("<=", value)
        case (.greaterThan, .literal(let value)): return order(">", value)
        case (.greaterThanOrEquals, .literal(let value)): return order(">=", value)
        case (.lessThan, .script(let helper)): return order("<", text(helper, kind: kind))
        case (.lessThanOrEquals, .script(let helper)): return order("<=", text(helper, kind: kind))
        case (.greaterThan, .script(let helper)): return order(">", text(helper, kind: kind))
        case (.greaterThanOrEquals, .script(let helper)): return order(">=", text(helper, kind: kind))
        case (.like, .literal(let value)): return like(value, prefix: true, suffix: true)
        case (.notLike, .literal(let value)): return not(like(value, prefix: true, suffix: true))
        case (.startsWith, .literal(let value)): return like(value, prefix: false, suffix: true)
        case (.endsWith, .literal(let value)): return like(value, prefix: true, suffix: false)
        case (.isIn, .list(let values)): return isIn(values)
        case (.notIn, .list(let values)): return not(isIn(values))
        case (.between, .range(let low, let high)): return within(low, high)
        case (.on, .dateRange(_, let start, let end)): return within(start, end)
        case (.notOn, .dateRange(_, let start, let end)): return not(within(start, end))
        case (.sameAs, .field(let other)), (.notSameAs, .field(let other)):
            guard let otherField = joins.resolve(other) else { return nil }
            let o = otherField.expression
            let same = "(\(Self.filled(c)) AND \(Self.filled(o)) AND \(c) = \(o))"
            return condition.op == .sameAs ? same : not(same)
        case (.greaterThanField, .field(let other)), (.lessThanField, .field(let other)),
            (.greaterThanOrEqualsField, .field(let other)), (.lessThanOrEqualsField, .field(let other)):
            guard let otherField = joins.resolve(other) else { return nil }
            let op: String
            switch condition.op {
            case .greaterThanField: op = ">"
            case .lessThanField: op = "<"
            case .greaterThanOrEqualsField: op = ">="
            default: op = "<="
            }
            let o = otherField.expression
            let comparison = kind == .number ? "CAST(\(c) AS REAL) \(op) CAST(\(o) AS REAL)" : "\(c) \(op) \(o)"
            return "(\(Self.filled(c)) AND \(Self.filled(o)) AND \(comparison))"
        case (.relativeGreaterThan, .relative(let unit, let direction, let count)):
            return order(">", relative(unit: unit, direction: direction, count: count))
        case (.relativeLessThan, .relative(let unit, let direction, let count)):
            return order("<", relative(unit: unit, direction: direction, count: count))
        case (.instanceOf, .literal(let value)):
            // Unlike the evaluator, nowsim knows the class hierarchy: a table and all its children.
            guard let table = catalog.table(value) else { return "0" }
            return "(\(c) IN (\(table.classNames.map { bind($0) }.joined(separator: ", "))))"
        default:
            // The parser only builds the operator/value pairs above; anything else cannot match.
            return "0"
        }
    }

    static func empty(_ c: String) -> String { "(\(c) IS NULL OR \(c) = '')" }
    static func filled(_ c: String) -> String { "(\(c) IS NOT NULL AND \(c) <> '')" }

    /// The evaluator's kind of a column: decides ordering and how date helpers are written.
    static func fieldKind(_ column: ColumnDefinition) -> EncodedQuery.FieldKind {
        switch column.internalType {
        case "glide_date": return .date
        default: break
        }
        switch column.comparison {
        case .number: return .number
        case .dateTime: return .dateTime
        case .boolean: return .boolean
        case .text: return .text
        }
    }

    /// `-?[0-9]+(\.[0-9]+)?`, the evaluator's test for a number.
    static func isDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let integer = parts.first, !integer.isEmpty, integer.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return false
        }
        if parts.count == 2 { return !parts[1].isEmpty && parts[1].allSatisfy { (0x30...0x39).contains($0) } }
        return true
    }

    /// `123TEXTQUERY321=terms`: every term must occur in one of the table's text columns.
    private func textSearch(_ value: EncodedQuery.Value, joins: JoinPlan, parameters: inout [SQLiteValue]) -> String? {
        guard case .literal(let text) = value else { return nil }
        let columns = joins.base.columns.filter { ["string", "html", "email", "url"].contains($0.internalType) }
        let words = text.split(whereSeparator: { $0 == " " }).map(String.init)
        if words.isEmpty || columns.isEmpty { return "1" }
        var clauses: [String] = []
        for word in words {
            var any: [String] = []
            for column in columns {
                parameters.append(.text("%" + word + "%"))
                any.append("t.\(SQLIdentifier.quote(column.element)) LIKE ?")
            }
            clauses.append("(" + any.joined(separator: " OR ") + ")")
        }
        return "(" + clauses.joined(separator: " AND ") + ")"
    }

    private var timeZone: TimeZone { TimeZone(identifier: "UTC")! }

    private func text(_ operand: EncodedQuery.Operand, kind: EncodedQuery.FieldKind) -> String {
        operand.comparisonText(now: options.now, timeZone: timeZone, kind: kind)
    }

    private func text(_ helper: EncodedQuery.DateHelper, kind: EncodedQuery.FieldKind) -> String {
        helper.comparisonText(now: options.now, timeZone: timeZone, kind: kind)
    }

    private func relative(
        unit: EncodedQuery.RelativeUnit, direction: EncodedQuery.RelativeDirection, count: Int
    ) -> String {
        TableAPIDateFormat.string(
            from: EncodedQuery.relativeInstant(
                unit: unit, direction: direction, count: count, now: options.now, timeZone: timeZone))
    }
}
