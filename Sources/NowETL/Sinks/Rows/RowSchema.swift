/// The columns of the rows a sink receives, in output order; given once at ``RecordSink/open(schema:context:)``.
///
/// The order is the order of CSV columns, JSON keys and XML elements. (An instance's unload XML lists
/// fields alphabetically; a planner that wants that order sorts the columns.)
public struct RowSchema: Sendable, Hashable {
    /// The columns, in output order.
    public var columns: [ColumnSchema]

    /// Creates a schema.
    public init(columns: [ColumnSchema]) {
        self.columns = columns
    }

    /// Creates a schema of untyped (string) columns with the given names.
    public init(names: [String]) {
        self.columns = names.map { ColumnSchema(name: $0) }
    }

    /// The number of columns.
    public var count: Int { columns.count }

    /// Whether any column carries display values.
    public var hasReferences: Bool { columns.contains { $0.isReference } }

    /// The position of the first column with this name.
    public func index(of name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}
