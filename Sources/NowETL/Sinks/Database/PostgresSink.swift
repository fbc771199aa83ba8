import Foundation
import NowQuery

/// A ``TransactionalSink`` loading a table's rows into a table of a PostgreSQL schema (see
/// ``DatabaseLoad`` for the modes, the schema evolution and the load marker, ``PostgresDialect`` for
/// the column types).
///
/// The tables of one run that load the same database and schema share one connection and one
/// transaction (``PostgresSession``), COMMITted by ``commitTransaction()`` before the run writes its
/// commit record. Every libpq call runs on the session's queue, off the concurrency pool.
public final class PostgresSink: TransactionalSink {
    /// Where the database is, mode, table name and type-change policy.
    public let postgres: PostgresSinkOptions
    private var load: DatabaseLoad?
    private var session: PostgresSession?
    private var state = State.closed

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink.
    public init(postgres: PostgresSinkOptions) {
        self.postgres = postgres
    }

    deinit {
        if state == .open || state == .prepared, let load, let session {
            let box = LoadBox(load: load)
            // Rolled back on the session's queue, like every other call on its connection.
            Task { try? await session.perform { box.load.abort() } }
        }
    }

    private var label: String { "PostgreSQL output (schema \(postgres.schema))" }

    /// Connects (on first use in the run), begins the run's transaction and prepares the table.
    ///
    /// - Throws: ``SinkError`` naming host and database (never the password), with exit code 69 when
    ///   the server cannot be reached, 77 for refused credentials, 78 for a missing database; a table
    ///   whose column types changed, merge without `sys_id`.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw SinkError(.misuse, path: label, "PostgreSQL sink opened twice for \(context.table)")
        }
        let session = try await PostgresSession.connect(options: postgres, runID: context.runID)
        let load = DatabaseLoad(
            session: session, table: postgres.tableName(for: context.table), mode: postgres.mode,
            onTypeChange: postgres.onTypeChange, context: context)
        self.session = session
        self.load = load
        state = .open
        let box = LoadBox(load: load)
        do {
            try await session.perform { try box.load.open(schema: schema) }
        } catch {
            try? await session.perform { box.load.abort() }
            state = .closed
            throw error
        }
    }

    /// Writes the batch's rows into the open transaction.
    public func write(_ batch: RowBatch) async throws {
        guard state == .open, let load, let session else {
            throw SinkError(.misuse, path: label, "write to a PostgreSQL sink that is not open")
        }
        let box = LoadBox(load: load)
        let rows = BatchBox(batch: batch)
        try await session.perform { try box.load.write(rows.batch) }
    }

    /// Finishes the table inside the still open transaction; nothing is visible to other connections
    /// until ``commitTransaction()``.
    public func prepare() async throws -> PreparedOutput {
        guard state == .open, let load, let session else {
            throw SinkError(.misuse, path: label, "prepare of a PostgreSQL sink that is not open")
        }
        let box = LoadBox(load: load)
        do {
            try await session.perform { try box.load.prepare() }
        } catch {
            try? await session.perform { box.load.abort() }
            state = .closed
            throw error
        }
        state = .prepared
        return PreparedOutput(artifacts: [.databaseTable(tableLoad(load))])
    }

    /// COMMITs the run's transaction on the database (a no-op when another table of the run already did).
    public func commitTransaction() async throws {
        guard state == .prepared, let session else {
            throw SinkError(.misuse, path: label, "COMMIT of a PostgreSQL sink that is not prepared")
        }
        try await session.perform { try session.commitTransaction() }
    }

    /// Returns the table's load; the transaction was committed by ``commitTransaction()`` (a caller
    /// that knows only ``RecordSink`` gets the COMMIT here).
    public func commit() async throws -> [Artifact] {
        guard state == .prepared, let load, let session else {
            throw SinkError(.misuse, path: label, "commit of a PostgreSQL sink before prepare")
        }
        try await session.perform { if session.inTransaction { try session.commitTransaction() } }
        state = .committed
        return [.databaseTable(tableLoad(load))]
    }

    /// Rolls the table's work back (the run's whole transaction once prepared); nothing after a commit.
    public func abort() async {
        guard state == .open || state == .prepared, let load, let session else { return }
        let box = LoadBox(load: load)
        try? await session.perform { box.load.abort() }
        state = .closed
    }

    private func tableLoad(_ load: DatabaseLoad) -> DatabaseTableLoad {
        DatabaseTableLoad(
            database: load.session.name + "/" + postgres.schema, table: load.table, sourceTable: load.context.table,
            mode: load.mode, rows: load.rows, deleted: load.deleted, loadID: load.loadKey, skipped: load.skipped,
            recreated: load.recreated)
    }
}

/// A load handed to its session's queue; the sink waits for each call, so one thread uses it at a time.
private struct LoadBox: @unchecked Sendable {
    let load: DatabaseLoad
}

/// A batch handed to the session's queue for the length of one write.
private struct BatchBox: @unchecked Sendable {
    let batch: RowBatch
}
