/// A connection to one database inside one open transaction, as ``DatabaseLoad`` uses it: the seam a
/// database implements (``SQLiteSession``; ``PostgresSession``, with `COPY` behind
/// ``prepareLoadWriter(into:columns:upsertKey:)``). The transaction's books (generations, savepoints,
/// pending swaps) are kept by this protocol's extension, the same for every database.
///
/// Errors are ``NowETLError``s naming the database (a file, or host and database, never a password).
protocol DatabaseSession: AnyObject {
    /// The database's SQL.
    var dialect: any SQLDialect { get }
    /// The database for messages: a file path, or `host:port/database`.
    var name: String { get }
    /// The database as a load's artifact names it: ``name``, with the schema where the database has one.
    var loadLabel: String { get }
    /// The queue every call of the session runs on (the session's methods block).
    var worker: BlockingWorker { get }
    /// Whether a transaction is open.
    var inTransaction: Bool { get }
    /// Begins a transaction (none is open). Use ``beginTransaction()``, which keeps the books.
    func begin() throws(NowETLError)
    /// COMMITs the open transaction. Use ``commitTransaction(generation:table:)``.
    func commitNow() throws(NowETLError)
    /// Rolls the open transaction back, if any. Use ``rollbackTransaction()``.
    func rollbackNow()
    /// The books of the open transaction, kept by this protocol's extension.
    var books: TransactionBooks { get set }
    /// Runs statements without parameters or rows.
    func execute(_ sql: String) throws(NowETLError)
    /// The columns of `table` (name → declared type, upper-cased), `nil` when there is no such table.
    func columns(of table: String) throws(NowETLError) -> [String: String]?
    /// The primary key columns of `table` (empty for none).
    func primaryKey(of table: String) throws(NowETLError) -> [String]
    /// The number of rows `sql` (text parameters, one count column) counts.
    func count(_ sql: String, parameters: [String]) throws(NowETLError) -> Int
    /// A statement with parameters that runs once per row.
    func prepareRowWriter(_ sql: String) throws(NowETLError) -> any DatabaseRowWriter
    /// The writer of a table's rows: each row inserted into `table` (upserted by `upsertKey` when given).
    /// A database may collect the rows and load them in bulk, as long as every other statement of the
    /// session sees them loaded.
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(NowETLError)
        -> any DatabaseRowWriter
}

extension DatabaseSession {
    var loadLabel: String { name }

    /// The number of rows `sql` (one text parameter, one count column) counts.
    func count(_ sql: String, parameter: String) throws(NowETLError) -> Int {
        try count(sql, parameters: [parameter])
    }

    /// Begins the run's transaction unless one is open (tables of one run share it).
    func beginTransaction() throws(NowETLError) {
        guard !inTransaction else { return }
        try begin()
        books.generation += 1
        books.endTransaction()
    }

    /// COMMITs transaction `generation`, the one `table`'s load worked in: runs the pending swaps, then
    /// COMMIT. Nothing to do when it is committed already (another table of the run did it).
    ///
    /// - Throws: ``NowETLError`` when that transaction ended without a COMMIT — its rows are not in the
    ///   database, and the run must not say they are — or when a swap or the COMMIT fails (the
    ///   transaction is then rolled back).
    func commitTransaction(generation wanted: Int, table: String) throws(NowETLError) {
        if books.committedGeneration == wanted { return }
        guard inTransaction, books.generation == wanted else {
            throw NowETLError(
                .database, path: name,
                "table \(table) in \(name): the run's transaction on this database was rolled back before its "
                    + "COMMIT (an error of another table ended it), so none of this table's rows are in the "
                    + "database; run again")
        }
        // Where DDL commits implicitly (MySQL) the swaps run after the COMMIT, outside the transaction.
        let swaps = books.pendingSwaps
        let swapsFirst = dialect.transactionalDDL
        do throws(NowETLError) {
            if swapsFirst { try runSwaps(swaps) }
            try commitNow()
        } catch {
            rollbackTransaction()
            throw error
        }
        books.committedGeneration = wanted
        books.endTransaction()
        if !swapsFirst { try runSwaps(swaps) }
    }

    /// Runs the statements of staged `replace` swaps.
    private func runSwaps(_ swaps: [PendingSwap]) throws(NowETLError) {
        for swap in swaps {
            do {
                for sql in swap.statements { try execute(sql) }
            } catch {
                throw DatabaseLoad.swapFailed(error, table: swap.table, database: name)
            }
        }
    }

    /// Rolls the open transaction back, if any.
    func rollbackTransaction() {
        books.endTransaction()
        rollbackNow()
    }

