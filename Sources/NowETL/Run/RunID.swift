import Foundation

/// A run's identifier: the start time in UTC and four random hex digits, `20240301T020000Z-7f3a`.
///
/// It names the run in the manifest, the summary and the logs, and is `{run_id}` in output paths, so
/// it uses only `[A-Za-z0-9_-]`; it sorts by start time, and the random part keeps two runs started
/// in the same second apart.
public struct RunID: Sendable, Hashable, CustomStringConvertible {
    /// The identifier.
    public var text: String

    /// Creates the identifier of a run started at `started`, with `random` as its suffix.
    public init(started: Date, random: UInt16 = UInt16.random(in: 0...UInt16.max)) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: started)
        func digits(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let hex = String(random, radix: 16)
        text =
            digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2) + "T" + digits(parts.hour, 2)
            + digits(parts.minute, 2) + digits(parts.second, 2) + "Z-" + String(repeating: "0", count: 4 - hex.count)
            + hex
    }

    /// The identifier.
    public var description: String { text }
}
