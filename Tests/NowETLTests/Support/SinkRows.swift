import Foundation

@testable import NowETL

/// The rows, contexts and load steps of the database sink suites (SinkSQLiteTests, SinkPostgresTests):
/// one schema with a column of every type, so both databases are checked with the same values.
enum SinkRows {
    /// sys_id, number, then one column of each typed kind, and free text.
    static let schema = RowSchema(columns: [
        ColumnSchema(name: "sys_id"), ColumnSchema(name: "number"), ColumnSchema(name: "priority", type: .int),
        ColumnSchema(name: "cost", type: .decimal), ColumnSchema(name: "active", type: .bool),
        ColumnSchema(name: "opened_at", type: .dateTime), ColumnSchema(name: "due", type: .date),
        ColumnSchema(name: "time_worked", type: .duration), ColumnSchema(name: "notes"),
    ])

    /// ``schema`` with the deletion column of a table whose deletes are exported.
    static let deletionSchema = RowSchema(
        columns: schema.columns + [ColumnSchema(name: TablePlan.deletedAtColumn, type: .dateTime)])

    /// A note larger than any buffer of a writer in between.
    static let big = String(repeating: "0123456789abcdef🙂", count: 3_000)  // 63 KB of UTF-8

    /// The three rows the sink suites load first: `a1` with `notes` (the awkward text the database keeps),
    /// `b2` with ``big`` notes, `c3` with NULL notes.
    static func first(notes: String) -> [Row] {
        [
            row("a1", "INC001", priority: 1, notes: notes), row("b2", "INC002", priority: 2, notes: big),
            row("c3", "INC003", priority: 3, notes: nil),
        ]
    }

    /// A row of ``schema`` whose typed values follow `priority`; `deletedAt` (when given) adds the
    /// deletion column's value (`.some(nil)`: a record that is not deleted).
    static func row(_ id: String, _ number: String, priority: Int, notes: String?, deletedAt: Int?? = nil) -> Row {
        var values: [ColumnValue?] = [
            .string(id), .string(number), .int(priority), .decimal("12.50"), .bool(priority == 1),
            .dateTime(secondsSinceEpoch: 1_704_067_200 + priority * 3_600), .date(daysSinceEpoch: 19_723 + priority),
            .duration(seconds: 93_784), notes.map(ColumnValue.string),
        ]
        if let deletedAt { values.append(deletedAt.map { .dateTime(secondsSinceEpoch: $0) }) }
        return Row(values: values)
    }

    /// The context of the load `loadID` of `table`, in the run `runID` (`run-<loadID>` by default: a
    /// run of its own; tables given one run share its transaction).
    static func context(loadID: String, table: String = "incident", runID: String? = nil) -> SinkContext {
        SinkContext(
            table: table, runID: runID ?? "run-\(loadID)", runStarted: SinkTestSupport.runStarted, loadID: loadID)
    }

    /// Loads `rows` into a database sink (open, write in batches of 2, prepare, COMMIT, commit) and
    /// returns the table's load.
    @discardableResult
    static func load(
        _ rows: [Row], schema: RowSchema = schema, into sink: some TransactionalSink, context: SinkContext
    ) async throws -> DatabaseTableLoad? {
        try await sink.open(schema: schema, context: context)
        do {
            var batch = RowBatch(schema: schema, capacity: 2)
            for row in rows {
                batch.append(row)
                if batch.count == 2 {
                    try await sink.write(batch)
                    batch.removeAll()
                }
            }
            if !batch.isEmpty { try await sink.write(batch) }
            _ = try await sink.prepare()
            try await sink.commitTransaction()
            return try await sink.commit().first?.databaseTable
        } catch {
            await sink.abort()
            throw error
        }
    }

    /// Opens `sink` and writes `rows` in one batch: a table mid-load, neither prepared nor committed.
    static func write(
        _ rows: [Row], schema: RowSchema = schema, into sink: some TransactionalSink, context: SinkContext
    ) async throws {
        try await sink.open(schema: schema, context: context)
        var batch = RowBatch(schema: schema, capacity: rows.count)
        for row in rows { batch.append(row) }
        try await sink.write(batch)
    }

    /// ``write(_:schema:into:context:)``, then prepares: the table waits in the run's open transaction
    /// for its COMMIT.
    static func prepare(
        _ rows: [Row], schema: RowSchema = schema, into sink: some TransactionalSink, context: SinkContext
    ) async throws {
        try await write(rows, schema: schema, into: sink, context: context)
        _ = try await sink.prepare()
    }

    /// The bytes of `text` in upper-case hex: how the suites compare text a database gives back.
    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }
}
