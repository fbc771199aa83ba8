/// One row as a standalone value, for building a ``RowBatch`` with ``RowBatch/append(_:)``.
///
/// The batch copies the row's cells into its own storage, so one `Row` can be reused for every record
/// (overwrite its values, append, repeat) without allocating per row.
public struct Row: Sendable, Hashable {
    /// The values, one per schema column; `nil` is null.
    public var values: [ColumnValue?]
    /// Display values, one per schema column (only reference columns' entries are read); empty when the
    /// row carries none.
    public var displayValues: [String?]
    /// The table the record belongs to (`sys_class_name`, e.g. `incident` in an export of `task`), for
    /// the element names of XML unload; `nil` means the table being exported.
    public var recordTable: String?

    /// Creates a row.
    public init(values: [ColumnValue?], displayValues: [String?] = [], recordTable: String? = nil) {
        self.values = values
        self.displayValues = displayValues
        self.recordTable = recordTable
    }
}
