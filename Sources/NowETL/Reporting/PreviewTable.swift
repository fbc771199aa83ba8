import NowQuery

/// Renders preview rows as an aligned text table for a terminal: a header, a rule, one line per row.
///
/// Values are written as the CSV sink writes them, without the formula guard (date-times `yyyy-MM-dd HH:mm:ss` UTC, durations in
/// seconds); null is empty. Control characters are shown escaped (`\n`, `\t`, `\r`, `\u{1B}`) so a
/// value never breaks a line, and values wider than ``maximumWidth`` columns end in `…`.
///
/// Columns are aligned by terminal columns (``DisplayWidth``), not by characters: a CJK character
/// takes two, a combining accent or a Devanagari virama none, an emoji two. A cut value ends on a
/// whole grapheme cluster, never half a wide character.
public enum PreviewTable {
    /// The widest a cell may be, in terminal columns.
    public static let maximumWidth = 40

    /// The table text, every line ending in a newline and without trailing spaces.
    public static func render(schema: RowSchema, rows: [[ColumnValue?]]) -> String {
        let header = schema.columns.map { cell($0.name) }
        let body = rows.map { values in values.map { $0.map(text).map(cell) ?? "" } }
        var widths = header.map { DisplayWidth.of($0) }
        for row in body {
            for (column, value) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], DisplayWidth.of(value))
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, value) in cells.enumerated() {
                if column > 0 { text += "  " }
                text += value
                if column < widths.count {
                    text += String(repeating: " ", count: max(0, widths[column] - DisplayWidth.of(value)))
                }
            }
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        var output = line(header)
        output += line(widths.map { String(repeating: "-", count: $0) })
        for row in body { output += line(row) }
        return output
    }

    /// A value's text, as the CSV sink writes it.
    static func text(_ value: ColumnValue) -> String {
        switch value {
        case .string(let text), .decimal(let text): return text
        case .int(let number), .duration(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .dateTime(let seconds):
            let (days, secondsOfDay) = TableAPIDateFormat.day(ofSeconds: seconds)
            let time = "\(pad(secondsOfDay / 3600)):\(pad(secondsOfDay / 60 % 60)):\(pad(secondsOfDay % 60))"
            return date(days) + " " + time
        case .date(let days): return date(days)
        }
    }

    /// `text` escaped and cut to ``maximumWidth`` columns for one cell.
    static func cell(_ text: String) -> String {
        var escaped = ""
        var width = 0
        for character in text {
            let shown = escape(character)
            escaped += shown
            width += DisplayWidth.of(shown)
            if width > maximumWidth { break }  // enough to know it is cut (cells can be 60 KB)
        }
        return DisplayWidth.truncated(escaped, toWidth: maximumWidth)
    }

    private static func escape(_ character: Character) -> String {
        switch character {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\r\n": return "\\r\\n"
        case "\t": return "\\t"
        default:
            guard character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return String(character)
            }
            return character.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control
                    ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
            }.joined()
        }
    }

    private static func date(_ days: Int) -> String {
        // The year unpadded (`999-01-01`), unlike the sinks' TableAPIDateFormat text (`0999-01-01`).
        let (year, month, day) = TableAPIDateFormat.civil(fromDays: days)
        return "\(year)-\(pad(month))-\(pad(day))"
    }

    private static func pad(_ number: Int) -> String {
        number < 10 ? "0\(number)" : String(number)
    }
}
