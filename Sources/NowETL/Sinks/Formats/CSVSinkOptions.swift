/// How ``CSVSink`` writes CSV (RFC 4180).
///
/// Defaults: comma, header row, CRLF line endings (RFC 4180's, and what Excel and Python's `csv`
/// write; choose ``LineEnding/lf`` for Unix tools — an instance's own export uses LF), null as an
/// empty field, no byte order mark, formula guard on.
public struct CSVSinkOptions: Sendable, Hashable {
    /// The end of a record.
    public enum LineEnding: String, Sendable, Hashable, CaseIterable, Codable {
        /// `\r\n`, as RFC 4180 specifies.
        case crlf
        /// `\n`.
        case lf

        var bytes: [UInt8] { self == .crlf ? [0x0D, 0x0A] : [0x0A] }
    }

    /// The field separator: one ASCII character other than `"`, CR and LF (`,`, `;`, `\t`, `|`).
    public var delimiter: Character
    /// Whether each file starts with a row of column names.
    public var header: Bool
    /// The text of a null value, written unquoted.
    ///
    /// Nulls and empty strings stay distinguishable, as in PostgreSQL's `COPY … CSV`: a null is
    /// `nullText` unquoted, while a string that is empty (when `nullText` is empty) or a value equal to
    /// `nullText` is written quoted (`""`, `"NULL"`; `"0"` for the number 0 with `null: "0"`). Readers
    /// that ignore quoting see both the same.
    public var nullText: String
    /// The record separator; line breaks inside fields are written as they are, inside quotes.
    public var lineEnding: LineEnding
    /// Whether each file starts with a UTF-8 byte order mark (EF BB BF), which spreadsheet programs
    /// need to recognise UTF-8.
    public var byteOrderMark: Bool
    /// Whether text that a spreadsheet would run as a formula is defused by a leading `'` (default on).
    ///
    /// **This changes data**: a `string` value starting with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return is written with `'` in front (`'=SUM(A1)`), the OWASP advice for CSV injection. Only
    /// `string` values are touched, and of those not the ones that are plain signed numbers (`-5`,
    /// `+3.25`, `-1.5e3`: a spreadsheet reads them as numbers, not formulas), so a text column of
    /// numbers keeps them; typed numbers, dates and the header are never changed. It is on by default
    /// because CSV files end up in spreadsheets; turn it off (`formula_guard: false`) for files that
    /// feed programs, which would otherwise see the `'`.
    public var formulaGuard: Bool
    /// How date-times are written: the instance's `yyyy-MM-dd HH:mm:ss` (default) or ISO 8601.
    public var dateTimeFormat: DateTimeFormat

    /// Creates options.
    public init(
        delimiter: Character = ",", header: Bool = true, nullText: String = "", lineEnding: LineEnding = .crlf,
        byteOrderMark: Bool = false, formulaGuard: Bool = true, dateTimeFormat: DateTimeFormat = .instance
    ) {
        self.dateTimeFormat = dateTimeFormat
        self.delimiter = delimiter
        self.header = header
        self.nullText = nullText
        self.lineEnding = lineEnding
        self.byteOrderMark = byteOrderMark
        self.formulaGuard = formulaGuard
    }
}
