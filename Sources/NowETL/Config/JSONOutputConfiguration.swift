/// A JSON output: `json: { path, array, decimals_as_numbers, datetime_format, gzip, level, split }`.
///
/// JSON Lines (one object per line) by default; `array: true` writes one JSON array instead.
/// Compression follows the path like every output: `out.jsonl.gz` is gzip'd, `out.jsonl` is not.
/// The format settings are the sink's own ``JSONSinkOptions``.
public struct JSONOutputConfiguration: Sendable, Hashable, Decodable {
    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// How the JSON is written: `array: true` is ``JSONSinkOptions/Layout/array`` (default
    /// ``JSONSinkOptions/Layout/lines``); `decimals_as_numbers` (default `false`); `datetime_format`
    /// (`instance`, the default, or `iso8601`: ``DateTimeFormat``).
    public var options: JSONSinkOptions

    /// Creates a JSON output.
    public init(file: OutputFileSettings, options: JSONSinkOptions = JSONSinkOptions()) {
        self.file = file
        self.options = options
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, array
        case decimalsAsNumbers = "decimals_as_numbers"
        case dateTimeFormat = "datetime_format"
        case gzip, level, split
    }

    /// Decodes and checks a JSON output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try OutputFileSettings(from: container)
        options = JSONSinkOptions(
            layout: try container.decode(.array, default: false) ? .array : .lines,
            decimalsAsNumbers: try container.decode(.decimalsAsNumbers, default: false),
            dateTimeFormat: try container.decode(.dateTimeFormat, default: DateTimeFormat.instance))
    }
}
