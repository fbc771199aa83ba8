/// What happens to a record whose value will not convert to its column's type:
/// `reject: { mode: fail | skip | dead_letter, max: N }`.
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

    /// The reaction (default ``Mode/fail``).
    public var mode: Mode
    /// For ``Mode/skip`` and ``Mode/deadLetter``: how many records may be rejected before the run
    /// counts as failed with rejects over the threshold (exit 2); `nil` for no limit.
    public var maximum: Int?

    /// Fail on the first rejected record.
    public static let fail = RejectPolicy(mode: .fail)

    /// Creates a policy.
    public init(mode: Mode, maximum: Int? = nil) {
        self.mode = mode
        self.maximum = maximum
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case mode
        case maximum = "max"
    }

    /// Decodes and checks a policy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(.mode, default: .fail)
        maximum = try container.decodeInteger(.maximum, default: nil, in: 0...Int.max)
        if mode == .fail, maximum != nil {
            throw container.issue(
                .maximum, "\(container.path(.maximum)) applies only to mode skip or dead_letter", pointsAtKey: true)
        }
    }
}
