/// One output column as planned: where its value comes from and how sinks see it.
public struct PlannedColumn: Sendable, Hashable {
    /// The dot path into the record.
    public var path: RecordPath
    /// Name, type and whether the column carries a display value (references under `display_value: all`).
    public var schema: ColumnSchema

    /// Creates a column.
    public init(path: RecordPath, schema: ColumnSchema) {
        self.path = path
        self.schema = schema
    }
}
