import Foundation

/// Fast conversion between `Date` and the Table API's `yyyy-MM-dd HH:mm:ss` UTC text.
///
/// `DateFormatter` costs microseconds and allocations per call; pages of thousands of rows with several
/// date columns make that visible. This converts the fixed 19-character form directly and agrees with
/// ``Foundation/DateFormatter/nonISO8601UTC`` on every valid input (tests check it); anything else falls
/// back to the formatter so that edge cases behave exactly as the formatter does.
enum TableDateTime {
    /// Parses `yyyy-MM-dd HH:mm:ss` (UTC); `nil` when the text is not a valid date-time.
    static func parse(_ text: String) -> Date? {
        var text = text
        let fast: Date?? = text.withUTF8 { bytes -> Date?? in
            guard bytes.count == 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20, bytes[13] == 0x3A,
                bytes[16] == 0x3A
            else { return .none }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let digit = Int(bytes[index]) - 48
                    guard digit >= 0, digit <= 9 else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
            else { return .some(nil) }
            guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour < 24, minute < 60,
                second < 60
            else { return .some(nil) }
            let days = daysFromCivil(year, month, day)
            let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
            return .some(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        if let fast { return fast }
        return DateFormatter.nonISO8601UTC.date(from: text)
    }

    /// Formats a date as `yyyy-MM-dd HH:mm:ss` in UTC (sub-seconds truncated, as the formatter does).
    static func format(_ date: Date) -> String {
        let total = Int(floor(date.timeIntervalSince1970))
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        guard (1...9999).contains(year) else { return DateFormatter.nonISO8601UTC.string(from: date) }
        let hour = secondsOfDay / 3_600
        let minute = (secondsOfDay % 3_600) / 60
        let second = secondsOfDay % 60
        var bytes = [UInt8](repeating: 0, count: 19)
        func put(_ value: Int, _ start: Int, _ count: Int) {
            var value = value
            for index in stride(from: start + count - 1, through: start, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(year, 0, 4)
        bytes[4] = 0x2D
        put(month, 5, 2)
        bytes[7] = 0x2D
        put(day, 8, 2)
        bytes[10] = 0x20
        put(hour, 11, 2)
        bytes[13] = 0x3A
        put(minute, 14, 2)
        bytes[16] = 0x3A
        put(second, 17, 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
