import Foundation

/// Parses the `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
enum RetryAfter {
    /// The delay in seconds the header asks for (never negative), or `nil` when it is unreadable.
    static func delay(from value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.allSatisfy(\.isASCII), let seconds = Double(text), seconds.isFinite {
            return max(0, seconds)
        }
        for formatter in formatters {
            if let date = formatter.date(from: text) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms.
    private static let formatters: [DateFormatter] = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        return formatter
    }
}
