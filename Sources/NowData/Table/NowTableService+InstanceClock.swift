import Foundation

extension NowTableService {
    /// The instance's clock: the `Date` header of a one-record request on `tableName`
    /// (`sysparm_limit=1`, `sysparm_fields=sys_id`, no count), to one second; `nil` when the answer
    /// carries no `Date` header that parses (RFC 9110's `Sun, 06 Nov 1994 08:49:37 GMT`).
    ///
    /// The instance stamps `sys_updated_on` with this clock, so a client that bounds a read by time
    /// ("what changed until now") takes "now" from here rather than from its own clock, which may be
    /// ahead. The request goes through the retry policy like any read.
    ///
    /// - Throws: ``NowDataError`` when the request fails after its retries.
    public func instanceDate(of tableName: String) async throws(NowDataError) -> Date? {
        let items = [
            URLQueryItem(name: "sysparm_limit", value: "1"), URLQueryItem(name: "sysparm_fields", value: "sys_id"),
            URLQueryItem(name: "sysparm_no_count", value: "true"),
            URLQueryItem(name: "sysparm_suppress_pagination_header", value: "true"),
        ]
        let response = try await pageFetch(tableName: tableName)(items)
        return response.header("date").flatMap(Self.httpDate(_:))
    }

    /// Parses an HTTP date in the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`); `nil` otherwise.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), (1...31).contains(day)
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month + 1, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? .gmt
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date
    }
}
