/// One output column: its name, its type and whether rows carry a display value beside the raw value.
public struct ColumnSchema: Sendable, Hashable {
    /// The column's name: the CSV header, the JSON key, the XML element name.
    ///
    /// XML needs a name of the form `[A-Za-z_][A-Za-z0-9_.-]*` (field names and dot paths are); the XML
    /// sink rejects other names at ``RecordSink/open(schema:context:)``.
    public var name: String
    /// The declared type of the column's values.
    public var type: ColumnType
    /// Whether the column is a reference whose rows carry a display value companion
    /// (``RowBatch/displayValue(row:column:)``); among ``RowSchema/unloadColumns`` choices carry one too.
    ///
    /// The XML sink writes it as `<caller_id display_value="Fred Luddy">5137…</caller_id>` (an empty
    /// `display_value=""` when the row has none). CSV and JSON write only the raw value: a pipeline that
    /// wants the display text there declares a column of its own for it (`caller_id.display_value`).
    public var isReference: Bool
    /// Whether the column reads the stored value of a date-time field (`glide_date_time`, `due_date`
    /// per `sys_dictionary`) while its type is `string`, so its text is the instance's
    /// `yyyy-MM-dd HH:mm:ss`: a file output with `datetime_format: iso8601` (``DateTimeFormat``)
    /// rewrites such text as `yyyy-MM-ddTHH:mm:ssZ`. The planner sets it only for such an output.
    public var isDateTimeField: Bool
    /// Whether a database output writes a `<name>_display` text column beside this one, holding the
    /// row's display value (``RowBatch/displayValue(row:column:)``): a column reading a reference or
    /// choice field of a table with ``TableConfiguration/wantsDisplayColumns``. Files ignore it, so
    /// their bytes do not change; rows carry the display value for it as for a reference.
    public var hasDisplayColumn: Bool = false
    /// What the field's stored value points at (``FieldTarget``), among a migration's unload columns,
    /// so an instance output can map sys_ids to the target's; `nil` elsewhere.
    public var target: FieldTarget?

    /// Creates a column.
    public init(
        name: String, type: ColumnType = .string, isReference: Bool = false, isDateTimeField: Bool = false,
        target: FieldTarget? = nil, hasDisplayColumn: Bool = false
    ) {
        self.hasDisplayColumn = hasDisplayColumn
        self.name = name
        self.type = type
        self.isReference = isReference
        self.isDateTimeField = isDateTimeField
        self.target = target
    }
}
