/// The settings of a SQLite output besides its file (``FileSinkOptions`` has the path).
public struct SQLiteSinkOptions: DatabaseLoadSettings, Hashable {
    /// How rows are loaded (default ``DatabaseLoadMode/merge``).
    public var mode: DatabaseLoadMode
    /// The database table's name, `{table}` standing for the pipeline table's; `nil` for the pipeline
    /// table's name.
    public var tableName: String?
    /// What a column whose type changed does (default ``DatabaseTypeChangePolicy/fail``).
    public var onTypeChange: DatabaseTypeChangePolicy
    /// When rows the source no longer has are removed (`nil`: the table's default).
    public var prune: DatabasePrunePolicy?
    /// What a deleted record's row becomes (default ``DatabaseDeletePolicy/hard``).
    public var deletes: DatabaseDeletePolicy
    /// How long a statement waits for another connection's write lock, each of
    /// `SQLiteConnection.beginAttempts` times `BEGIN IMMEDIATE` is tried (30 s; tests shorten it).
    var busyTimeoutMilliseconds = 30_000

    /// Creates options.
    public init(
        mode: DatabaseLoadMode = .merge, tableName: String? = nil, onTypeChange: DatabaseTypeChangePolicy = .fail,
        prune: DatabasePrunePolicy? = nil, deletes: DatabaseDeletePolicy = .hard
    ) {
        self.mode = mode
        self.tableName = tableName
        self.onTypeChange = onTypeChange
        self.prune = prune
        self.deletes = deletes
    }
}
