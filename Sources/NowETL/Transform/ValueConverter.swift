import NowQuery

/// Converts the Table API's string forms of values into typed ``ColumnValue``s.
///
/// | type | accepted text | value |
/// |---|---|---|
/// | `string` | anything | the text |
/// | `int` | optional `-`/`+`, digits | ``ColumnValue/int(_:)`` |
/// | `decimal` | optional sign, digits, optional `.` and digits | the text, checked (never rounded) |
/// | `bool` | `true` / `false` | ``ColumnValue/bool(_:)`` |
/// | `datetime` | `yyyy-MM-dd HH:mm:ss` (UTC) | seconds since the epoch |
/// | `date` | `yyyy-MM-dd` | days since the epoch |
/// | `duration` | `1970-01-01 HH:mm:ss` (a date-time past the epoch; days roll into the date) | seconds |
///
/// An empty string, or a missing value, is null for every type.
public enum ValueConverter {
    /// The outcome of one conversion.
    public enum Outcome: Sendable, Hashable {
        /// Null (empty or missing text).
        case null
        /// The converted value.
        case value(ColumnValue)
        /// The text does not fit the type.
        case invalid
    }

    /// Converts `text` to `type`.
    public static func convert(_ text: String?, to type: ColumnType) -> Outcome {
        guard let text, !text.isEmpty else { return .null }
        switch type {
        case .string:
            return .value(.string(text))
        case .int:
            return Int(text).map { .value(.int($0)) } ?? .invalid
        case .decimal:
            return isDecimal(text) ? .value(.decimal(text)) : .invalid
        case .bool:
            switch text {
            case "true": return .value(.bool(true))
            case "false": return .value(.bool(false))
            default: return .invalid
            }
        case .dateTime:
            return dateTimeSeconds(text).map { .value(.dateTime(secondsSinceEpoch: $0)) } ?? .invalid
        case .date:
            return dateDays(text).map { .value(.date(daysSinceEpoch: $0)) } ?? .invalid
        case .duration:
            guard let seconds = dateTimeSeconds(text), seconds >= 0 else { return .invalid }
            return .value(.duration(seconds: seconds))
        }
    }

    /// Seconds since the epoch of a `yyyy-MM-dd HH:mm:ss` (UTC) in the years 1...9999; `nil` otherwise.
    ///
    /// ``TableAPIDateFormat`` parses year 0 too; the sinks' range starts at year 1, like the Table
    /// API's and the databases'.
    static func dateTimeSeconds(_ text: some StringProtocol) -> Int? {
        guard let seconds = TableAPIDateFormat.seconds(fromDateTime: text), seconds >= firstDay * 86_400 else {
            return nil
        }
        return seconds
    }

    /// Days since the epoch of a `yyyy-MM-dd` in the years 1...9999; `nil` otherwise.
    static func dateDays(_ text: some StringProtocol) -> Int? {
        guard let days = TableAPIDateFormat.days(fromDate: text), days >= firstDay else { return nil }
        return days
    }

    /// 0001-01-01 as days since the epoch.
    private static let firstDay = TableAPIDateFormat.days(fromCivil: 1, 1, 1)

    /// Whether `text` is `[+-]?digits[.digits]` or `[+-]?.digits` with at least one digit.
    static func isDecimal(_ text: String) -> Bool {
        var digits = 0
        var seenPoint = false
        for (index, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"): if index != 0 { return false }
            case UInt8(ascii: "."):
                if seenPoint { return false }
                seenPoint = true
            default: return false
            }
        }
        return digits > 0
    }
}
