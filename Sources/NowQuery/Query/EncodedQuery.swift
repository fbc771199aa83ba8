import Foundation

/// A parsed ServiceNow encoded query (`active=true^priority<=2^ORDERBYnumber`).
///
/// The structure mirrors the platform's precedence: conditions joined by `^OR` form a
/// ``EncodedQuery/Term`` (binds tightest), terms joined by `^` form a ``EncodedQuery/Group``
/// (AND), and groups joined by `^NQ` are OR-ed. `ORDERBY`/`ORDERBYDESC` clauses are kept apart in
/// ``orderBy`` in the order given. Printing (``description``) gives the canonical text, and
/// parsing canonical text gives back an equal value.
public struct EncodedQuery: Sendable, Hashable {
    /// AND-groups OR-ed together by `^NQ`; empty for a query without conditions.
    public var groups: [Group]
    /// Sort clauses, first is most significant.
    public var orderBy: [Sort]
    /// Whether the text carried the UI's optional `^EQ` end marker (kept for round-tripping).
    public var hasEndMarker: Bool

    /// Creates a query from its parts.
    public init(groups: [Group] = [], orderBy: [Sort] = [], hasEndMarker: Bool = false) {
        self.groups = groups
        self.orderBy = orderBy
        self.hasEndMarker = hasEndMarker
    }

    /// Conditions joined by `^` (AND).
    public struct Group: Sendable, Hashable {
        /// The AND-ed terms.
        public var terms: [Term]
        /// Creates a group.
        public init(terms: [Term]) { self.terms = terms }
    }

    /// Conditions joined by `^OR`; a term with one condition is a plain condition.
    public struct Term: Sendable, Hashable {
        /// The OR-ed conditions (at least one).
        public var conditions: [Condition]
        /// Creates a term.
        public init(conditions: [Condition]) { self.conditions = conditions }
    }

    /// One `<field><operator><value>` condition.
    public struct Condition: Sendable, Hashable {
        /// The field name, possibly dot-walked (`caller_id.name`).
        public var field: String
        /// The operator.
        public var op: Operator
        /// The operand; its shape depends on ``op``.
        public var value: Value
        /// Creates a condition.
        public init(field: String, op: Operator, value: Value) {
            self.field = field
            self.op = op
            self.value = value
        }
    }

    /// One `ORDERBY` / `ORDERBYDESC` clause.
    public struct Sort: Sendable, Hashable {
        /// The field, possibly dot-walked.
        public var field: String
        /// `true` for `ORDERBYDESC`.
        public var descending: Bool
        /// Creates a sort clause.
        public init(field: String, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    /// The operators of the encoded-query language; the raw value is the token as written.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equals = "="
        case notEquals = "!="
        case lessThan = "<"
        case lessThanOrEquals = "<="
        case greaterThan = ">"
        case greaterThanOrEquals = ">="
        case like = "LIKE"
        case notLike = "NOT LIKE"
        case startsWith = "STARTSWITH"
        case endsWith = "ENDSWITH"
        case isIn = "IN"
        case notIn = "NOT IN"
        case isEmpty = "ISEMPTY"
        case isNotEmpty = "ISNOTEMPTY"
        case anything = "ANYTHING"
        case emptyString = "EMPTYSTRING"
        case between = "BETWEEN"
        case sameAs = "SAMEAS"
        case notSameAs = "NSAMEAS"
        case greaterThanField = "GT_FIELD"
        case lessThanField = "LT_FIELD"
        case greaterThanOrEqualsField = "GT_OR_EQUALS_FIELD"
        case lessThanOrEqualsField = "LT_OR_EQUALS_FIELD"
        case on = "ON"
        case notOn = "NOTON"
        case relativeGreaterThan = "RELATIVEGT"
        case relativeLessThan = "RELATIVELT"
        case instanceOf = "INSTANCEOF"
    }

    /// The operand of a condition.
    public enum Value: Sendable, Hashable {
        /// No operand (`ISEMPTY`, `ISNOTEMPTY`, `ANYTHING`, `EMPTYSTRING`).
        case none
        /// A literal (`=`, `<`, `LIKE`, …); may be empty (`field=` tests for empty).
        case literal(String)
        /// A comma-separated list (`IN`, `NOT IN`).
        case list([String])
        /// Inclusive bounds separated by `@` (`BETWEEN`); each may be a date helper.
        case range(Operand, Operand)
        /// Another field (`SAMEAS`, `NSAMEAS`, `GT_FIELD`, …).
        case field(String)
        /// A named date range `label@start@end` (`ON`, `NOTON`).
        case dateRange(label: String, start: Operand, end: Operand)
        /// A relative instant `@unit@ago|ahead@count` (`RELATIVEGT`, `RELATIVELT`).
        case relative(unit: RelativeUnit, direction: RelativeDirection, count: Int)
        /// A date helper used as a comparison value (`opened_at>javascript:gs.daysAgo(3)`).
        case script(DateHelper)
    }

