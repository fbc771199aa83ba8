import Foundation
import NowQuery

/// A ``TransactionalSink`` loading a table's rows into a table of a database (see ``DatabaseLoad`` for
/// the modes, the schema evolution and the load marker, ``SQLiteDialect`` and ``PostgresDialect`` for
/// the column types).
///
/// The sink is the same for every database; only the ``DatabaseSession`` it opens differs. The tables
/// of one run that load the same database share one session (one connection, one transaction),
/// COMMITted by ``commitTransaction()`` before the run writes its commit record; each table works
/// inside a savepoint of it. Every call of the table's ``DatabaseLoad`` runs on the session's
/// ``BlockingWorker``, so a blocking driver or a wait for another writer's lock never blocks the
/// concurrency pool. Concurrent readers see the database as of the last commit. Adding a database is
/// one session and one case of ``Database``.
///
/// A sink is confined to one task at a time (``RecordSink``), and each call waits for its work on the
/// worker, so the load is used by one thread at a time.
public final class DatabaseSink: TransactionalSink, SourceScan.Consumer {
    /// The database an output loads, and its settings.
    public enum Database: Sendable, Hashable {
        /// A SQLite database: the file ``FileSinkOptions/path`` under
        /// ``FileSinkOptions/outputDirectory`` (``SQLiteSession``).
        case sqlite(SQLiteSinkOptions, file: FileSinkOptions)
        /// A schema of a PostgreSQL database (``PostgresSession``).
        case postgres(PostgresSinkOptions)
        /// A MySQL or MariaDB database (``MySQLSession``).
        case mysql(MySQLSinkOptions)

        /// Mode, table name and type-change policy.
        var load: any DatabaseLoadSettings {
            switch self {
            case .sqlite(let sqlite, _): sqlite
            case .postgres(let postgres): postgres.common
            case .mysql(let mysql): mysql.common
            }
        }

        /// The output in messages before a session exists (`SQLite output report.db`).
        var label: String {
            switch self {
            case .sqlite(_, let file): "SQLite output \(file.path.text)"
            case .postgres(let postgres): "PostgreSQL output (schema \(postgres.schema))"
            case .mysql: "MySQL output"
            }
        }

        /// Connects to a server database and does in a transaction what a run's first load does —
        /// PostgreSQL creates the schema when missing; a table is created, written, updated and deleted
        /// from — then rolls it back, for `validate --online`: the rights a run needs are checked, not
        /// assumed. Returns the database's name, `nil` for SQLite (validate creates no file).
        ///
        /// The table is `_nowetl_probe_<random>`. PostgreSQL's DDL is transactional, so nothing is left;
        /// MySQL commits DDL at once, so there the table is created on the session's DDL connection and
        /// dropped after the rollback (a probe killed in between leaves that one empty table, whose name
        /// says what it is).
        ///
        /// - Throws: ``NowETLError`` as a run's first load would: unreachable 69, refused credentials 77,
        ///   a missing database 78, a refused statement (a right the user lacks: its message names it).
        func probe() async throws -> String? {
            if case .sqlite = self { return nil }
            let session = try await session(
                for: SinkContext(table: "", runID: "validate-" + UUID().uuidString, runStarted: Date()))
            let box = UncheckedBox(session)
            let probe = "_nowetl_probe_" + UUID().uuidString.prefix(8).lowercased()
            try await session.worker.perform {
                let session = box.value
                let dialect = session.dialect
                let table = dialect.table(probe)
                let key = dialect.quote("sys_id")
                try session.begin()
                do {
                    try session.execute(dialect.createTable(probe, columns: [("sys_id", .string)], key: "sys_id"))
                    try session.execute("INSERT INTO \(table) (\(key)) VALUES ('probe')")
                    try session.execute("UPDATE \(table) SET \(key) = 'probed' WHERE \(key) = 'probe'")
                    try session.execute("DELETE FROM \(table) WHERE \(key) = 'probed'")
                } catch {
                    session.rollbackNow()
                    if case .mysql = self { try? session.execute("DROP TABLE IF EXISTS \(table)") }
                    throw error
                }
                session.rollbackNow()
                if case .mysql = self { try session.execute("DROP TABLE IF EXISTS \(table)") }
            }
            return session.loadLabel
        }

        /// The run's session on the database, opened (off the pool) on its first table.
        func session(for context: SinkContext) async throws -> any DatabaseSession {
            switch self {
            case .sqlite(let sqlite, let file):
                try await SQLiteSession.connect(file: file, sqlite: sqlite, context: context)
            case .postgres(let postgres): try await PostgresSession.connect(options: postgres, runID: context.runID)
            case .mysql(let mysql): try await MySQLSession.connect(options: mysql, runID: context.runID)
            }
        }
    }

    /// Where the database is, mode, table name and type-change policy.
    public let database: Database
    /// The table's choice labels (`choice_labels: true`), loaded into `<table>__choices` at ``prepare()``
    /// inside the table's savepoint (``ChoiceLabelLoad``); `nil` for none.
    var choiceLabels: ChoiceLabels?
    private var choiceRows: Int?
    private let label: String
    private var load: DatabaseLoad?
    private var state = State.closed

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink.
    public init(_ database: Database) {
        self.database = database
        label = database.label
    }

    deinit {
        if state == .open || state == .prepared, let load {
            let box = UncheckedBox(load)
            // On the session's worker, like every other call on its connection.
            Task { try? await box.value.session.worker.perform { box.value.abandon() } }
        }
    }

