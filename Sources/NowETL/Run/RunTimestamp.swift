import Foundation
import NowQuery

/// A time nowetl writes about a run — in `manifest.json`, the summary JSON, shard manifests, the
/// reconcile report, log lines — always ISO 8601 in UTC with a `Z`, whole seconds:
/// `2026-12-01T08:39:23Z`.
///
/// Data values are not run times: date-times read from the instance keep its format
/// (`2026-12-01 08:39:23`, UTC) in outputs and in `state.json`'s cursors, which are sent back in
/// queries. Reading accepts the older forms too, so files written before this format still load: the
/// instance's `yyyy-MM-dd HH:mm:ss` (UTC; `manifest.json` wrote it) and a number of seconds since
/// 1970 (shard manifests wrote that).
public struct RunTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    public var secondsSinceEpoch: Int

    /// The time at `secondsSinceEpoch`.
    public init(secondsSinceEpoch: Int) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    /// `date`, rounded down to the second.
    public init(_ date: Date) {
        secondsSinceEpoch = Int(date.timeIntervalSince1970.rounded(.down))
    }

    /// Parses `2026-12-01T08:39:23Z` or the older `2026-12-01 08:39:23` (UTC); `nil` for anything else.
    public init?(parsing text: String) {
        var plain = text
        if text.utf8.count == 20, text.hasSuffix("Z"), let t = text.firstIndex(of: "T"),
            text.distance(from: text.startIndex, to: t) == 10
        {
            plain = String(text.dropLast())
            plain.replaceSubrange(t...t, with: " ")
        }
        guard let seconds = TableAPIDateFormat.seconds(fromDateTime: plain) else { return nil }
        secondsSinceEpoch = seconds
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSinceEpoch)) }

    /// `2026-12-01T08:39:23Z`.
    public var text: String {
        var text = TableAPIDateFormat.string(fromSeconds: secondsSinceEpoch)
        if let space = text.firstIndex(of: " ") { text.replaceSubrange(space...space, with: "T") }
        return text + "Z"
    }

    /// The ISO 8601 text.
    public var description: String { text }

    /// Orders by time.
    public static func < (lhs: RunTimestamp, rhs: RunTimestamp) -> Bool {
        lhs.secondsSinceEpoch < rhs.secondsSinceEpoch
    }

    /// Decodes the ISO text, the older `yyyy-MM-dd HH:mm:ss` or seconds since 1970 (a number).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            guard seconds.isFinite, abs(seconds) < 1e15 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a time: \(seconds)")
            }
            secondsSinceEpoch = Int(seconds.rounded(.down))
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = RunTimestamp(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a time (expected 2026-12-01T08:39:23Z): \(text)")
        }
        self = parsed
    }

    /// Encodes the ISO text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
