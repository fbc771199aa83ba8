/// The columns of the rows a sink receives, in output order; given once at ``RecordSink/open(schema:context:)``.
///
/// The order is the order of CSV columns, JSON keys and XML elements. (An instance's unload XML lists
/// fields alphabetically; a planner that wants that order sorts the columns.)
public struct RowSchema: Sendable, Hashable {
    /// The columns, in output order.
    public var columns: [ColumnSchema]
    /// The fields an XML unload writes whatever the columns are (field names, stored values,
    /// display values of references and choices, `sys_id`), in unload order; their cells follow the
    /// columns' in every row. Only an unload ``XMLSink`` writes them; CSV, JSON and records XML
    /// write ``columns``. Empty when the table has no unload output (the unload then writes the
    /// columns).
    public var unloadColumns: [ColumnSchema]

    /// Creates a schema.
    public init(columns: [ColumnSchema], unloadColumns: [ColumnSchema] = []) {
        self.columns = columns
        self.unloadColumns = unloadColumns
    }

    /// Creates a schema of untyped (string) columns with the given names.
    public init(names: [String]) {
        self.columns = names.map { ColumnSchema(name: $0) }
        self.unloadColumns = []
    }

    /// The number of cells of a row: the columns, then the unload columns.
    public var count: Int { columns.count + unloadColumns.count }

    /// Whether any column (or unload column) carries display values: a reference, or a column with a
    /// database display column (``ColumnSchema/hasDisplayColumn``).
    public var hasReferences: Bool {
        columns.contains { $0.isReference || $0.hasDisplayColumn } || unloadColumns.contains { $0.isReference }
    }

    /// The position of the first column with this name.
    public func index(of name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}
