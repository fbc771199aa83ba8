import Foundation

extension TableAPIDateFormat {
    /// The default ``Coder``'s date-time text: ``string(from:)`` for the years 1...9999, and
    /// ``Foundation/DateFormatter/nonISO8601UTC``'s text outside them (and for non-finite instants).
    ///
    /// The Coder promises the formatter's output through a faster path. The two agree on every instant
    /// from the Gregorian reform (October 1582; the formatter's calendar is Julian before it) to the
    /// end of 9999; instants outside 1...9999 are left to the formatter.
    static func formatterCompatibleString(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // 0001-01-01 00:00:00 and 10000-01-01 00:00:00 UTC; false for NaN as well.
        guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else {
            return DateFormatter.nonISO8601UTC.string(from: date)
        }
        return string(from: date)
    }

    /// The default ``Coder``'s date-time parsing: ``date(from:)`` for text in the exact
    /// `yyyy-MM-dd HH:mm:ss` shape (invalid dates in that shape are `nil`), and
    /// ``Foundation/DateFormatter/nonISO8601UTC``'s lenient parsing for any other text (such as
    /// `2024-1-5 9:03:00`), so that values the formatter used to accept still decode.
    static func formatterCompatibleDate(from text: String) -> Date? {
        if hasDateTimeShape(text) { return date(from: text) }
        return DateFormatter.nonISO8601UTC.date(from: text)
    }
}
