import Foundation

extension DateFormatter {
    /// The Table API's date-time format, `yyyy-MM-dd HH:mm:ss` in UTC with the POSIX locale.
    ///
    /// This is how the platform stores and returns `glide_date_time` values in value mode. The
    /// ``Coder/default`` coder produces exactly what this formatter produces, through a faster path.
    public static let nonISO8601UTC: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }()
}
