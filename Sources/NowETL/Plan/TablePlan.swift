import NowData

/// Everything needed to extract one table, decided before the first page is fetched.
public struct TablePlan: Sendable {
    /// The table.
    public var table: String
    /// The table's filter, parsed from the configuration (no ORDERBY: keyset paging composes each page's
    /// query from it with sys_id bounds and its own sort, ``EncodedQuery/keysetPage(in:after:)``).
    public var filter: EncodedQuery
    /// How the table's values are read (`sysparm_display_value`).
    public var displayValue: DisplayValueMode
    /// `sysparm_fields`, `sysparm_display_value` and `sysparm_exclude_reference_link` of every page.
    public var readConfiguration: FieldReadConfiguration
    /// The output columns.
    public var columns: [PlannedColumn]
    /// What an XML unload output writes (``RowSchema/unloadColumns``); empty without one.
    public var unloadColumns: [PlannedColumn] = []
    /// The consecutive sys_id ranges paged concurrently, in sys_id order.
    public var partitions: [SysIDRange]
    /// Records per page.
    public var pageSize: Int
    /// The table's dictionary fields, when they were read (empty otherwise).
    public var dictionary: [DictionaryField]
    /// The rows an incremental table's run reads (already AND-ed into ``filter``); `nil` for a full table.
    public var incremental: IncrementalWindow?
    /// The table's own filter, without ``incremental``'s window: every record the pipeline copies, as a
    /// database output's prune and backfill scan it. `nil` when it is ``filter``.
    public var unwindowedFilter: EncodedQuery?
    /// Whether deletion records follow the rows (`deletes: true`); the last column is then
    /// ``deletedAtColumn``.
    public var capturesDeletes = false
    /// Whether an output cannot store text holding NUL (U+0000) — a PostgreSQL output: a record with such a
    /// value is then rejected under the table's reject policy (``Rejection/Problem/nulCharacter``), so every
    /// output receives the same records and the load does not fail at its COPY.
    public var refusesNUL = false

    /// The column deletion records fill with the deletion time; only tables with `deletes: true` have it.
    public static let deletedAtColumn = "_deleted_at"

    /// What a database output appends to a column's name for its display column
    /// (``ColumnSchema/hasDisplayColumn``): `caller_id` → `caller_id_display`.
    public static let displayColumnSuffix = "_display"

    /// The first column holding the record's sys_id (path `sys_id` or `sys_id.value`), if any.
    public var sysIDColumn: Int? {
        columns.firstIndex { $0.path.text == "sys_id" || $0.path.text == "sys_id.value" }
    }

    /// The schema of the output rows.
    public var schema: RowSchema {
        RowSchema(columns: columns.map(\.schema), unloadColumns: unloadColumns.map(\.schema))
    }

    /// Creates a plan.
    public init(
        table: String, filter: EncodedQuery, displayValue: DisplayValueMode, readConfiguration: FieldReadConfiguration,
        columns: [PlannedColumn], partitions: [SysIDRange], pageSize: Int, dictionary: [DictionaryField] = []
    ) {
        self.table = table
        self.filter = filter
        self.displayValue = displayValue
        self.readConfiguration = readConfiguration
        self.columns = columns
        self.partitions = partitions
        self.pageSize = pageSize
        self.dictionary = dictionary
    }
}
