/// A connection to one database inside one open transaction, as ``DatabaseLoad`` uses it: the seam a
/// database implements (``SQLiteSession``; a PostgreSQL session next, with `COPY` behind
/// ``prepareRowWriter(_:)`` where it pays).
///
/// Errors are ``SinkError``s naming the database (a file, or host and database, never a password).
protocol DatabaseSession: AnyObject {
    /// The database's SQL.
    var dialect: any SQLDialect { get }
    /// The database for messages: a file path, or `host:port/database`.
    var name: String { get }
    /// The database as a load's artifact names it: ``name``, with the schema where the database has one.
    var loadLabel: String { get }
    /// The queue every call of the session runs on (the session's methods block).
    var worker: DatabaseWorker { get }
    /// Begins the transaction unless one is open (tables of one run share it).
    func beginTransaction() throws(SinkError)
    /// COMMITs the open transaction, if any (the first of the run's sinks to call it commits for all).
    func commitTransaction() throws(SinkError)
    /// Rolls the open transaction back, if any.
    func rollbackTransaction()
    /// Whether a transaction is open.
    var inTransaction: Bool { get }
    /// The loads (``DatabaseLoad``) that work in the open transaction: opened and not yet aborted.
    /// When the last aborts, the transaction is rolled back, so a failed table leaves no lock behind.
    var loads: Int { get set }
    /// The savepoints of the open transaction, outermost first (see ``openSavepoint(_:)``).
    var savepoints: [String] { get set }
    /// Runs statements without parameters or rows.
    func execute(_ sql: String) throws(SinkError)
    /// The columns of `table` (name → declared type, upper-cased), `nil` when there is no such table.
    func columns(of table: String) throws(SinkError) -> [String: String]?
    /// The number of rows `sql` (one text parameter, one count column) counts.
    func count(_ sql: String, parameter: String) throws(SinkError) -> Int
    /// A statement with parameters that runs once per row.
    func prepareRowWriter(_ sql: String) throws(SinkError) -> any DatabaseRowWriter
    /// The writer of a table's rows: each row inserted into `table` (upserted by `upsertKey` when given).
    /// A database may collect the rows and load them in bulk, as long as every other statement of the
    /// session sees them loaded.
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(SinkError)
        -> any DatabaseRowWriter
}

extension DatabaseSession {
    var loadLabel: String { name }

    /// Opens savepoint `name` inside the transaction. It stays until the transaction ends or
    /// ``rollback(toSavepoint:)`` undoes it: the outputs of one table open theirs one inside the other
    /// (all outputs open before any is prepared), so releasing one would release the later ones too.
    func openSavepoint(_ name: String) throws(SinkError) {
        try execute("SAVEPOINT \(name)")
        savepoints.append(name)
    }

    /// Undoes everything since savepoint `name` — the savepoints opened after it go too — or nothing
    /// when an earlier rollback undid it already.
    func rollback(toSavepoint name: String) throws(SinkError) {
        guard let index = savepoints.firstIndex(of: name) else { return }
        try execute("ROLLBACK TO \(name)")
        try execute("RELEASE \(name)")
        savepoints.removeSubrange(index...)
    }

    /// One `INSERT` per row (``SQLDialect/insert(into:columns:upsertKey:)``).
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(SinkError)
        -> any DatabaseRowWriter
    {
        try prepareRowWriter(dialect.insert(into: table, columns: columns, upsertKey: upsertKey))
    }
}

/// One statement of a ``DatabaseSession`` run once per row: bind every parameter, then ``run()``.
protocol DatabaseRowWriter: AnyObject {
    /// Binds `value` (NULL for `nil`) to parameter `index` (1-based), in the database's form of its type.
    func bind(_ value: ColumnValue?, at index: Int) throws(SinkError)
    /// Binds text to parameter `index` (1-based).
    func bind(text: String, at index: Int) throws(SinkError)
    /// Runs the statement with the bound parameters and clears them.
    func run() throws(SinkError)
}
