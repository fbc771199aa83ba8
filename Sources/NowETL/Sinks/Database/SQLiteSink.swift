import Foundation
import NowQuery

/// A ``TransactionalSink`` loading a table's rows into a table of a SQLite database (see
/// ``DatabaseLoad`` for the modes, the schema evolution and the load marker, ``SQLiteDialect`` for
/// the column types).
///
/// The database file is ``FileSinkOptions/path`` under ``FileSinkOptions/outputDirectory``; the
/// tables of one run that load the same file share one connection and one transaction
/// (``SQLiteSession``), COMMITted by ``commitTransaction()`` before the run writes its commit record.
/// Every SQLite call runs on the session's ``BlockingWorker``, so waiting for another writer's lock
/// never blocks the concurrency pool.
/// Concurrent readers (other connections, WAL mode) see the database as of the last commit.
public final class SQLiteSink: TransactionalSink {
    /// Where the database is.
    public let options: FileSinkOptions
    /// Mode, table name and type-change policy.
    public let sqlite: SQLiteSinkOptions
    private let core: DatabaseSink

    /// Creates a sink.
    public init(options: FileSinkOptions, sqlite: SQLiteSinkOptions) {
        self.options = options
        self.sqlite = sqlite
        core = DatabaseSink(
            label: "SQLite output \(options.path.text)", mode: sqlite.mode, onTypeChange: sqlite.onTypeChange,
            tableName: sqlite.tableName(for:)
        ) { context in
            let runDate = TableAPIDateFormat.dateString(fromSeconds: context.runStartedSeconds)
            let relative = try options.path.resolve(table: context.table, runDate: runDate, runID: context.runID)
            let path = RunCommit.absolute(options.outputDirectory) + "/" + relative
            return try await BlockingWorker.detached { () throws(NowETLError) in
                try SQLiteSession.shared(
                    path: path, runID: context.runID, busyTimeoutMilliseconds: sqlite.busyTimeoutMilliseconds,
                    fileMode: options.fileMode)
            }
        }
    }

    /// Opens the database (creating it and its directory when missing), begins the run's transaction
    /// on it and prepares the table (see ``DatabaseLoad``).
    ///
    /// - Throws: ``NowETLError`` naming the file and table: a path that is a directory, a database that
    ///   cannot be opened or is locked, a table whose column types changed, merge without `sys_id`.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        try await core.open(schema: schema, context: context)
    }

    /// Writes the batch's rows into the open transaction.
    public func write(_ batch: RowBatch) async throws { try await core.write(batch) }

    /// Finishes the table inside the still open transaction (``DatabaseLoad``); nothing is visible
    /// to other connections until ``commitTransaction()``.
    public func prepare() async throws -> PreparedOutput { try await core.prepare() }

    /// COMMITs the run's transaction on the database (a no-op when another table of the run already did).
    public func commitTransaction() async throws { try await core.commitTransaction() }

    /// Returns the table's load; the transaction was committed by ``commitTransaction()`` (a caller
    /// that knows only ``RecordSink`` and did not call it gets the COMMIT here).
    public func commit() async throws -> [Artifact] { try await core.commit() }

    /// Rolls the table's work back (the run's whole transaction once prepared); nothing after a commit.
    public func abort() async { await core.abort() }
}
