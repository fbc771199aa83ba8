/// One output column of a table: `{ name: caller, path: caller_id.display_value, type: string }`.
public struct ColumnConfiguration: Sendable, Hashable, Decodable {
    /// How a column's text from the Table API is converted.
    public enum ValueType: String, Sendable, Hashable, CaseIterable, Decodable {
        /// The text as it is (the default).
        case string
        /// A whole number.
        case int
        /// A decimal number, kept exact.
        case decimal
        /// `true` / `false`.
        case bool
        /// `yyyy-MM-dd HH:mm:ss` in UTC.
        case datetime
        /// `yyyy-MM-dd`.
        case date
        /// `1970-01-01 HH:mm:ss` as a duration.
        case duration
    }

    /// The column's name in every output: `[A-Za-z_][A-Za-z0-9_]*`, unique in its table.
    public var name: String
    /// The dot path into the record (`caller_id.display_value`, `opened_at.value`, `number`).
    public var path: String
    /// The conversion (default ``ValueType/string``).
    public var type: ValueType

    /// Creates a column.
    public init(name: String, path: String, type: ValueType = .string) {
        self.name = name
        self.path = path
        self.type = type
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, path, type
    }

    /// Decodes and checks a column.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        if let offset = NameRule.offsetOfInvalidIdentifier(name) {
            throw container.issue(
                .name,
                "column name '\(name)' in \(container.path(.name)) is not valid: use letters, digits and "
                    + "underscores, not starting with a digit",
                utf8Offset: offset)
        }
        path = try container.decode(String.self, forKey: .path)
        if let offset = NameRule.offsetOfInvalidDotPath(path, lowercase: false) {
            throw container.issue(
                .path,
                "'\(path)' in \(container.path(.path)) is not a dot path such as caller_id.display_value",
                utf8Offset: offset)
        }
        type = try container.decode(.type, default: .string)
    }
}
