/// Reading ``SplitPolicy`` from a pipeline file: `split: { rows: N }` or `split: { bytes: N }`.
extension SplitPolicy: Decodable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case rows, bytes
    }

    /// Decodes a split: exactly one of `rows` or `bytes`, at least 1. (No `split` key is ``none``.)
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
