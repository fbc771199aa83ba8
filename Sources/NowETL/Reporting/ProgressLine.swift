import Foundation

/// The progress of one table as the live line and the periodic log lines show it (pure functions).
///
/// ```
/// incident  12000/50000 rows  24%  3210 rows/s  12 pages  ETA 0:11
/// ```
public struct ProgressLine: Sendable, Hashable {
    /// The table.
    public var table: String
    /// The instance's count of matching records, once known.
    public var count: Int?
    /// Rows received so far.
    public var rows: Int
    /// Pages received so far.
    public var pages: Int
    /// Seconds since the table started.
    public var elapsed: Double
    /// What an output is doing after the extraction, once one reports (``OutputProgress``): the line
    /// then shows that instead of the pages.
    public var output: OutputProgress?
    /// Seconds since the output's current phase started.
    public var outputElapsed: Double = 0

    /// Creates a progress state.
    public init(table: String, count: Int? = nil, rows: Int = 0, pages: Int = 0, elapsed: Double = 0) {
        self.table = table
        self.count = count
        self.rows = rows
        self.pages = pages
        self.elapsed = elapsed
    }

    /// Rows per second so far, or `nil` before any time has passed.
    public var rowsPerSecond: Double? {
        elapsed > 0 ? Double(rows) / elapsed : nil
    }

    /// The fraction done (0…1), when the count is known and not zero.
    public var fraction: Double? {
        guard let count, count > 0 else { return nil }
        return min(1, Double(rows) / Double(count))
    }

    /// Seconds left at the current rate, when the count and a rate are known.
    ///
    /// More rows than counted (records created during the export) gives 0, not a negative time.
    public var secondsRemaining: Double? {
        guard let count, let rate = rowsPerSecond, rate > 0 else { return nil }
        return Double(max(0, count - rows)) / rate
    }

    /// The live line: table, rows (of the count), percent, rate, pages and ETA.
    public var rendered: String {
        if let output { return Self.rendered(output, table: table, elapsed: outputElapsed) }
        var text = table + "  " + String(rows)
        if let count { text += "/" + String(count) }
        text += " rows"
        if let fraction { text += "  " + String(Int((fraction * 100).rounded(.down))) + "%" }
        if let rate = rowsPerSecond { text += "  " + String(Int(rate.rounded())) + " rows/s" }
        text += "  " + String(pages) + (pages == 1 ? " page" : " pages")
        if let remaining = secondsRemaining { text += "  ETA " + Self.duration(remaining) }
        return text
    }

    /// The fields of a periodic progress log line.
    public var logFields: [(String, any LogFieldValue)] {
        if let output { return Self.logFields(output, table: table, elapsed: outputElapsed) }
        var fields: [(String, any LogFieldValue)] = [("table", table), ("rows", rows)]
        if let count { fields.append(("count", count)) }
        fields.append(("pages", pages))
        if let rate = rowsPerSecond { fields.append(("rows_per_second", Int(rate.rounded()))) }
        if let remaining = secondsRemaining { fields.append(("eta_seconds", Int(remaining.rounded(.up)))) }
        return fields
    }

    /// `m:ss` below an hour, `h:mm:ss` from an hour (seconds rounded up, so a last second shows `0:01`).
    public static func duration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(max(0, seconds).rounded(.up)) : 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}
