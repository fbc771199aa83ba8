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
    private let core: DatabaseSink

    /// Creates a sink.
    public init(postgres: PostgresSinkOptions) {
        self.postgres = postgres
        core = DatabaseSink(
            label: "PostgreSQL output (schema \(postgres.schema))", mode: postgres.mode,
            onTypeChange: postgres.onTypeChange, tableName: postgres.tableName(for:)
        ) { context in
            try await PostgresSession.connect(options: postgres, runID: context.runID)
        }
    }

    /// Connects (on first use in the run), begins the run's transaction and prepares the table.
    ///
    /// - Throws: ``NowETLError`` naming host and database (never the password), with exit code 69 when
    ///   the server cannot be reached, 77 for refused credentials, 78 for a missing database; a table
    ///   whose column types changed, merge without `sys_id`.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        try await core.open(schema: schema, context: context)
    }

    /// Writes the batch's rows into the open transaction.
    public func write(_ batch: RowBatch) async throws { try await core.write(batch) }

    /// Finishes the table inside the still open transaction; nothing is visible to other connections
    /// until ``commitTransaction()``.
    public func prepare() async throws -> PreparedOutput { try await core.prepare() }

    /// COMMITs the run's transaction on the database (a no-op when another table of the run already did).
    public func commitTransaction() async throws { try await core.commitTransaction() }

    /// Returns the table's load; the transaction was committed by ``commitTransaction()`` (a caller
    /// that knows only ``RecordSink`` gets the COMMIT here).
    public func commit() async throws -> [Artifact] { try await core.commit() }

    /// Rolls the table's work back (the run's whole transaction once prepared); nothing after a commit.
    public func abort() async { await core.abort() }
}
