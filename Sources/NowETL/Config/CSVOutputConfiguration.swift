/// A CSV output: `csv: { path, delimiter, header, null, line_ending, bom, formula_guard, datetime_format, gzip,
/// compression, level, split, keep_runs }`.
///
/// RFC 4180 quoting, UTF-8, one header row by default. The format settings are the sink's own
/// ``CSVSinkOptions``.
///
/// How the CSV is written: `delimiter` (one ASCII character other than `"`, CR or LF; default
/// `,`), `header` (default `true`), `null` (the text of empty values, default empty; a value equal
/// to it is quoted), `line_ending` (`crlf`, the default, or `lf`), `bom` (default `false`) and `formula_guard`
/// (default `true`: text a spreadsheet would run as a formula gets a leading `'`; see
/// ``CSVSinkOptions/formulaGuard``) and `datetime_format` (`instance`, the default, or `iso8601`:
/// ``DateTimeFormat``).
public typealias CSVOutputConfiguration = FileOutputConfiguration<CSVSinkOptions>

extension CSVSinkOptions: FileOutputFormat {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, delimiter, header
        case nullText = "null"
        case lineEnding = "line_ending"
        case byteOrderMark = "bom"
        case formulaGuard = "formula_guard"
        case dateTimeFormat = "datetime_format"
        case gzip, compression, level, split
        case keepRuns = "keep_runs"
    }

    /// Decodes and checks a CSV output.
    public static func decodeOutput(from decoder: any Decoder) throws -> (file: OutputFileSettings, options: Self) {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let file = try OutputFileSettings(from: container)
        let delimiterText = try container.decode(.delimiter, default: ",")
        let bytes = Array(delimiterText.utf8)
        guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != UInt8(ascii: "\""), bytes[0] != 0x0A, bytes[0] != 0x0D
        else {
            throw container.issue(
                .delimiter,
                "\(container.path(.delimiter)) must be one ASCII character other than a quote or a line break "
                    + "(write \"\\t\" for a tab)")
        }
        let options = CSVSinkOptions(
            delimiter: Character(Unicode.Scalar(bytes[0])),
            header: try container.decode(.header, default: true),
            nullText: container.contains(.nullText) ? try container.decode(String.self, forKey: .nullText) : "",
            lineEnding: try container.decode(.lineEnding, default: CSVSinkOptions.LineEnding.crlf),
            byteOrderMark: try container.decode(.byteOrderMark, default: false),
            formulaGuard: try container.decode(.formulaGuard, default: true),
            dateTimeFormat: try container.decode(.dateTimeFormat, default: DateTimeFormat.instance))
        return (file, options)
    }
}
