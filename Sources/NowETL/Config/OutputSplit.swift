/// When an output starts a new file: `split: { rows: N }` or `split: { bytes: N }`.
///
/// A split output's path must contain `{part}`; each part is a complete file of its format.
public enum OutputSplit: Sendable, Hashable, Decodable {
    /// After this many rows.
    case rows(Int)
    /// Once a file reaches this many bytes (as written, after compression); rows are never cut.
    case bytes(Int)

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case rows, bytes
    }

    /// Decodes a split: exactly one of `rows` or `bytes`, at least 1.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let rows = try container.decodeInteger(.rows, default: nil, in: 1...Int.max)
        let bytes = try container.decodeInteger(.bytes, default: nil, in: 1...Int.max)
        switch (rows, bytes) {
        case (let rows?, nil): self = .rows(rows)
        case (nil, let bytes?): self = .bytes(bytes)
        case (.some, .some):
            throw container.issue(
                .bytes, "\(container.containerPath) takes exactly one of rows or bytes, not both", pointsAtKey: true)
        case (nil, nil):
            throw container.issue("\(container.containerPath) needs one of rows or bytes", kind: .missingKey)
        }
    }
}
