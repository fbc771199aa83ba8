import Foundation

/// In-memory evaluation: the reference semantics of every operator.
///
/// This is the specification nowsim's SQL compiler follows, and the oracle its tests compare
/// against. The words used below:
///
/// * **value** — the record's stored text for the condition's field, as returned by the `record`
///   closure (which also resolves dot-walked names). **Empty** means `nil` or `""`; the two are
///   never distinguished (the Table API renders both as `""`).
/// * **operand** — the literal as written; a date helper (``EncodedQuery/DateHelper``) is resolved
///   at `now` in `timeZone` and written as `yyyy-MM-dd HH:mm:ss` UTC, or as the `yyyy-MM-dd` of the
///   session time zone when the field's kind is ``EncodedQuery/FieldKind/date``
///   (see ``EncodedQuery/Operand/comparisonText(now:timeZone:kind:)``).
/// * **equal** — byte-wise equality of the UTF-8 text: case-sensitive, no Unicode normalisation
///   (SQLite's `BINARY` collation). `=`, `!=`, `IN`, `NOT IN` and `SAMEAS` compare text whatever
///   the field kind (`priority=1.0` does not match `1`).
/// * **order** (`<`, `BETWEEN`, `ON`, `RELATIVE…`, `…_FIELD`) — for kind `.number` and for an
///   unknown kind (`nil`): numeric when both sides are decimal numbers (`-?[0-9]+(\.[0-9]+)?`,
///   compared as `Double`), else byte-wise lexicographic order of the UTF-8 text. For `.text`,
///   `.dateTime`, `.date` and `.boolean`: always byte-wise (date-times and dates in the Table API
///   formats sort chronologically that way). Schema-aware callers should pass kinds: the numeric
///   heuristic is for unknown schemas only (an all-digit `sys_id` would otherwise compare as a
///   number).
/// * **contains / starts / ends** — ASCII case-insensitive (`A`–`Z` equal `a`–`z`; every other
///   byte must match exactly), like SQLite's `LIKE`.
///
/// | operator | true when |
/// |---|---|
/// | `=` | value equal operand; `field=` (empty operand) is true exactly for empty values |
/// | `!=` | not `=`: so **empty values match** `field!=x`, and `field!=` means "not empty" |
/// | `<` `<=` `>` `>=` | value and operand non-empty and value orders so against operand |
/// | `BETWEEN lo@hi` | value non-empty and lo ≤ value ≤ hi (false when lo > hi) |
/// | `LIKE s` | value non-empty and contains s (`LIKE` with empty s: any non-empty value) |
/// | `NOT LIKE s` | not `LIKE`: **empty values match** |
/// | `STARTSWITH s` / `ENDSWITH s` | value non-empty and starts / ends with s |
/// | `IN a,b` | value equal one item (an empty value matches only an empty item: `stateIN,1`) |
/// | `NOT IN a,b` | not `IN`: **empty values match** unless the list has an empty item |
/// | `ISEMPTY`, `EMPTYSTRING` | value empty |
/// | `ISNOTEMPTY` | value non-empty |
/// | `ANYTHING` | always |
/// | `SAMEAS f` | both values non-empty and equal |
/// | `NSAMEAS f` | not `SAMEAS`: true when either is empty |
/// | `GT_FIELD f` `LT_FIELD f` `GT_OR_EQUALS_FIELD f` `LT_OR_EQUALS_FIELD f` | both non-empty and value >, <, ≥, ≤ f's value (ordered by this field's kind) |
/// | `ON label@start@end` | value non-empty and start ≤ value ≤ end (operands resolved; the label is ignored) |
/// | `NOTON label@start@end` | not `ON`: **empty values match** |
/// | `RELATIVEGT @u@d@n` / `RELATIVELT` | value non-empty and value > / < the instant of ``EncodedQuery/relativeInstant(unit:direction:count:now:timeZone:)`` |
/// | `INSTANCEOF t` | value equal t (an approximation: the class hierarchy is not known here) |
///
/// Every negated operator (`!=`, `NOT LIKE`, `NOT IN`, `NSAMEAS`, `NOTON`) is the exact complement
/// of its positive form, which is what makes empty values match them; ServiceNow documents this
/// for `!=` on booleans (ref §4.2) and it applies to all types here. A condition whose value shape
/// does not fit its operator (only possible in hand-built queries) is false.
///
/// Structure: a query matches when any group matches (`^NQ`); a group when all its terms match
/// (`^`); a term when any of its conditions matches (`^OR`). A query without groups matches every
/// record; ``orderBy`` and ``hasEndMarker`` do not affect matching.
extension EncodedQuery {
    /// What kind of values a field holds; decides ordering and how date helpers are written.
    public enum FieldKind: Sendable, Hashable, CaseIterable {
        /// Strings: always compared byte-wise, even when they look like numbers.
        case text
        /// Integers and decimals: compared numerically when both sides parse as numbers.
        case number
        /// `yyyy-MM-dd HH:mm:ss` UTC (glide_date_time); date helpers are written the same way.
        case dateTime
        /// `yyyy-MM-dd` (glide_date); date helpers are written as the session time zone's date.
        case date
        /// `true` / `false`.
        case boolean
    }

