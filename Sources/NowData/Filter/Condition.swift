import Foundation

/// One typed condition of a ``Filter``, by field kind.
///
/// ```swift
/// Condition.boolean(field: "active", .is(true))
/// Condition.string(field: "short_description", .contains("disk"))
/// Condition.dateTime(field: "sys_updated_on", .atOrAfter(0, .daysAgoStart))
/// ```
///
/// Change-detection operators (`CHANGESFROM`, `CHANGESTO`, `VALCHANGES`) are not offered: they only mean
/// something in business-rule conditions, never when querying stored rows.
public enum Condition: Sendable, Hashable, QueryProviding {
    /// A true/false field.
    case boolean(field: FieldName, BooleanOperator)
    /// A date-time field.
    case dateTime(field: FieldName, DateTimeOperator)
    /// An e-mail field (string operators).
    case email(field: FieldName, StringOperator)
    /// A choice field with integer values.
    case integerChoice(field: FieldName, ChoiceOperator<Int>)
    /// A numeric field.
    case numeric(field: FieldName, NumericOperator)
    /// A reference field (values are sys_ids).
    case reference(field: FieldName, ReferenceOperator)
    /// A string field.
    case string(field: FieldName, StringOperator)
    /// A choice field with string values.
    case stringChoice(field: FieldName, ChoiceOperator<String>)

    /// The encoded query text of the condition.
    public var query: String { encodedCondition.description }

    /// The condition as an ``EncodedQuery/Condition``.
    public var encodedCondition: EncodedQuery.Condition {
        typealias C = EncodedQuery.Condition
        switch self {
        case .boolean(let field, let op): return op.condition(field)
        case .dateTime(let field, let op): return op.condition(field)
        case .email(let field, let op), .string(let field, let op): return op.condition(field)
        case .integerChoice(let field, let op): return op.condition(field)
        case .numeric(let field, let op): return op.condition(field)
        case .reference(let field, let op): return op.condition(field)
        case .stringChoice(let field, let op): return op.condition(field)
        }
    }
}

/// Operators on true/false fields.
public enum BooleanOperator: Sendable, Hashable {
    /// Equals the value.
    case `is`(Bool)
    /// Differs from the value (also matches empty).
    case isNot(Bool)
    /// Has no value.
    case isEmpty
    /// Has a value.
    case isNotEmpty

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        switch self {
        case .is(let value): return .init(field: field, op: .equals, value: .literal(value ? "true" : "false"))
        case .isNot(let value): return .init(field: field, op: .notEquals, value: .literal(value ? "true" : "false"))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        }
    }
}

/// Operators on string and e-mail fields.
public enum StringOperator: Sendable, Hashable {
    /// Equals.
    case `is`(String)
    /// Does not equal.
    case isNot(String)
    /// Contains (`LIKE`).
    case contains(String)
    /// Does not contain (`NOT LIKE`).
    case doesNotContain(String)
    /// Starts with.
    case startsWith(String)
    /// Ends with.
    case endsWith(String)
    /// Is one of (`IN`).
    case isOneOf([String])
    /// Is not one of (`NOT IN`).
    case isNotOneOf([String])
    /// Lexically less than.
    case lessThan(String)
    /// Lexically greater than.
    case greaterThan(String)
    /// Inclusive lexical range.
    case between(String, String)
    /// Has no value.
    case isEmpty
    /// Has a value.
    case isNotEmpty
    /// Is the empty string.
    case isEmptyString
    /// Matches anything, empty included.
    case isAnything
    /// Equals another field.
    case isSameAs(FieldName)
    /// Differs from another field.
    case isDifferentFrom(FieldName)

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        switch self {
        case .is(let value): return .init(field: field, op: .equals, value: .literal(value))
        case .isNot(let value): return .init(field: field, op: .notEquals, value: .literal(value))
        case .contains(let value): return .init(field: field, op: .like, value: .literal(value))
        case .doesNotContain(let value): return .init(field: field, op: .notLike, value: .literal(value))
        case .startsWith(let value): return .init(field: field, op: .startsWith, value: .literal(value))
        case .endsWith(let value): return .init(field: field, op: .endsWith, value: .literal(value))
        case .isOneOf(let values): return .init(field: field, op: .isIn, value: .list(values))
        case .isNotOneOf(let values): return .init(field: field, op: .notIn, value: .list(values))
        case .lessThan(let value): return .init(field: field, op: .lessThan, value: .literal(value))
        case .greaterThan(let value): return .init(field: field, op: .greaterThan, value: .literal(value))
        case .between(let low, let high):
            return .init(field: field, op: .between, value: .range(.literal(low), .literal(high)))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        case .isEmptyString: return .init(field: field, op: .emptyString, value: .none)
        case .isAnything: return .init(field: field, op: .anything, value: .none)
        case .isSameAs(let other): return .init(field: field, op: .sameAs, value: .field(other))
        case .isDifferentFrom(let other): return .init(field: field, op: .notSameAs, value: .field(other))
        }
    }
}

