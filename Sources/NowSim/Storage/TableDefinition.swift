/// One table as described by its `sys_db_object` row and the `sys_dictionary` rows of its hierarchy.
///
/// Rows of a table live in the physical SQLite table of its hierarchy root (`storageTable`):
/// `incident`, `problem` and `change_request` rows are in `task`, told apart by `sys_class_name`.
public struct TableDefinition: Sendable {
    /// The table name (`sys_db_object.name`).
    public var name: String
    /// The table label (`sys_db_object.label`).
    public var label: String
    /// The parent table's name (`sys_db_object.super_class` resolved to a name); `nil` for a root.
    public var superClass: String?
    /// The physical SQLite table holding the rows: the name of the hierarchy root.
    public var storageTable: String
    /// Own and inherited columns, sorted by element.
    public var columns: [ColumnDefinition] {
        didSet { rebuildIndex() }
    }
    /// The column used as display value: the dictionary's `display=true` column on this table or the
    /// nearest ancestor; else `name` or `number` when present; else `sys_id`.
    public var displayField: String
    /// This table and all its descendants, the values of `sys_class_name` that belong to it.
    public var classNames: [String]

    private var columnIndex: [String: Int] = [:]

    /// Whether the table has no parent (it is the root of its hierarchy).
    public var isRoot: Bool { superClass == nil }

    /// Creates a table definition; `columns` are sorted by element.
    public init(
        name: String, label: String, superClass: String?, storageTable: String, columns: [ColumnDefinition],
        displayField: String, classNames: [String]
    ) {
        self.name = name
        self.label = label
        self.superClass = superClass
        self.storageTable = storageTable
        self.columns = columns.sorted { $0.element < $1.element }
        self.displayField = displayField
        self.classNames = classNames
        rebuildIndex()
    }

    /// The column named `element` (own or inherited), or `nil`; constant time.
    public func column(_ element: String) -> ColumnDefinition? {
        guard let index = columnIndex[element] else { return nil }
        return columns[index]
    }

    private mutating func rebuildIndex() {
        var index: [String: Int] = [:]
        index.reserveCapacity(columns.count)
        for (offset, column) in columns.enumerated() { index[column.element] = offset }
        columnIndex = index
    }
}