    /// Whether a record satisfies the query (semantics in the extension's documentation above).
    ///
    /// - Parameters:
    ///   - record: The stored value of a (possibly dot-walked) field; `nil` or `""` when empty.
    ///   - now: The current instant, for date helpers and `RELATIVE…`.
    ///   - timeZone: The session time zone of the date helpers (nowsim: UTC).
    ///   - fieldKind: The kind of a field, or `nil` when unknown (numeric heuristic, date-time
    ///     helpers).
    public func matches(
        _ record: (String) -> String?, now: Date, timeZone: TimeZone = .gmt,
        fieldKind: (String) -> FieldKind? = { _ in nil }
    ) -> Bool {
        if groups.isEmpty { return true }
        return groups.contains { group in
            group.terms.allSatisfy { term in
                term.conditions.contains { condition in
                    condition.matches(record, now: now, timeZone: timeZone, fieldKind: fieldKind)
                }
            }
        }
    }
}

extension EncodedQuery.Condition {
    /// Whether a record satisfies this one condition (semantics on the ``EncodedQuery`` evaluation
    /// extension).
    ///
    /// - Parameters:
    ///   - record: The stored value of a (possibly dot-walked) field; `nil` or `""` when empty.
    ///   - now: The current instant, for date helpers and `RELATIVE…`.
    ///   - timeZone: The session time zone of the date helpers (nowsim: UTC).
    ///   - fieldKind: The kind of a field, or `nil` when unknown.
    public func matches(
        _ record: (String) -> String?, now: Date, timeZone: TimeZone = .gmt,
        fieldKind: (String) -> EncodedQuery.FieldKind? = { _ in nil }
    ) -> Bool {
        let stored = record(field) ?? ""
        let kind = fieldKind(field)
        func text(_ operand: EncodedQuery.Operand) -> String {
            operand.comparisonText(now: now, timeZone: timeZone, kind: kind)
        }
        switch (op, value) {
        case (.equals, _), (.notEquals, _):
            guard let operand = value.scalarOperand else { return false }
            return Comparison.equal(stored, text(operand)) == (op == .equals)
        case (.lessThan, _), (.lessThanOrEquals, _), (.greaterThan, _), (.greaterThanOrEquals, _):
            guard let operand = value.scalarOperand else { return false }
            let bound = text(operand)
            guard !stored.isEmpty, !bound.isEmpty else { return false }
            let order = Comparison.order(stored, bound, kind: kind)
            switch op {
            case .lessThan: return order < 0
            case .lessThanOrEquals: return order <= 0
            case .greaterThan: return order > 0
            default: return order >= 0
            }
        case (.between, .range(let low, let high)):
            return Comparison.within(stored, text(low), text(high), kind: kind)
        case (.on, .dateRange(_, let start, let end)), (.notOn, .dateRange(_, let start, let end)):
            return Comparison.within(stored, text(start), text(end), kind: kind) == (op == .on)
        case (.like, .literal(let needle)), (.notLike, .literal(let needle)):
            return (!stored.isEmpty && Comparison.contains(stored, needle)) == (op == .like)
        case (.startsWith, .literal(let prefix)):
            return !stored.isEmpty && Comparison.hasPrefix(stored, prefix)
        case (.endsWith, .literal(let suffix)):
            return !stored.isEmpty && Comparison.hasSuffix(stored, suffix)
        case (.isIn, .list(let items)), (.notIn, .list(let items)):
            return items.contains { Comparison.equal(stored, $0) } == (op == .isIn)
        case (.isEmpty, _), (.emptyString, _):
            return stored.isEmpty
        case (.isNotEmpty, _):
            return !stored.isEmpty
        case (.anything, _):
            return true
        case (.sameAs, .field(let other)), (.notSameAs, .field(let other)):
            let otherValue = record(other) ?? ""
            let same = !stored.isEmpty && !otherValue.isEmpty && Comparison.equal(stored, otherValue)
            return same == (op == .sameAs)
        case (.greaterThanField, .field(let other)), (.lessThanField, .field(let other)),
            (.greaterThanOrEqualsField, .field(let other)), (.lessThanOrEqualsField, .field(let other)):
            let otherValue = record(other) ?? ""
            guard !stored.isEmpty, !otherValue.isEmpty else { return false }
            let order = Comparison.order(stored, otherValue, kind: kind)
            switch op {
            case .greaterThanField: return order > 0
            case .lessThanField: return order < 0
            case .greaterThanOrEqualsField: return order >= 0
            default: return order <= 0
            }
        case (.relativeGreaterThan, .relative(let unit, let direction, let count)),
            (.relativeLessThan, .relative(let unit, let direction, let count)):
            guard !stored.isEmpty else { return false }
            let instant = EncodedQuery.relativeInstant(
                unit: unit, direction: direction, count: count, now: now, timeZone: timeZone)
            let bound = EncodedQuery.DateHelper.format(instant, timeZone: timeZone, kind: kind)
            let order = Comparison.order(stored, bound, kind: kind)
            return op == .relativeGreaterThan ? order > 0 : order < 0
        case (.instanceOf, .literal(let table)):
            return Comparison.equal(stored, table)
        default:
            return false
        }
    }
}

