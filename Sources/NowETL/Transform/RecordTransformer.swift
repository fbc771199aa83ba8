/// Turns ``Record``s into rows of a table's ``RowSchema``: each column's dot path is looked up and its
/// text converted to the column's type (``ValueConverter``).
///
/// A record with a value that will not convert becomes a ``Rejection`` and no row; what happens next is
/// the caller's reject policy. Reference columns (``ColumnSchema/isReference``) carry the field's
/// display value beside the stored value. Unload columns (``RowSchema/unloadColumns``) follow the
/// columns in each row.
public struct RecordTransformer: Sendable {
    /// The columns, then the unload columns, in schema order.
    public let columns: [PlannedColumn]
    /// The schema of the rows produced.
    public let schema: RowSchema
    /// Which form a plain string stands for (see ``Record/text(at:plainForm:)``).
    public let plainForm: RecordPath.Form

    /// Creates a transformer for `columns` (and `unloadColumns`) of a table read with `displayValue`.
    public init(columns: [PlannedColumn], unloadColumns: [PlannedColumn] = [], displayValue: DisplayValueMode) {
        self.columns = columns + unloadColumns
        self.schema = RowSchema(columns: columns.map(\.schema), unloadColumns: unloadColumns.map(\.schema))
        self.plainForm = displayValue == .display ? .displayValue : .value
    }

    /// Appends one row per convertible record to `batch` and returns the rejected records, in order.
    public func transform(_ records: [Record], into batch: inout RowBatch) -> [Rejection] {
        var rejections: [Rejection] = []
        var row = Row(
            values: [ColumnValue?](repeating: nil, count: columns.count),
            displayValues: schema.hasReferences ? [String?](repeating: nil, count: columns.count) : [])
        records: for record in records {
            for (index, column) in columns.enumerated() {
                let text = record.text(at: column.path, plainForm: plainForm)
                switch ValueConverter.convert(text, to: column.schema.type) {
                case .null: row.values[index] = nil
                case .value(let value): row.values[index] = value
                case .invalid:
                    rejections.append(
                        Rejection(
                            sysID: record.sysID ?? "", column: column.schema.name, type: column.schema.type,
                            value: text ?? "", record: record.jsonLine()))
                    continue records
                }
                if column.schema.isReference {
                    row.displayValues[index] = record.displayValue(of: column.path.field ?? column.path.text)
                }
            }
            row.recordTable = record.text(at: Self.classPath, plainForm: plainForm)
            batch.append(row)
        }
        return rejections
    }

    private static let classPath = RecordPath("sys_class_name.value")
}
