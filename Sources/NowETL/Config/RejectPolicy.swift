/// What happens to a record whose value will not convert to its column's type, or whose text is not
/// valid UTF-8: `reject: { mode: fail | skip | dead_letter, max: N, invalid_utf8: reject | replace }`.
///
/// `invalid_utf8` lives here because a record with bytes that are not UTF-8 is a bad record like one
/// that will not convert: by default (`reject`) it follows ``mode`` (failing the table, or left out
/// and counted in ``maximum``, naming sys_id and field); with `replace` each invalid sequence becomes
/// U+FFFD, the record is exported and counted (`utf8_repaired` in the summary), whatever ``mode`` says.
public struct RejectPolicy: Sendable, Hashable, Decodable {
    /// The reaction to one rejected record.
    public enum Mode: String, Sendable, Hashable, CaseIterable, Decodable {
        /// Fail the table, naming the sys_id, column and value (the default).
        case fail
        /// Leave the record out and count it.
        case skip
        /// Leave the record out and write it to the table's dead-letter file.
        case deadLetter = "dead_letter"
    }

    /// What happens to a record holding text that is not valid UTF-8.
    public enum InvalidUTF8: String, Sendable, Hashable, CaseIterable, Decodable {
        /// The record is rejected under ``RejectPolicy/mode`` (the default).
        case reject
        /// Each invalid sequence becomes U+FFFD; the record is exported and counted.
        case replace
    }

    /// The reaction (default ``Mode/fail``).
    public var mode: Mode
    /// For ``Mode/skip`` and ``Mode/deadLetter``: how many records may be rejected before the run
    /// counts as failed with rejects over the threshold (exit 2); `nil` for no limit.
    public var maximum: Int?
    /// What happens to records with invalid UTF-8 (default ``InvalidUTF8/reject``).
    public var invalidUTF8: InvalidUTF8

    /// Fail on the first rejected record.
    public static let fail = RejectPolicy(mode: .fail)

    /// Creates a policy.
    public init(mode: Mode, maximum: Int? = nil, invalidUTF8: InvalidUTF8 = .reject) {
        self.mode = mode
        self.maximum = maximum
        self.invalidUTF8 = invalidUTF8
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case mode
        case maximum = "max"
        case invalidUTF8 = "invalid_utf8"
    }

    /// Decodes and checks a policy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(.mode, default: .fail)
        maximum = try container.decodeInteger(.maximum, default: nil, in: 0...Int.max)
        invalidUTF8 = try container.decode(.invalidUTF8, default: .reject)
        if mode == .fail, maximum != nil {
            throw container.issue(
                .maximum, "\(container.path(.maximum)) applies only to mode skip or dead_letter", pointsAtKey: true)
        }
    }
}