/// Operators on choice fields (values are the stored choice values, not labels).
public enum ChoiceOperator<Value: Sendable & Hashable & LosslessStringConvertible>: Sendable, Hashable {
    /// Equals.
    case `is`(Value)
    /// Does not equal.
    case isNot(Value)
    /// Is one of.
    case isOneOf([Value])
    /// Is not one of.
    case isNotOneOf([Value])
    /// Less than (by stored value).
    case lessThan(Value)
    /// Greater than (by stored value).
    case greaterThan(Value)
    /// Has no value.
    case isEmpty
    /// Has a value.
    case isNotEmpty

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        switch self {
        case .is(let value): return .init(field: field, op: .equals, value: .literal(value.description))
        case .isNot(let value): return .init(field: field, op: .notEquals, value: .literal(value.description))
        case .isOneOf(let values): return .init(field: field, op: .isIn, value: .list(values.map(\.description)))
        case .isNotOneOf(let values):
            return .init(field: field, op: .notIn, value: .list(values.map(\.description)))
        case .lessThan(let value): return .init(field: field, op: .lessThan, value: .literal(value.description))
        case .greaterThan(let value):
            return .init(field: field, op: .greaterThan, value: .literal(value.description))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        }
    }
}

/// Operators on numeric fields.
public enum NumericOperator: Sendable, Hashable {
    /// Equals.
    case `is`(Double)
    /// Does not equal.
    case isNot(Double)
    /// Less than.
    case lessThan(Double)
    /// Less than or equal.
    case lessThanOrIs(Double)
    /// Greater than.
    case greaterThan(Double)
    /// Greater than or equal.
    case greaterThanOrIs(Double)
    /// Inclusive range.
    case between(Double, Double)
    /// Is one of.
    case isOneOf([Double])
    /// Has no value.
    case isEmpty
    /// Has a value.
    case isNotEmpty
    /// Greater than another field (`GT_FIELD`).
    case greaterThanField(FieldName)
    /// Less than another field (`LT_FIELD`).
    case lessThanField(FieldName)

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        func text(_ number: Double) -> String {
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        }
        switch self {
        case .is(let n): return .init(field: field, op: .equals, value: .literal(text(n)))
        case .isNot(let n): return .init(field: field, op: .notEquals, value: .literal(text(n)))
        case .lessThan(let n): return .init(field: field, op: .lessThan, value: .literal(text(n)))
        case .lessThanOrIs(let n): return .init(field: field, op: .lessThanOrEquals, value: .literal(text(n)))
        case .greaterThan(let n): return .init(field: field, op: .greaterThan, value: .literal(text(n)))
        case .greaterThanOrIs(let n): return .init(field: field, op: .greaterThanOrEquals, value: .literal(text(n)))
        case .between(let low, let high):
            return .init(field: field, op: .between, value: .range(.literal(text(low)), .literal(text(high))))
        case .isOneOf(let values): return .init(field: field, op: .isIn, value: .list(values.map(text)))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        case .greaterThanField(let other): return .init(field: field, op: .greaterThanField, value: .field(other))
        case .lessThanField(let other): return .init(field: field, op: .lessThanField, value: .field(other))
        }
    }
}

/// Operators on reference fields (values are sys_ids; dot-walk the field name to filter on the
/// referenced record's columns, e.g. `caller_id.name`).
public enum ReferenceOperator: Sendable, Hashable {
    /// References the record.
    case `is`(SysID)
    /// Does not reference the record.
    case isNot(SysID)
    /// References one of the records.
    case isOneOf([SysID])
    /// References none of the records.
    case isNotOneOf([SysID])
    /// Is empty.
    case isEmpty
    /// Is not empty.
    case isNotEmpty
    /// Matches anything, empty included.
    case isAnything
    /// References the same record as another field.
    case isSameAs(FieldName)

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        switch self {
        case .is(let id): return .init(field: field, op: .equals, value: .literal(id))
        case .isNot(let id): return .init(field: field, op: .notEquals, value: .literal(id))
        case .isOneOf(let ids): return .init(field: field, op: .isIn, value: .list(ids))
        case .isNotOneOf(let ids): return .init(field: field, op: .notIn, value: .list(ids))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        case .isAnything: return .init(field: field, op: .anything, value: .none)
        case .isSameAs(let other): return .init(field: field, op: .sameAs, value: .field(other))
        }
    }
}

