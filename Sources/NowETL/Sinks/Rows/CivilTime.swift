/// Conversions between calendar fields and the epoch counts ``ColumnValue`` stores, without `DateFormatter`.
///
/// Proleptic Gregorian calendar, UTC, years 1…9999 for the text forms (the Table API's range). The
/// parsers accept exactly the Table API's forms: `yyyy-MM-dd HH:mm:ss` and `yyyy-MM-dd`.
public enum CivilTime {
    /// Days since 1970-01-01 of a calendar date (H. Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day count since 1970-01-01.
    public static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Splits seconds since the epoch into days since the epoch and seconds of that day (0..<86400).
    public static func split(secondsSinceEpoch: Int) -> (days: Int, secondsOfDay: Int) {
        var days = secondsSinceEpoch / 86_400
        var rest = secondsSinceEpoch % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        return (days, rest)
    }

    /// Parses `yyyy-MM-dd HH:mm:ss` (UTC) into seconds since the epoch; `nil` for any other text or an
    /// impossible date.
    public static func parseDateTime(_ text: some StringProtocol) -> Int? {
        var copy = String(text)
        return copy.withUTF8 { bytes -> Int? in
            guard bytes.count == 19, bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A,
                let days = parseDate(bytes, 0), let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2),
                let second = number(bytes, 17, 2), hour < 24, minute < 60, second < 60
            else { return nil }
            return days * 86_400 + hour * 3_600 + minute * 60 + second
        }
    }

    /// Parses `yyyy-MM-dd` into days since the epoch; `nil` for any other text or an impossible date.
    public static func parseDate(_ text: some StringProtocol) -> Int? {
        var copy = String(text)
        return copy.withUTF8 { bytes in bytes.count == 10 ? parseDate(bytes, 0) : nil }
    }

    private static func parseDate(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard bytes[start + 4] == 0x2D, bytes[start + 7] == 0x2D, let year = number(bytes, start, 4),
            let month = number(bytes, start + 5, 2), let day = number(bytes, start + 8, 2), year >= 1,
            (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        return days(year: year, month: month, day: day)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            let digit = Int(bytes[index]) &- 48
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The number of days in a month of the proleptic Gregorian calendar.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