    /// Opens savepoint `name` for a load of the pipeline table `table`. The outputs of one table open
    /// theirs one inside the other (all outputs open before any is prepared), so a savepoint stays until
    /// ``rollback(toSavepoint:)`` undoes it, or a later table's first load finds every savepoint in the
    /// stack prepared by earlier tables and releases them into the transaction: tables run one after
    /// another, so those tables are done, and the nesting stays as deep as one table's outputs
    /// (PostgreSQL slows down past 64 open subtransactions).
    func openSavepoint(_ name: String, table: String) throws(NowETLError) {
        if let outermost = books.savepoints.first, books.savepoints.allSatisfy({ $0.prepared && $0.table != table }) {
            try execute("RELEASE SAVEPOINT \(outermost.name)")
            let released = Set(books.savepoints.map(\.name))
            books.releasedSavepoints.formUnion(released)
            books.savepoints = []
            for index in books.pendingSwaps.indices where released.contains(books.pendingSwaps[index].savepoint ?? "") {
                books.pendingSwaps[index].savepoint = nil
            }
        }
        try execute("SAVEPOINT \(name)")
        books.savepoints.append(OpenSavepoint(name: name, table: table))
    }

    /// Marks savepoint `name` as its load's: the load is prepared.
    func prepared(savepoint name: String) {
        if let index = books.savepoints.firstIndex(where: { $0.name == name }) {
            books.savepoints[index].prepared = true
        }
    }

    /// Undoes everything since savepoint `name` — the savepoints opened after it go too, with their
    /// pending swaps — or nothing when an earlier rollback undid it already. A savepoint released into
    /// the transaction cannot be undone alone: the whole transaction is rolled back (the other tables in
    /// it then fail at their COMMIT, never taken for loaded).
    func rollback(toSavepoint name: String) throws(NowETLError) {
        if books.releasedSavepoints.contains(name) {
            rollbackTransaction()
            return
        }
        guard let index = books.savepoints.firstIndex(where: { $0.name == name }) else { return }
        try execute("ROLLBACK TO \(name)")
        try execute("RELEASE SAVEPOINT \(name)")
        books.savepoints.removeSubrange(index...)
        let open = Set(books.savepoints.map(\.name))
        books.pendingSwaps.removeAll { swap in swap.savepoint.map { !open.contains($0) } ?? false }
    }

    /// One `INSERT` per row (``SQLDialect/insert(into:columns:upsertKey:)``).
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(NowETLError)
        -> any DatabaseRowWriter
    {
        try prepareRowWriter(dialect.insert(into: table, columns: columns, upsertKey: upsertKey))
    }
}

/// One statement of a ``DatabaseSession`` run once per row: bind every parameter, then ``run()``.
protocol DatabaseRowWriter: AnyObject {
    /// Binds `value` (NULL for `nil`) to parameter `index` (1-based), in the database's form of its type.
    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError)
    /// Binds text to parameter `index` (1-based).
    func bind(text: String, at index: Int) throws(NowETLError)
    /// Binds the cell at `row`, `column` of `batch` to parameter `index` (1-based), as
    /// ``bind(_:at:)`` binds `batch[row, column]`: a writer that takes bytes binds a text cell straight
    /// from the batch's bytes, without making a `String` of it (the default makes one).
    func bind(_ batch: RowBatch, row: Int, column: Int, at index: Int) throws(NowETLError)
    /// Runs the statement with the bound parameters and clears them.
    func run() throws(NowETLError)
}

extension DatabaseRowWriter {
    func bind(_ batch: RowBatch, row: Int, column: Int, at index: Int) throws(NowETLError) {
        try bind(batch[row, column], at: index)
    }
}

/// A savepoint of a load in the open transaction (``TransactionBooks/savepoints``).
struct OpenSavepoint {
    /// The savepoint's name.
    let name: String
    /// The pipeline table whose load opened it.
    let table: String
    /// Whether that load is prepared.
    var prepared = false
}

/// A staged `replace` of a table waiting for the COMMIT (``TransactionBooks/pendingSwaps``).
struct PendingSwap {
    /// The savepoint of the load that staged it: rolling back to it drops the swap too; `nil` once it
    /// was released into the transaction.
    var savepoint: String?
    /// The database table replaced.
    let table: String
    /// The dialect's swap statements.
    let statements: [String]
}

/// The books a ``DatabaseSession`` keeps of its open transaction, the same for every database: the
/// loads in it, its savepoints, its generation and the swaps that wait for its COMMIT.
struct TransactionBooks {
    /// The loads (``DatabaseLoad``) that work in the open transaction: opened and not yet aborted.
    /// When the last aborts, the transaction is rolled back, so a failed table leaves no lock behind.
    var loads = 0
    /// The savepoints of the open transaction, outermost first (see ``DatabaseSession/openSavepoint(_:table:)``).
    var savepoints: [OpenSavepoint] = []
    /// The savepoints released into the open transaction: their work can no longer be undone alone.
    var releasedSavepoints: Set<String> = []
    /// Counts the transactions begun: a load remembers the one it worked in, so that a transaction
    /// that ended without a COMMIT (rolled back by the database after an error, a lost connection)
    /// is never taken for one that committed.
    var generation = 0
    /// The ``generation`` last COMMITted.
    var committedGeneration: Int?
    /// `replace` swaps of staged tables, run just before the COMMIT (so the swap's exclusive lock is
    /// held for a moment, not from the table's prepare to the end of the run).
    var pendingSwaps: [PendingSwap] = []

    /// Forgets the loads, savepoints and swaps of a transaction that ended (committed or rolled back).
    mutating func endTransaction() {
        loads = 0
        savepoints = []
        releasedSavepoints = []
        pendingSwaps = []
    }
}
