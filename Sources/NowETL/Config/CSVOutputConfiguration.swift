/// A CSV output: `csv: { path, delimiter, header, null, bom, formula_guard, gzip, level, split }`.
///
/// RFC 4180 quoting, UTF-8, one header row by default.
public struct CSVOutputConfiguration: Sendable, Hashable, Decodable {
    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// The field separator: one ASCII byte other than `"`, CR or LF (default `,`).
    public var delimiter: UInt8
    /// Whether the first row names the columns (default `true`).
    public var header: Bool
    /// The text written for empty values (default empty).
    public var nullText: String
    /// Whether the file starts with a UTF-8 byte order mark, for spreadsheet programs (default `false`).
    public var byteOrderMark: Bool
    /// Whether cells starting with `=`, `+`, `-`, `@`, tab or CR are prefixed with `'` against
    /// formula injection (default `false`).
    public var formulaGuard: Bool

    /// Creates a CSV output with the file format's defaults.
    public init(
        file: OutputFileSettings, delimiter: UInt8 = UInt8(ascii: ","), header: Bool = true, nullText: String = "",
        byteOrderMark: Bool = false, formulaGuard: Bool = false
    ) {
        self.file = file
        self.delimiter = delimiter
        self.header = header
        self.nullText = nullText
        self.byteOrderMark = byteOrderMark
        self.formulaGuard = formulaGuard
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, delimiter, header
        case nullText = "null"
        case byteOrderMark = "bom"
        case formulaGuard = "formula_guard"
        case gzip, level, split
    }

    /// Decodes and checks a CSV output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try OutputFileSettings(from: container)
        let delimiterText = try container.decode(.delimiter, default: ",")
        let bytes = Array(delimiterText.utf8)
        guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != UInt8(ascii: "\""), bytes[0] != 0x0A, bytes[0] != 0x0D
        else {
            throw container.issue(
                .delimiter,
                "\(container.path(.delimiter)) must be one ASCII character other than a quote or a line break "
                    + "(write \"\\t\" for a tab)")
        }
        delimiter = bytes[0]
        header = try container.decode(.header, default: true)
        nullText = container.contains(.nullText) ? try container.decode(String.self, forKey: .nullText) : ""
        byteOrderMark = try container.decode(.byteOrderMark, default: false)
        formulaGuard = try container.decode(.formulaGuard, default: false)
    }
}
