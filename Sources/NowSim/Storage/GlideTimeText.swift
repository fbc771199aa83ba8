/// Writes the Table API's date-time texts (ref §5) straight into byte buffers, without `DateFormatter`.
///
/// Date-times are `yyyy-MM-dd HH:mm:ss` UTC, dates `yyyy-MM-dd`, durations a date-time offset from the
/// epoch (`1970-01-01 00:02:17` is 2 min 17 s). Inputs are seconds since 1970-01-01 00:00:00 UTC.
enum GlideTimeText {
    /// Appends `seconds` as `yyyy-MM-dd HH:mm:ss`.
    static func appendDateTime(_ seconds: Int, to bytes: inout [UInt8]) {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        appendDate(days: days, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendTwoDigits(secondOfDay / 3600, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60, to: &bytes)
    }

    /// Appends the date part of `seconds` as `yyyy-MM-dd`.
    static func appendDate(_ seconds: Int, to bytes: inout [UInt8]) {
        appendDate(days: floorDivide(seconds, 86_400), to: &bytes)
    }

    /// `seconds` as `yyyy-MM-dd HH:mm:ss`.
    static func dateTime(_ seconds: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        appendDateTime(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `seconds` as `yyyy-MM-dd`.
    static func date(_ seconds: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        appendDate(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the decimal digits of `value`.
    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            if value == Int.min {
                bytes.append(contentsOf: String(value).utf8.dropFirst())
                return
            }
            appendInteger(-value, to: &bytes)
            return
        }
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[count] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends `value` zero-padded to `width` digits (no sign; `value` must be non-negative).
    static func appendPadded(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digitCount = 1
        var limit = 10
        while value >= limit && digitCount < 19 {
            digitCount += 1
            limit &*= 10
        }
        if digitCount < width {
            for _ in digitCount..<width { bytes.append(UInt8(ascii: "0")) }
        }
        appendInteger(value, to: &bytes)
    }

    private static func appendTwoDigits(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value / 10) &+ 48)
        bytes.append(UInt8(truncatingIfNeeded: value % 10) &+ 48)
    }

    private static func appendDate(days: Int, to bytes: inout [UInt8]) {
        // Civil date from days since 1970-01-01 (the proleptic Gregorian algorithm by Howard Hinnant).
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        appendPadded(max(0, year), width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendTwoDigits(month, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendTwoDigits(day, to: &bytes)
    }

    private static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