/// A point in time relative to now, as the platform's `gs.*` date helpers express it.
public enum DateAnchor: Sendable, Hashable {
    /// `gs.daysAgo(n)`, `gs.daysAgoStart(n)`, `gs.daysAgoEnd(n)`.
    case daysAgo, daysAgoStart, daysAgoEnd
    /// `gs.hoursAgo(n)`, `gs.hoursAgoStart(n)`, `gs.hoursAgoEnd(n)`.
    case hoursAgo, hoursAgoStart, hoursAgoEnd
    /// `gs.minutesAgo(n)`, `gs.minutesAgoStart(n)`, `gs.minutesAgoEnd(n)`.
    case minutesAgo, minutesAgoStart, minutesAgoEnd
    /// `gs.monthsAgo(n)`, `gs.monthsAgoStart(n)`, `gs.monthsAgoEnd(n)`.
    case monthsAgo, monthsAgoStart, monthsAgoEnd

    func helper(_ count: Int) -> EncodedQuery.DateHelper {
        switch self {
        case .daysAgo: return .daysAgo(count)
        case .daysAgoStart: return .daysAgoStart(count)
        case .daysAgoEnd: return .daysAgoEnd(count)
        case .hoursAgo: return .hoursAgo(count)
        case .hoursAgoStart: return .hoursAgoStart(count)
        case .hoursAgoEnd: return .hoursAgoEnd(count)
        case .minutesAgo: return .minutesAgo(count)
        case .minutesAgoStart: return .minutesAgoStart(count)
        case .minutesAgoEnd: return .minutesAgoEnd(count)
        case .monthsAgo: return .monthsAgo(count)
        case .monthsAgoStart: return .monthsAgoStart(count)
        case .monthsAgoEnd: return .monthsAgoEnd(count)
        }
    }
}

/// Operators on date-time fields.
///
/// Relative forms take a count and a ``DateAnchor`` (`.atOrAfter(0, .daysAgoStart)` is "since midnight
/// today" in the integration user's time zone); absolute forms take a `Date`, written in the Table API's
/// UTC value format.
public enum DateTimeOperator: Sendable, Hashable {
    /// Before the anchor.
    case before(Int, DateAnchor)
    /// At or before the anchor.
    case atOrBefore(Int, DateAnchor)
    /// After the anchor.
    case after(Int, DateAnchor)
    /// At or after the anchor.
    case atOrAfter(Int, DateAnchor)
    /// Inclusive range between two anchors.
    case between(Int, DateAnchor, Int, DateAnchor)
    /// Before the date.
    case beforeDate(Date)
    /// At or before the date.
    case atOrBeforeDate(Date)
    /// After the date.
    case afterDate(Date)
    /// At or after the date.
    case atOrAfterDate(Date)
    /// Inclusive range between two dates.
    case betweenDates(Date, Date)
    /// Within the last `count` units (`RELATIVEGT@unit@ago@count`).
    case withinLast(Int, EncodedQuery.RelativeUnit)
    /// Longer ago than `count` units (`RELATIVELT@unit@ago@count`).
    case olderThan(Int, EncodedQuery.RelativeUnit)
    /// Has no value.
    case isEmpty
    /// Has a value.
    case isNotEmpty

    func condition(_ field: FieldName) -> EncodedQuery.Condition {
        func date(_ value: Date) -> EncodedQuery.Value {
            .literal(TableAPIDateFormat.formatterCompatibleString(from: value))
        }
        switch self {
        case .before(let n, let anchor): return .init(field: field, op: .lessThan, value: .script(anchor.helper(n)))
        case .atOrBefore(let n, let anchor):
            return .init(field: field, op: .lessThanOrEquals, value: .script(anchor.helper(n)))
        case .after(let n, let anchor):
            return .init(field: field, op: .greaterThan, value: .script(anchor.helper(n)))
        case .atOrAfter(let n, let anchor):
            return .init(field: field, op: .greaterThanOrEquals, value: .script(anchor.helper(n)))
        case .between(let n1, let a1, let n2, let a2):
            return .init(field: field, op: .between, value: .range(.script(a1.helper(n1)), .script(a2.helper(n2))))
        case .beforeDate(let value): return .init(field: field, op: .lessThan, value: date(value))
        case .atOrBeforeDate(let value): return .init(field: field, op: .lessThanOrEquals, value: date(value))
        case .afterDate(let value): return .init(field: field, op: .greaterThan, value: date(value))
        case .atOrAfterDate(let value): return .init(field: field, op: .greaterThanOrEquals, value: date(value))
        case .betweenDates(let low, let high):
            return .init(
                field: field, op: .between,
                value: .range(
                    .literal(TableAPIDateFormat.formatterCompatibleString(from: low)),
                    .literal(TableAPIDateFormat.formatterCompatibleString(from: high))))
        case .withinLast(let n, let unit):
            return .init(
                field: field, op: .relativeGreaterThan, value: .relative(unit: unit, direction: .ago, count: n))
        case .olderThan(let n, let unit):
            return .init(field: field, op: .relativeLessThan, value: .relative(unit: unit, direction: .ago, count: n))
        case .isEmpty: return .init(field: field, op: .isEmpty, value: .none)
        case .isNotEmpty: return .init(field: field, op: .isNotEmpty, value: .none)
        }
    }
}
