import NowData

/// Writes a table's dictionary fields as the YAML of one pipeline table, ready to paste under
/// `tables:` — the output of `nowetl discover`.
///
/// The entry lists every field under `fields:` and one column per field under `columns:` with a type
/// from the field's `internal_type` (``columnType(for:)``). Reference fields say what they point at in
/// a comment (`# reference → sys_user`), inherited fields where they come from (`# from task`).
public enum DiscoveredTableYAML {
    /// The column type for a dictionary `internal_type`: `integer` → int, `decimal`/`float` → decimal,
    /// `boolean` → bool, `glide_date_time` → datetime, `glide_date` → date, `glide_duration` → duration,
    /// anything else → string.
    public static func columnType(for internalType: String) -> ColumnType {
        switch internalType {
        case "integer": return .int
        case "decimal", "float": return .decimal
        case "boolean": return .bool
        case "glide_date_time": return .dateTime
        case "glide_date": return .date
        case "glide_duration": return .duration
        default: return .string
        }
    }

    /// The YAML of `table` with `fields` (as ``FieldDiscovery/fields(of:)`` returns them).
    public static func render(table: String, fields: [DictionaryField]) -> String {
        var lines = [
            "# \(table): \(fields.count) field\(fields.count == 1 ? "" : "s") from sys_dictionary"
                + " (nowetl discover); paste under `tables:` and trim to what you need",
            "- table: \(scalar(table))",
            "  fields:",
        ]
        for field in fields {
            lines.append("    - \(scalar(field.name))" + comment(field, table: table, withReference: false))
        }
        lines.append("  columns:")
        for field in fields {
            let name = scalar(field.name)
            let type = columnType(for: field.internalType).rawValue
            lines.append(
                "    - { name: \(name), path: \(name), type: \(type) }"
                    + comment(field, table: table, withReference: true))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func comment(_ field: DictionaryField, table: String, withReference: Bool) -> String {
        var notes: [String] = []
        if withReference, field.isReference {
            notes.append("reference → " + (field.reference ?? "?"))
        }
        if field.definedOn != table { notes.append("from " + field.definedOn) }
        if withReference, columnType(for: field.internalType) == .string, !field.isReference,
            field.internalType != "string"
        {
            notes.append(field.internalType)
        }
        return notes.isEmpty ? "" : "  # " + commentText(notes.joined(separator: "; "))
    }

    /// `text` as it may stand in a YAML comment: the dictionary's words are the instance's, and a line
    /// break (or another control character) in a reference or class name would end the comment and
    /// write YAML of the instance's choosing into the pipeline file. They are written as escapes.
    static func commentText(_ text: String) -> String {
        PrintableText.escaped(text)
    }

    /// `text` plain when it is a simple name, double-quoted otherwise.
    static func scalar(_ text: String) -> String {
        let plain =
            !text.isEmpty && text.first.map { $0.isLetter || $0 == "_" } == true
            && text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "." }
            && !reserved.contains(text.lowercased())
        if plain { return text }
        // A carriage return is written as any other C0 control. C0, DEL and C1 controls are no printable
        // YAML characters; bidirectional controls would make the file read otherwise than it parses.
        return PrintableText.doubleQuoted(text) { scalar in
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                return "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            }
            return PrintableText.needsEscape(scalar) ? PrintableText.quotedStringEscape(scalar) : nil
        }
    }

    private static let reserved: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "y", "n"]
}
