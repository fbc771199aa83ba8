import Foundation
import NowQuery

/// A ``TransactionalSink`` loading a table's rows into a table of a SQLite database (see
/// ``DatabaseLoad`` for the modes, the schema evolution and the load marker, ``SQLiteDialect`` for
/// the column types).
///
/// The database file is ``FileSinkOptions/path`` under ``FileSinkOptions/outputDirectory``; the
/// tables of one run that load the same file share one connection and one transaction
/// (``SQLiteSession``), COMMITted by ``commitTransaction()`` before the run writes its commit record.
/// Concurrent readers (other connections, WAL mode) see the database as of the last commit.
public final class SQLiteSink: TransactionalSink {
    /// Where the database is.
    public let options: FileSinkOptions
    /// Mode, table name and type-change policy.
    public let sqlite: SQLiteSinkOptions
    private var load: DatabaseLoad?
    private var state = State.closed

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink.
    public init(options: FileSinkOptions, sqlite: SQLiteSinkOptions) {
        self.options = options
        self.sqlite = sqlite
    }

    deinit { if state == .open || state == .prepared { load?.abort() } }

    /// Opens the database (creating it and its directory when missing), begins the run's transaction
    /// on it and prepares the table (see ``DatabaseLoad``).
    ///
    /// - Throws: ``SinkError`` naming the file and table: a path that is a directory, a database that
    ///   cannot be opened or is locked, a table whose column types changed, merge without `sys_id`.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw SinkError(.misuse, path: options.path.text, "SQLite sink opened twice for \(context.table)")
        }
        let runDate = TableAPIDateFormat.dateString(fromSeconds: context.runStartedSeconds)
        let relative = try options.path.resolve(table: context.table, runDate: runDate, runID: context.runID)
        let path = RunCommit.absolute(options.outputDirectory) + "/" + relative
        let session = try SQLiteSession.shared(
            path: path, runID: context.runID, busyTimeoutMilliseconds: sqlite.busyTimeoutMilliseconds)
        let load = DatabaseLoad(
            session: session, table: sqlite.tableName(for: context.table), mode: sqlite.mode,
            onTypeChange: sqlite.onTypeChange, context: context)
        self.load = load
        state = .open
        do {
            try load.open(schema: schema)
        } catch {
            load.abort()
            state = .closed
            throw error
        }
    }

    /// Writes the batch's rows into the open transaction.
    public func write(_ batch: RowBatch) async throws {
        guard state == .open, let load else {
            throw SinkError(.misuse, path: options.path.text, "write to a SQLite sink that is not open")
        }
        try load.write(batch)
    }

    /// Finishes the table inside the still open transaction (``DatabaseLoad``); nothing is visible
    /// to other connections until ``commitTransaction()``.
    public func prepare() async throws -> PreparedOutput {
        guard state == .open, let load else {
            throw SinkError(.misuse, path: options.path.text, "prepare of a SQLite sink that is not open")
        }
        do {
            try load.prepare()
        } catch {
            load.abort()
            state = .closed
            throw error
        }
        state = .prepared
        return PreparedOutput(artifacts: [.databaseTable(tableLoad(load))])
    }

    /// COMMITs the run's transaction on the database (a no-op when another table of the run already did).
    public func commitTransaction() async throws {
        guard state == .prepared, let load else {
            throw SinkError(.misuse, path: options.path.text, "COMMIT of a SQLite sink that is not prepared")
        }
        try load.session.commitTransaction()
    }

    /// Returns the table's load; the transaction was committed by ``commitTransaction()`` (a caller
    /// that knows only ``RecordSink`` and did not call it gets the COMMIT here).
    public func commit() async throws -> [Artifact] {
        guard state == .prepared, let load else {
            throw SinkError(.misuse, path: options.path.text, "commit of a SQLite sink before prepare")
        }
        if load.session.inTransaction { try load.session.commitTransaction() }
        state = .committed
        return [.databaseTable(tableLoad(load))]
    }

    /// Rolls the table's work back (the run's whole transaction once prepared); nothing after a commit.
    public func abort() async {
        guard state == .open || state == .prepared else { return }
        load?.abort()
        state = .closed
    }

    private func tableLoad(_ load: DatabaseLoad) -> DatabaseTableLoad {
        DatabaseTableLoad(
            database: load.session.name, table: load.table, sourceTable: load.context.table, mode: load.mode,
            rows: load.rows, deleted: load.deleted, loadID: load.loadKey, skipped: load.skipped,
            recreated: load.recreated)
    }
}
