/// How a database output loads its tables, whatever the database: the settings ``DatabaseSink`` reads
/// from ``SQLiteSinkOptions`` and ``PostgresSinkOptions``: mode, table name, type changes, prune and deletes.
public protocol DatabaseLoadSettings: Sendable {
    /// How rows are loaded.
    var mode: DatabaseLoadMode { get }
    /// The database table's name, `{table}` standing for the pipeline table's; `nil` for the pipeline
    /// table's name.
    var tableName: String? { get }
    /// What a column whose type changed does.
    var onTypeChange: DatabaseTypeChangePolicy { get }
    /// When rows the source no longer has are removed (`prune:`); `nil` for the table's default
    /// (``DatabasePrunePolicy/defaultPolicy(incremental:)``).
    var prune: DatabasePrunePolicy? { get }
    /// What a deleted record's row becomes (`deletes:`).
    var deletes: DatabaseDeletePolicy { get }
}

extension DatabaseLoadSettings {
    /// The database table for the pipeline table `table`.
    public func tableName(for table: String) -> String {
        guard let tableName else { return table }
        return tableName.replacingOccurrences(of: "{table}", with: table)
    }
}
