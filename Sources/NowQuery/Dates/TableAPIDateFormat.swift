import Foundation

/// The Table API's date formats: date-times as `yyyy-MM-dd HH:mm:ss` in UTC (GlideDateTime's
/// internal value) and dates as `yyyy-MM-dd`.
///
/// The one implementation of these texts and of the calendar arithmetic in the project: NowData's
/// default `Coder`, the encoded-query date helpers, nowsim's storage and seeder and nowetl's sinks
/// (which keep values as epoch counts, hence the `Int` forms) all use it. A hand-written formatter and parser over days-from-civil integer arithmetic: no
/// `DateFormatter`, no `Calendar`, no locale; one `String` allocation per formatted value, none per
/// parse and none for the byte-appending forms, so they can sit on the per-record path of an export or
/// of nowsim's seeder. Date-times are truncated (floored) to whole seconds, the precision ServiceNow
/// stores. The proleptic Gregorian calendar is used for all years; years outside 0...9999 are printed
/// with as many digits as they need (and a leading `-`), which no real record has.
public enum TableAPIDateFormat {
    // MARK: Formatting

    /// `yyyy-MM-dd HH:mm:ss` of `date` in UTC, e.g. `2025-08-01 13:05:09`.
    public static func string(from date: Date) -> String {
        string(fromSeconds: wholeSeconds(date))
    }

    /// `yyyy-MM-dd HH:mm:ss` in UTC of `seconds` since 1970-01-01 00:00:00 UTC.
    ///
    /// Durations are date-times offset from the epoch: 137 seconds is `1970-01-01 00:02:17`.
    public static func string(fromSeconds seconds: Int) -> String {
        let fields = Fields(seconds: clamped(seconds), withTime: true)
        guard fields.hasFourDigitYear else { return fields.longYearText() }
        return String(unsafeUninitializedCapacity: Fields.dateTimeLength) { fields.write(to: $0) }
    }

    /// `yyyy-MM-dd` of the calendar day `date` falls on in `timeZone` (UTC by default).
    public static func dateString(from date: Date, timeZone: TimeZone = .gmt) -> String {
        dateString(Fields(seconds: wholeSeconds(date) + timeZone.secondsFromGMT(for: date), withTime: false))
    }

    /// `yyyy-MM-dd` of the UTC day that `seconds` since 1970-01-01 00:00:00 UTC fall on.
    public static func dateString(fromSeconds seconds: Int) -> String {
        dateString(Fields(seconds: clamped(seconds), withTime: false))
    }

    /// Appends `seconds` since 1970-01-01 00:00:00 UTC as `yyyy-MM-dd HH:mm:ss` (UTC) to `bytes`.
    ///
    /// The form for hot paths that build rows or JSON in a byte buffer: nothing is allocated beyond
    /// the buffer's own growth. The text is the same as ``string(fromSeconds:)``'s.
    public static func append(dateTime seconds: Int, to bytes: inout [UInt8]) {
        append(Fields(seconds: clamped(seconds), withTime: true), to: &bytes)
    }

    /// Appends the UTC day of `seconds` since 1970-01-01 00:00:00 UTC as `yyyy-MM-dd` to `bytes`.
    ///
    /// The text is the same as ``dateString(fromSeconds:)``'s.
    public static func append(date seconds: Int, to bytes: inout [UInt8]) {
        append(Fields(seconds: clamped(seconds), withTime: false), to: &bytes)
    }

    /// Appends the day `days` after 1970-01-01 as `yyyy-MM-dd` to `bytes` (the text of
    /// ``append(date:to:)`` for that day's midnight).
    public static func append(day days: Int, to bytes: inout [UInt8]) {
        append(Fields(days: min(max(days, -limit / 86_400), limit / 86_400)), to: &bytes)
    }

    // MARK: Parsing