    /// One bound of a `BETWEEN` or `ON` range.
    public enum Operand: Sendable, Hashable {
        /// A literal value.
        case literal(String)
        /// A `javascript:gs.*` date helper.
        case script(DateHelper)
    }

    /// The `javascript:gs.*` date helpers nowsim evaluates and nowetl accepts.
    public enum DateHelper: Sendable, Hashable {
        /// `gs.daysAgo(n)`: now minus `n` days.
        case daysAgo(Int)
        /// `gs.daysAgoStart(n)`: midnight starting the day `n` days ago.
        case daysAgoStart(Int)
        /// `gs.daysAgoEnd(n)`: last second of the day `n` days ago.
        case daysAgoEnd(Int)
        /// `gs.hoursAgo(n)`: now minus `n` hours.
        case hoursAgo(Int)
        /// `gs.hoursAgoStart(n)`: first second of the hour `n` hours ago.
        case hoursAgoStart(Int)
        /// `gs.hoursAgoEnd(n)`: last second of the hour `n` hours ago.
        case hoursAgoEnd(Int)
        /// `gs.minutesAgo(n)`: now minus `n` minutes.
        case minutesAgo(Int)
        /// `gs.minutesAgoStart(n)`: first second of the minute `n` minutes ago.
        case minutesAgoStart(Int)
        /// `gs.minutesAgoEnd(n)`: last second of the minute `n` minutes ago.
        case minutesAgoEnd(Int)
        /// `gs.monthsAgo(n)`: now minus `n` months.
        case monthsAgo(Int)
        /// `gs.monthsAgoStart(n)`: first second of the month `n` months ago.
        case monthsAgoStart(Int)
        /// `gs.monthsAgoEnd(n)`: last second of the month `n` months ago.
        case monthsAgoEnd(Int)
        /// `gs.quartersAgo(n)`: now minus `n` quarters (3 months).
        case quartersAgo(Int)
        /// `gs.quartersAgoStart(n)`: first second of the quarter `n` quarters ago.
        case quartersAgoStart(Int)
        /// `gs.quartersAgoEnd(n)`: last second of the quarter `n` quarters ago.
        case quartersAgoEnd(Int)
        /// `gs.yearsAgo(n)`: now minus `n` years.
        case yearsAgo(Int)
        /// `gs.yearsAgoStart(n)`: first second of the year `n` years ago.
        case yearsAgoStart(Int)
        /// `gs.yearsAgoEnd(n)`: last second of the year `n` years ago.
        case yearsAgoEnd(Int)
        /// `gs.beginningOfToday()`, `gs.endOfToday()`, `gs.beginningOfYesterday()`, `gs.endOfYesterday()`.
        case beginningOfToday, endOfToday, beginningOfYesterday, endOfYesterday
        /// `gs.beginningOfTomorrow()`, `gs.endOfTomorrow()`.
        case beginningOfTomorrow, endOfTomorrow
        /// `gs.beginningOfThisWeek()` … `gs.beginningOfNextYear()`: first second of the period.
        case beginningOf(Period, PeriodOffset)
        /// `gs.endOfThisWeek()` … `gs.endOfNextYear()`: last second of the period.
        case endOf(Period, PeriodOffset)
        /// `gs.dateGenerate('yyyy-MM-dd','HH:mm:ss')`; the time may also be `start` or `end`.
        case dateGenerate(date: String, time: String)
        /// `gs.now()` / `gs.nowDateTime()`.
        case now
    }

    /// Calendar periods of the `beginningOf…`/`endOf…` helpers.
    public enum Period: String, Sendable, Hashable, CaseIterable {
        case week = "Week"
        case month = "Month"
        case quarter = "Quarter"
        case year = "Year"
    }

    /// Which period the `beginningOf…`/`endOf…` helper names.
    public enum PeriodOffset: String, Sendable, Hashable, CaseIterable {
        case this = "This"
        case last = "Last"
        case next = "Next"
    }

    /// Units of `RELATIVEGT`/`RELATIVELT`.
    public enum RelativeUnit: String, Sendable, Hashable, CaseIterable {
        case second, minute, hour, day, week, month, quarter, year
    }

    /// Direction of `RELATIVEGT`/`RELATIVELT`.
    public enum RelativeDirection: String, Sendable, Hashable, CaseIterable {
        case ago, ahead
    }
}
