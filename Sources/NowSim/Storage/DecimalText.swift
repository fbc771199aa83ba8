/// Writes integers as decimal digits straight into byte buffers, for the bulk paths that build rows
/// in a byte arena (``RowWriter``) and for record numbers (`INC0010001`).
///
/// Date-times and dates are written by NowQuery's `TableAPIDateFormat.append(dateTime:to:)` and
/// `append(date:to:)`.
enum DecimalText {
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
}
