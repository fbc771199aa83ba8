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
    ///
    /// Text that is no JSON number (`-`, `nan`, `1.`) stands for a number that is not there: JSON
    /// lines write `null` (never invalid JSON), text lines `-`.
    case number(String)
    /// A boolean.
    case bool(Bool)

    /// Creates a text value from a literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }

    /// A decimal number from its text (`12.5`, `-0.25`), or text when it is not a JSON number.
    public static func decimal(_ text: String) -> LogValue {
        JSONText.isNumber(text) ? .number(text) : .string(text)
    }

    /// A duration in seconds as the summary table writes it (`1.6`, `0.04`): a number in JSON lines;
    /// a time that is not one (not finite, negative) is `null` there and `-` in text lines.
    public static func seconds(_ value: Double) -> LogValue {
        .number(RunSummaryTable.seconds(value))
    }

    /// The value as a text line writes it.
    public var description: String {
        switch self {
        case .string(let text): text
        case .number(let text): JSONText.isNumber(text) ? text : "-"
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }
}