    /// Opens the run's session on the database (on first use: connecting, or creating the SQLite file and
    /// its directory), begins the run's transaction on it and prepares the table (see ``DatabaseLoad``).
    ///
    /// - Throws: ``NowETLError`` naming the database and table (never a password): a SQLite path that is a
    ///   directory, a database that cannot be opened or is locked; a PostgreSQL server that cannot be
    ///   reached (exit 69), refused credentials (77), a missing database (78); a table whose column types
    ///   changed, merge without `sys_id`.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw NowETLError(.misuse, path: label, "\(label) opened twice for \(context.table)")
        }
        let session = try await database.session(for: context)
        let settings = database.load
        let load = DatabaseLoad(
            session: session, table: settings.tableName(for: context.table), settings: settings, context: context)
        self.load = load
        state = .open
        let box = UncheckedBox(load)
        do {
            try await session.worker.perform { try box.value.open(schema: schema) }
        } catch {
            try? await session.worker.perform { box.value.abort() }
            state = .closed
            throw error
        }
    }

    /// Writes the batch's rows into the open transaction.
    public func write(_ batch: RowBatch) async throws {
        guard state == .open, let load else {
            throw NowETLError(.misuse, path: label, "write to a \(label) that is not open")
        }
        let box = UncheckedBox(load)
        let rows = UncheckedBox(batch)
        let loaded = try await load.session.worker.perform {
            try box.value.write(rows.value)
            return box.value.rows + box.value.deleted
        }
        load.context.outputProgress?.send(OutputProgress(output: label, phase: .loading, rows: loaded))
    }

    /// What the open load needs from a scan of the table's filter (``DatabaseLoad`` prunes an
    /// incremental table's copy against one, and backfills columns it gained from one).
    var scanRequest: SourceScan.Request? {
        get async {
            guard state == .open, let load else { return nil }
            let box = UncheckedBox(load)
            return try? await load.session.worker.perform { box.value.scanRequest }
        }
    }

    /// Takes a page of the scan into the open transaction.
    func scanned(_ batch: RowBatch, schema: RowSchema) async throws {
        guard state == .open, let load else {
            throw NowETLError(.misuse, path: label, "scan rows for a \(label) that is not open")
        }
        let box = UncheckedBox(load)
        let rows = UncheckedBox(batch)
        try await load.session.worker.perform { try box.value.scanned(rows.value, schema: schema) }
    }

    /// Keeps the rows of records the run rejected out of a prune.
    func keep(rejected sysIDs: [String]) async throws {
        guard state == .open, let load else { return }
        let box = UncheckedBox(load)
        try await load.session.worker.perform { try box.value.keep(rejected: sysIDs) }
    }

    /// Finishes the table inside the still open transaction (``DatabaseLoad``); nothing is visible to
    /// other connections until ``commitTransaction()``.
    public func prepare() async throws -> PreparedOutput {
        guard state == .open, let load else {
            throw NowETLError(.misuse, path: label, "prepare of a \(label) that is not open")
        }
        let box = UncheckedBox(load)
        // Pruning, backfilling and a swap run in one call to the database: say that they have started.
        let loaded = try await load.session.worker.perform { box.value.rows + box.value.deleted }
        load.context.outputProgress?.send(OutputProgress(output: label, phase: .finishing, rows: loaded))
        do {
            choiceRows = try await load.session.worker.perform { [choiceLabels] in
                let loaded = try box.value.loadChoiceLabels(choiceLabels)
                try box.value.prepare()
                return loaded
            }
        } catch {
            try? await load.session.worker.perform { box.value.abort() }
            state = .closed
            throw error
        }
        state = .prepared
        return PreparedOutput(artifacts: [.databaseTable(tableLoad(load))])
    }

    /// COMMITs the run's transaction on the database (a no-op when another table of the run already did).
    public func commitTransaction() async throws {
        guard state == .prepared, let load else {
            throw NowETLError(.misuse, path: label, "COMMIT of a \(label) that is not prepared")
        }
        let box = UncheckedBox(load)
        try await load.session.worker.perform {
            try box.value.session.commitTransaction(generation: box.value.generation, table: box.value.table)
        }
    }

    /// Returns the table's load; the transaction was committed by ``commitTransaction()`` (a caller
    /// that knows only ``RecordSink`` and did not call it gets the COMMIT here).
    public func commit() async throws -> [Artifact] {
        guard state == .prepared, let load else {
            throw NowETLError(.misuse, path: label, "commit of a \(label) before prepare")
        }
        let box = UncheckedBox(load)
        try await load.session.worker.perform {
            try box.value.session.commitTransaction(generation: box.value.generation, table: box.value.table)
        }
        state = .committed
        return [.databaseTable(tableLoad(load))]
    }

    /// Rolls the table's work back (the run's whole transaction once prepared); nothing after a commit.
    public func abort() async {
        guard state == .open || state == .prepared, let load else { return }
        let box = UncheckedBox(load)
        try? await load.session.worker.perform { box.value.abort() }
        state = .closed
    }

    private func tableLoad(_ load: DatabaseLoad) -> DatabaseTableLoad {
        var entry = DatabaseTableLoad(
            database: load.session.loadLabel, table: load.table, sourceTable: load.context.table, mode: load.mode,
            rows: load.rows, deleted: load.deleted, pruned: load.convergence.pruned,
            backfilled: load.convergence.backfilled, loadID: load.loadKey, skipped: load.skipped,
            recreated: load.recreated)
        entry.choiceLabels = choiceRows
        return entry
    }
}
