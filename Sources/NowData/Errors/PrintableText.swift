/// Text from an instance made safe to print on a terminal or into a log line.
///
/// An instance's error message, a proxy's HTML page or a record's value is hostile input: printed raw,
/// `ESC ] 0 ; … BEL` sets the terminal's title, `ESC [ 2 J` clears the screen, a carriage return
/// overwrites what a line said, and a right-to-left override reverses how the rest of the line reads.
/// ``escaped(_:keepingLineBreaks:)`` writes every such character as a visible escape instead: the C0
/// controls (but the tab, and the line feed when asked), DEL, the C1 controls U+0080–U+009F (which some
/// terminals take as CSI and OSC too) and the bidirectional embedding, override and isolate characters.
/// Everything else, non-ASCII letters included, stays as it is.
public enum PrintableText {
    /// `text` with the characters described above as `\u{1b}`-style escapes (a backslash is left alone:
    /// it does nothing on a terminal).
    ///
    /// - Parameter keepingLineBreaks: whether `\n` stays a line break (messages of several lines);
    ///   otherwise it becomes `\u{a}`.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else {
            return text
        }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `scalar` as `\uXXXX` (four lowercase hex digits, at least): the escape JSON strings and YAML
    /// double-quoted scalars both read back as the character, for text that must stay what it was.
    public static func quotedStringEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` between double quotes: its quotes and backslashes escaped with a backslash, a line feed and
    /// a tab written `\n` and `\t`, every other character for which `escape` returns text written as that
    /// text, and after `limit` characters `…` before the closing quote.
    ///
    /// The quoting of messages, log values and YAML scalars; each says how it writes the rest
    /// (``messageEscape(_:)`` for messages and logs).
    public static func doubleQuoted(
        _ text: String, limit: Int = .max, escape: (Unicode.Scalar) -> String? = messageEscape
    ) -> String {
        var result = "\""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == limit {
                result += "…"
                break
            }
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if let escaped = escape(scalar) {
                    result += escaped
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// How ``doubleQuoted(_:limit:escape:)`` writes a message's or log line's value: a carriage return
    /// as `\r`, the other C0 controls and DEL as `\u{1b}`-style escapes, everything else as it is.
    public static func messageEscape(_ scalar: Unicode.Scalar) -> String? {
        if scalar == "\r" { return "\\r" }
        guard scalar.value < 0x20 || scalar.value == 0x7F else { return nil }
        return "\\u{\(String(scalar.value, radix: 16))}"
    }

    /// Whether `scalar` is printed as an escape.
    public static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool = false) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x0A: return !keepingLineBreaks
        case 0x00..<0x20, 0x7F..<0xA0: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
