/// A JSON output: `json: { path, array, gzip, level, split }`.
///
/// JSON Lines (one object per line) by default; `array: true` writes one JSON array instead.
/// Compression follows the path like every output: `out.jsonl.gz` is gzip'd, `out.jsonl` is not.
public struct JSONOutputConfiguration: Sendable, Hashable, Decodable {
    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// Whether the file is one JSON array rather than JSON Lines (default `false`).
    public var array: Bool

    /// Creates a JSON output.
    public init(file: OutputFileSettings, array: Bool = false) {
        self.file = file
        self.array = array
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, array, gzip, level, split
    }

    /// Decodes and checks a JSON output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try OutputFileSettings(from: container)
        array = try container.decode(.array, default: false)
    }
}
