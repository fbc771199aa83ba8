/// How ``JSONSink`` writes JSON.
public struct JSONSinkOptions: Sendable, Hashable {
    /// The shape of a file.
    public enum Layout: String, Sendable, Hashable {
        /// JSON Lines: one object per line, `\n` after each (https://jsonlines.org).
        case lines
        /// One JSON array of objects, one object per line: `[\n{…},\n{…}\n]\n`.
        case array
    }

    /// The shape of a file; JSON Lines by default.
    public var layout: Layout
    /// Whether decimals are written as JSON numbers (`12.50`) rather than strings (`"12.50"`).
    ///
    /// Off by default: many JSON readers turn numbers into binary floating point and lose digits, a
    /// string keeps the exact text. When on, a decimal whose text is not a valid JSON number is still
    /// written as a string.
    public var decimalsAsNumbers: Bool
    /// How date-times are written: the instance's `yyyy-MM-dd HH:mm:ss` (default) or ISO 8601.
    public var dateTimeFormat: DateTimeFormat

    /// Creates options.
    public init(layout: Layout = .lines, decimalsAsNumbers: Bool = false, dateTimeFormat: DateTimeFormat = .instance) {
        self.dateTimeFormat = dateTimeFormat
        self.layout = layout
        self.decimalsAsNumbers = decimalsAsNumbers
    }
}