    /// Parses `yyyy-MM-dd HH:mm:ss` as a UTC instant; `nil` unless the text is exactly that shape
    /// with a valid calendar date and time (seconds 0...59).
    public static func date(from text: some StringProtocol) -> Date? {
        seconds(fromDateTime: text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Parses `yyyy-MM-dd` as midnight UTC of that day; `nil` unless the text is a valid date.
    public static func date(fromDay text: some StringProtocol) -> Date? {
        days(fromDate: text).map { Date(timeIntervalSince1970: TimeInterval($0 * 86_400)) }
    }

    /// Parses `yyyy-MM-dd HH:mm:ss` (UTC) as seconds since 1970-01-01 00:00:00 UTC; `nil` exactly when
    /// ``date(from:)`` is `nil`.
    ///
    /// Years 0...9999 parse (four digits); callers with a narrower range check the result.
    public static func seconds(fromDateTime text: some StringProtocol) -> Int? {
        withBytes(text) { bytes -> Int? in
            guard bytes.count == 19, bytes[10] == UInt8(ascii: " "),
                let (year, month, day) = parseDate(bytes, 0),
                let (hour, minute, second) = parseTime(bytes, 11)
            else { return nil }
            return Self.days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        }
    }

    /// Parses `yyyy-MM-dd` as days since 1970-01-01; `nil` exactly when ``date(fromDay:)`` is `nil`.
    public static func days(fromDate text: some StringProtocol) -> Int? {
        guard let (year, month, day) = dateComponents(ofDate: text) else { return nil }
        return days(fromCivil: year, month, day)
    }

    // MARK: Calendar arithmetic

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    ///
    /// `month` is 1...12; `day` may run past the month's end (it counts on into the next month).
    public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (`civil_from_days`).
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The UTC day that `seconds` since 1970-01-01 00:00:00 UTC fall on (days since 1970-01-01) and
    /// the second of that day (0..<86400); instants before 1970 count back from the day's start.
    public static func day(ofSeconds seconds: Int) -> (days: Int, secondOfDay: Int) {
        let days = floorDivide(seconds, 86_400)
        return (days, seconds - days * 86_400)
    }

    // MARK: Internal helpers shared with the query parser, the date helpers and the Coder

    /// Whether `text` has the separators of `yyyy-MM-dd HH:mm:ss` at their places (19 bytes), whatever
    /// the other bytes are; ``date(from:)`` decides whether it is a valid date-time.
    package static func hasDateTimeShape(_ text: some StringProtocol) -> Bool {
        withBytes(text) { bytes in
            bytes.count == 19 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
                && bytes[10] == UInt8(ascii: " ") && bytes[13] == UInt8(ascii: ":") && bytes[16] == UInt8(ascii: ":")
        }
    }

    /// Year, month and day of a valid `yyyy-MM-dd`.
    static func dateComponents(ofDate text: some StringProtocol) -> (year: Int, month: Int, day: Int)? {
        withBytes(text) { bytes in bytes.count == 10 ? parseDate(bytes, 0) : nil }
    }

    /// Hour, minute and second of a valid `HH:mm:ss`.
    static func timeComponents(ofTime text: some StringProtocol) -> (hour: Int, minute: Int, second: Int)? {
        withBytes(text) { bytes in bytes.count == 8 ? parseTime(bytes, 0) : nil }
    }

    /// Division rounding towards negative infinity (for instants before 1970).
    static func floorDivide(_ dividend: Int, _ divisor: Int) -> Int {
        let quotient = dividend / divisor
        return (dividend % divisor != 0 && (dividend < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970 floored to a whole second; non-finite or absurd instants are clamped to
    /// ±10^13 s (about ±317,000 years) so the arithmetic never traps.
    static func wholeSeconds(_ date: Date) -> Int {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite else { return interval < 0 ? -limit : limit }
        return Int(max(-Double(limit), min(Double(limit), interval.rounded(.down))))
    }

    private static let limit = 10_000_000_000_000

    /// `seconds` clamped to ±10^13, the range ``wholeSeconds(_:)`` produces, so any `Int` is safe.
    private static func clamped(_ seconds: Int) -> Int { min(max(seconds, -limit), limit) }

    // MARK: Private

    /// The calendar fields of one value to print; the single place that lays out the texts.
    private struct Fields {
        static let dateLength = 10
        static let dateTimeLength = 19

        let year: Int
        let month: Int
        let day: Int
        /// Second of the day, or `nil` for a date without time.
        let secondOfDay: Int?

        /// The UTC fields of `seconds` (callers keep it far from `Int.min`/`Int.max`: see ``clamped(_:)``).
        init(seconds: Int, withTime: Bool) {
            let (days, secondOfDay) = TableAPIDateFormat.day(ofSeconds: seconds)
            (year, month, day) = TableAPIDateFormat.civil(fromDays: days)
            self.secondOfDay = withTime ? secondOfDay : nil
        }

        /// The fields of a date without time, `days` after 1970-01-01.
        init(days: Int) {
            (year, month, day) = TableAPIDateFormat.civil(fromDays: days)
            secondOfDay = nil
        }

        /// Whether the fixed-width layout of ``write(to:)`` applies.
        var hasFourDigitYear: Bool { year >= 0 && year <= 9999 }

        /// Writes the fixed-width text (``hasFourDigitYear`` must hold) and returns its length.
        func write(to buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            @inline(__always) func put2(_ value: Int, _ at: Int) {
                buffer[at] = UInt8(truncatingIfNeeded: value / 10) &+ UInt8(ascii: "0")
                buffer[at + 1] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
            }
            put2(year / 100, 0)
            put2(year % 100, 2)
            buffer[4] = UInt8(ascii: "-")
            put2(month, 5)
            buffer[7] = UInt8(ascii: "-")
            put2(day, 8)
            guard let secondOfDay else { return Fields.dateLength }
            buffer[10] = UInt8(ascii: " ")
            put2(secondOfDay / 3600, 11)
            buffer[13] = UInt8(ascii: ":")
            put2(secondOfDay / 60 % 60, 14)
            buffer[16] = UInt8(ascii: ":")
            put2(secondOfDay % 60, 17)
            return Fields.dateTimeLength
        }

        /// The text for years outside 0...9999 (`-1-01-01`, `12345-01-01 00:00:00`); never on a hot path.
        func longYearText() -> String {
            let date = "\(year)-\(twoDigits(month))-\(twoDigits(day))"
            guard let secondOfDay else { return date }
            return "\(date) \(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):"
                + twoDigits(secondOfDay % 60)
        }

        private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    }

    private static func dateString(_ fields: Fields) -> String {
        guard fields.hasFourDigitYear else { return fields.longYearText() }
        return String(unsafeUninitializedCapacity: Fields.dateLength) { fields.write(to: $0) }
    }

    private static func append(_ fields: Fields, to bytes: inout [UInt8]) {
        guard fields.hasFourDigitYear else {
            bytes.append(contentsOf: fields.longYearText().utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Fields.dateTimeLength) { buffer in
            let length = fields.write(to: buffer)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<length]))
        }
    }

    private static func withBytes<Result>(
        _ text: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    private static func parseDate(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Int, Int, Int)? {
        guard bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-"),
            let year = digits(bytes, start, 4), let month = digits(bytes, start + 5, 2),
            let day = digits(bytes, start + 8, 2),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
        else { return nil }
        return (year, month, day)
    }

    private static func parseTime(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Int, Int, Int)? {
        guard bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
            let hour = digits(bytes, start, 2), let minute = digits(bytes, start + 3, 2),
            let second = digits(bytes, start + 6, 2),
            hour < 24, minute < 60, second < 60
        else { return nil }
        return (hour, minute, second)
    }

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<start + count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }
}
