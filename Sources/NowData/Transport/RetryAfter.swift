import Foundation

/// Parses the `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
///
/// The header is hostile input (a proxy or a rate-limit rule may send anything): the delay is finite,
/// never negative and at most ``maximumDelay``, so every duration computed from it is representable.
/// Whether a delay that long is waited out is the retry policy's decision (its time budget), not the
/// header's.
enum RetryAfter {
    /// The longest delay reported (a day): longer ones are reported as this, and every retry budget
    /// (at most a day) refuses them anyway.
    static let maximumDelay: TimeInterval = 86_400

    /// The delay in seconds the header asks for (0 … ``maximumDelay``), or `nil` when it is unreadable.
    static func delay(from value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.allSatisfy(\.isASCII), let seconds = Double(text) {
            return seconds.isNaN ? nil : min(maximumDelay, max(0, seconds))
        }
        for formatter in formatters {
            if let date = formatter.date(from: text) {
                let seconds = date.timeIntervalSince(now)
                return seconds.isNaN ? nil : min(maximumDelay, max(0, seconds))
            }
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
