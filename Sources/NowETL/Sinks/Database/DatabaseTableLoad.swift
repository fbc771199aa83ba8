/// What a database sink did to one table of its database in a run (``Artifact/databaseTable(_:)``).
public struct DatabaseTableLoad: Sendable, Hashable, Codable {
    /// The database: a SQLite file's absolute path, or `host:port/database/schema`.
    public var database: String
    /// The table in the database.
    public var table: String
    /// The pipeline table whose rows it received.
    public var sourceTable: String
    /// How the rows were loaded.
    public var mode: DatabaseLoadMode
    /// Rows inserted or updated (merge and append) or loaded (replace).
    public var rows: Int
    /// Rows deleted by deletion records (merge), or marked deleted (`deletes: soft`).
    public var deleted: Int
    /// Rows the prune removed, or marked deleted (`deletes: soft`), because the source no longer has them
    /// under the filter (``DatabasePrunePolicy``).
    public var pruned: Int
    /// Rows whose columns added to the table this run filled from a scan of the source.
    public var backfilled: Int
    /// The load's id (``SinkContext/loadID``), kept in the database's `_nowetl_loads`.
    public var loadID: String
    /// Whether the load was skipped because the database already had it (a rerun after a crash between
    /// the database's COMMIT and the run's commit record).
    public var skipped: Bool
    /// Whether the table was dropped and created anew because a column's type changed
    /// (``DatabaseTypeChangePolicy/recreate``).
    public var recreated: Bool
    /// The choice labels loaded into `<table>__choices` (`choice_labels: true`); `nil` when none were.
    public var choiceLabels: Int?

    /// Creates a description of a load.
    public init(
        database: String, table: String, sourceTable: String, mode: DatabaseLoadMode, rows: Int, deleted: Int = 0,
        pruned: Int = 0, backfilled: Int = 0, loadID: String, skipped: Bool = false, recreated: Bool = false
    ) {
        self.pruned = pruned
        self.backfilled = backfilled
        self.database = database
        self.table = table
        self.sourceTable = sourceTable
        self.mode = mode
        self.rows = rows
        self.deleted = deleted
        self.loadID = loadID
        self.skipped = skipped
        self.recreated = recreated
    }

    /// The keys of the run report's `database_tables` entries (``RunReport/Table/databaseTables``).
    enum CodingKeys: String, CodingKey {
        case database, table
        case sourceTable = "source_table"
        case mode, rows, deleted, pruned, backfilled, skipped, recreated
        case loadID = "load_id"
        case choiceLabels = "choice_labels"
    }
}
