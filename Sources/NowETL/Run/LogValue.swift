/// The value of one log field as ``RunLogger`` writes it: text, or a number or boolean that JSON logs
/// write as a JSON number or boolean (`"rows":2000`, `"resumed":true`) rather than a string.
///
/// Text lines (`key=value`) write every case as its text, as before.
public enum LogValue: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// Text, subject to redaction.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A decimal number already written as JSON number text (`12.5`); see ``decimal(_:)``.
    case number(String)
    /// A boolean.
    case bool(Bool)

    /// Creates a text value from a literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }

    /// A decimal number from its text (`12.5`, `-0.25`), or text when it is not a JSON number.
    public static func decimal(_ text: String) -> LogValue {
        isJSONNumber(text) ? .number(text) : .string(text)
    }

    /// The value as a text line writes it.
    public var description: String {
        switch self {
        case .string(let text), .number(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    /// Whether `text` is a number in RFC 8259's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == 0x2D { bytes = bytes.dropFirst() }
        if bytes.first == 0x30 {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == 0x2E {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == 0x65 || bytes.first == 0x45 {
            bytes = bytes.dropFirst()
            if bytes.first == 0x2B || bytes.first == 0x2D { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
