/// One output column of a table: `{ name: caller, path: caller_id.display_value, type: string }`.
public struct ColumnConfiguration: Sendable, Hashable, Decodable {
    /// The column's name in every output: `[A-Za-z_][A-Za-z0-9_]*`, unique in its table.
    public var name: String
    /// The dot path into the record (`caller_id.display_value`, `opened_at.value`, `number`).
    public var path: String
    /// The type the column's text from the Table API is converted to (default ``ColumnType/string``);
    /// the sinks' own column type, so it goes into a ``ColumnSchema`` as it is.
    public var type: ColumnType
    /// Whether the pipeline gave ``type``: a column without one takes the dictionary's type when the
    /// table has a database output (``TablePlanner``).
    public var typeIsDeclared: Bool

    /// Creates a column; `typeIsDeclared` defaults to whether `type` is other than `string`.
    public init(name: String, path: String, type: ColumnType = .string, typeIsDeclared: Bool? = nil) {
        self.name = name
        self.path = path
        self.type = type
        self.typeIsDeclared = typeIsDeclared ?? (type != .string)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, path, type
    }

    /// Decodes and checks a column.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeChecked(.name, NameRule.offsetOfInvalidIdentifier) { name in
            "column name '\(name)' in \(container.path(.name)) is not valid: use letters, digits and underscores, "
                + "not starting with a digit"
        }
        path = try container.decodeChecked(
            .path, { NameRule.offsetOfInvalidDotPath($0, lowercase: false) },
            message: { "'\($0)' in \(container.path(.path)) is not a dot path such as caller_id.display_value" })
        let declared = try container.decodeIfPresent(ColumnType.self, forKey: .type)
        type = declared ?? .string
        typeIsDeclared = declared != nil
    }
}
