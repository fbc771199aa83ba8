/// A JSON output: `json: { path, array, decimals_as_numbers, datetime_format, gzip, compression,
/// level, split, keep_runs }`.
///
/// JSON Lines (one object per line) by default; `array: true` writes one JSON array instead.
/// Compression follows the path like every output: `out.jsonl.gz` is gzip'd, `out.jsonl` is not.
/// The format settings are the sink's own ``JSONSinkOptions``.
///
/// How the JSON is written: `array: true` is ``JSONSinkOptions/Layout/array`` (default
/// ``JSONSinkOptions/Layout/lines``); `decimals_as_numbers` (default `false`); `datetime_format`
/// (`instance`, the default, or `iso8601`: ``DateTimeFormat``).
public typealias JSONOutputConfiguration = FileOutputConfiguration<JSONSinkOptions>

extension JSONSinkOptions: FileOutputFormat {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, array
        case decimalsAsNumbers = "decimals_as_numbers"
        case dateTimeFormat = "datetime_format"
        case gzip, compression, level, split
        case keepRuns = "keep_runs"
    }

    /// Decodes and checks a JSON output.
    public static func decodeOutput(from decoder: any Decoder) throws -> (file: OutputFileSettings, options: Self) {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let file = try OutputFileSettings(from: container)
        let options = JSONSinkOptions(
            layout: try container.decode(.array, default: false) ? .array : .lines,
            decimalsAsNumbers: try container.decode(.decimalsAsNumbers, default: false),
            dateTimeFormat: try container.decode(.dateTimeFormat, default: DateTimeFormat.instance))
        return (file, options)
    }
}