extension EncodedQuery.Operand {
    /// The text the evaluator compares a value with: a literal as written; a date helper resolved
    /// at `now` in `timeZone` and written as `yyyy-MM-dd HH:mm:ss` UTC, or for `kind == .date` as
    /// the session time zone's `yyyy-MM-dd`.
    ///
    /// nowsim's SQL compiler binds exactly this text as the parameter of the comparison.
    public func comparisonText(now: Date, timeZone: TimeZone, kind: EncodedQuery.FieldKind?) -> String {
        switch self {
        case .literal(let literal): literal
        case .script(let helper): helper.comparisonText(now: now, timeZone: timeZone, kind: kind)
        }
    }
}

extension EncodedQuery.DateHelper {
    /// The resolved instant written as a stored value: `yyyy-MM-dd HH:mm:ss` UTC, or for
    /// `kind == .date` the `yyyy-MM-dd` of the session time zone.
    public func comparisonText(now: Date, timeZone: TimeZone, kind: EncodedQuery.FieldKind?) -> String {
        Self.format(resolve(now: now, timeZone: timeZone), timeZone: timeZone, kind: kind)
    }

    fileprivate static func format(_ instant: Date, timeZone: TimeZone, kind: EncodedQuery.FieldKind?) -> String {
        kind == .date
            ? TableAPIDateFormat.dateString(from: instant, timeZone: timeZone)
            : TableAPIDateFormat.string(from: instant)
    }
}

extension EncodedQuery.Value {
    /// The single operand of `=`-style operators: a literal or a date helper.
    fileprivate var scalarOperand: EncodedQuery.Operand? {
        switch self {
        case .literal(let literal): .literal(literal)
        case .script(let helper): .script(helper)
        default: nil
        }
    }
}

/// The primitive comparisons of the evaluation semantics, on UTF-8 bytes.
private enum Comparison {
    static func equal(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// lo ≤ value ≤ hi, all non-empty.
    static func within(_ value: String, _ low: String, _ high: String, kind: EncodedQuery.FieldKind?) -> Bool {
        guard !value.isEmpty, !low.isEmpty, !high.isEmpty else { return false }
        return order(value, low, kind: kind) >= 0 && order(value, high, kind: kind) <= 0
    }

    /// -1, 0 or 1.
    static func order(_ lhs: String, _ rhs: String, kind: EncodedQuery.FieldKind?) -> Int {
        if kind == nil || kind == .number, let left = decimal(lhs), let right = decimal(rhs) {
            return left < right ? -1 : (left > right ? 1 : 0)
        }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }

    /// The value of `-?[0-9]+(\.[0-9]+)?`, else `nil`.
    static func decimal(_ text: String) -> Double? {
        var index = text.utf8.startIndex
        let end = text.utf8.endIndex
        if index < end && text.utf8[index] == UInt8(ascii: "-") { index = text.utf8.index(after: index) }
        var integerDigits = 0
        while index < end && EncodedQueryByte.isDigit(text.utf8[index]) {
            integerDigits += 1
            index = text.utf8.index(after: index)
        }
        guard integerDigits > 0 else { return nil }
        if index < end {
            guard text.utf8[index] == UInt8(ascii: ".") else { return nil }
            index = text.utf8.index(after: index)
            var fractionDigits = 0
            while index < end && EncodedQueryByte.isDigit(text.utf8[index]) {
                fractionDigits += 1
                index = text.utf8.index(after: index)
            }
            guard fractionDigits > 0, index == end else { return nil }
        }
        return Double(text)
    }

    static func contains(_ haystack: String, _ needle: String) -> Bool {
        let haystack = Array(haystack.utf8)
        let needle = Array(needle.utf8)
        guard needle.count <= haystack.count else { return false }
        if needle.isEmpty { return true }
        for start in 0...(haystack.count - needle.count) where matchesFolded(haystack, at: start, needle) {
            return true
        }
        return false
    }

    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        let text = Array(text.utf8)
        let prefix = Array(prefix.utf8)
        return prefix.count <= text.count && matchesFolded(text, at: 0, prefix)
    }

    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        let text = Array(text.utf8)
        let suffix = Array(suffix.utf8)
        return suffix.count <= text.count && matchesFolded(text, at: text.count - suffix.count, suffix)
    }

    private static func matchesFolded(_ text: [UInt8], at start: Int, _ pattern: [UInt8]) -> Bool {
        for index in 0..<pattern.count where fold(text[start + index]) != fold(pattern[index]) { return false }
        return true
    }

    private static func fold(_ byte: UInt8) -> UInt8 { EncodedQueryByte.isUpper(byte) ? byte + 32 : byte }
}
