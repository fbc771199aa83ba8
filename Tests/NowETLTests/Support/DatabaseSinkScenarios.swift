import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// One database server the sink scenarios of ``DatabaseSinkScenarios`` run against: how to make its
/// sink, how to read it back, and the few names in which the servers' SQL differs.
struct DatabaseSinkTarget {
    /// A sink of the test's database for a load of the mode, with the type-change policy (no prune: the
    /// loads of these tests are changes, not every record of a filter).
    var sink: (DatabaseLoadMode, DatabaseTypeChangePolicy) -> DatabaseSink
    /// Runs SQL with the database's own client; rows one per line, columns separated by `|`, the
    /// trailing newline trimmed.
    var query: (String) async throws -> String
    /// The three rows the scenarios load first (awkward text, big text, NULL).
    var first: [Row]
    /// `incident` as SQL names it (`servicenow.incident`, `incident`).
    var incident: String
    /// The load markers' table as SQL names it.
    var loads: String
    /// The condition on `information_schema`'s `table_schema` that picks this database's tables.
    var schemaCondition: String
    /// SQL that makes the statements after it give up after 5 s of waiting for a lock.
    var lockLimit: String
    /// SQL giving one value that changes when any value of any incident row does.
    var snapshot: String
    /// The rows one statement of the writer loads at most (a COPY chunk, a multi-row INSERT).
    var rowsPerStatement: Int
    /// `information_schema.columns.data_type` of a text column (`text`, `longtext`).
    var textDataType: String
    /// How a type-change error names the text type (`text`, `LONGTEXT`).
    var textTypeName: String
    /// A sink of another URL and password (defaults for everything else), for the connection failures.
    var connect: (_ url: String, _ password: String) -> DatabaseSink
    /// The URL of a database of the test's server (no password in it).
    var url: (_ database: String) -> String
    /// The URL of a database on the loopback port given, where nothing listens.
    var unreachable: (_ port: UInt16) -> String
    /// The test's database's name and password.
    var database: (name: String, password: String)

    /// The sink of `mode`, failing on a type change.
    func sink(_ mode: DatabaseLoadMode) -> DatabaseSink { sink(mode, .fail) }

    /// The last line `sql` prints (a statement before it may print a line of its own).
    func lastLine(_ sql: String) async throws -> String {
        try await query(sql).split(separator: "\n").last.map(String.init) ?? ""
    }

    /// The sys_ids of incident, sorted, comma-separated.
    func incidentIDs() async throws -> String {
        try await ConvergenceScenarios.lines(query, "SELECT sys_id FROM \(incident)").joined(separator: ",")
    }

    /// `information_schema.columns.data_type` of incident's `column`.
    func dataType(_ column: String) async throws -> String {
        try await query(
            "SELECT data_type FROM information_schema.columns WHERE \(schemaCondition) AND table_name = 'incident' "
                + "AND column_name = '\(column)'")
    }
}

/// The sink scenarios every server database (PostgreSQL, MariaDB) runs the same: the sink driven
/// directly with row batches, what it wrote read back by the database's own client
/// (``DatabaseSinkTarget``). Each suite adds the checks only its server can make.
enum DatabaseSinkScenarios {
    /// The scenarios both suites run as one parameterized test.
    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case mergeRerun, batches, abort, atomicReplace, stagedReplace, typeChange, connectionFailures

        var testDescription: String { rawValue }

        func run(_ target: DatabaseSinkTarget) async throws {
            switch self {
            case .mergeRerun: try await mergeRerunChangesNothing(target)
            case .batches: try await batchesLoadMoreThanAStatement(target)
            case .abort: try await anAbortAfterPrepareLeavesThePreviousData(target)
            case .atomicReplace: try await replaceIsAtomicToAConcurrentReader(target)
            case .stagedReplace: try await aStagedReplaceSwapsWithTheCommit(target)
            case .typeChange: try await aNewFieldAddsAColumnAndATypeChangeRecreatesOnlyWhenAsked(target)
            case .connectionFailures: try await connectionFailuresKeepTheirExitCode(target)
            }
        }
    }

    /// A merge rerun of the same load is skipped, a new load of the same rows changes nothing, and a load
    /// of changes applies an update and a deletion.
    static func mergeRerunChangesNothing(_ target: DatabaseSinkTarget) async throws {
        try await SinkRows.load(target.first, into: target.sink(.merge), context: SinkRows.context(loadID: "l1"))
        let before = try await target.query(target.snapshot)
        let skipped = try await SinkRows.load(
            target.first, into: target.sink(.merge), context: SinkRows.context(loadID: "l1"))
        #expect(skipped?.skipped == true)
        let rerun = try await SinkRows.load(
            target.first, into: target.sink(.merge), context: SinkRows.context(loadID: "l2"))
        #expect(rerun?.skipped == false)
        #expect(try await target.query(target.snapshot) == before)
        #expect(try await target.query("SELECT count(*) FROM \(target.incident)") == "3")
        let changes = [
            SinkRows.row("a1", "INC001-changed", priority: 1, notes: "new", deletedAt: .some(nil)),
            SinkRows.row("b2", "INC002", priority: 2, notes: nil, deletedAt: 1_704_067_200),
        ]
        let applied = try await SinkRows.load(
            changes, schema: SinkRows.deletionSchema, into: target.sink(.merge),
            context: SinkRows.context(loadID: "l3"))
        #expect(applied?.deleted == 1)
        #expect(
            try await ConvergenceScenarios.lines(target.query, "SELECT sys_id, number FROM \(target.incident)")
                == ["a1|INC001-changed", "c3|INC003"])
    }

    /// More rows than two statements of the writer take, the last row of a sys_id winning.
    static func batchesLoadMoreThanAStatement(_ target: DatabaseSinkTarget) async throws {
        var rows = (0..<(target.rowsPerStatement * 2 + 7)).map {
            SinkRows.row(String(format: "id%06d", $0), "INC\($0)", priority: $0 % 5, notes: "row \($0)\t\\")
        }
        rows.append(SinkRows.row("id000003", "INC3-again", priority: 9, notes: "later"))
        let load = try await SinkRows.load(rows, into: target.sink(.merge), context: SinkRows.context(loadID: "l1"))
        #expect(load?.rows == rows.count)
        let distinct = rows.count - 1
        let sum = (0..<distinct).reduce(9 - 3) { $0 + $1 % 5 }
        #expect(
            try await target.query("SELECT count(*), sum(priority) FROM \(target.incident)") == "\(distinct)|\(sum)")
        #expect(
            try await target.query("SELECT number, notes FROM \(target.incident) WHERE sys_id = 'id000003'")
                == "INC3-again|later")
    }

    /// A replace aborted after its prepare leaves the previous rows and load markers.
    static func anAbortAfterPrepareLeavesThePreviousData(_ target: DatabaseSinkTarget) async throws {
        try await SinkRows.load(target.first, into: target.sink(.replace), context: SinkRows.context(loadID: "l1"))
        let sink = target.sink(.replace)
        try await SinkRows.prepare(
            [SinkRows.row("z9", "INC009", priority: 4, notes: "never")], into: sink,
            context: SinkRows.context(loadID: "l2"))
        await sink.abort()
        #expect(try await target.incidentIDs() == "a1,b2,c3")
        #expect(try await target.query("SELECT count(*) FROM \(target.loads)") == "1")
    }

    /// A replace of a table with the same columns deletes and loads in the open transaction: another
    /// connection reads the old rows whole until the COMMIT, without waiting for a lock (its client gives
    /// up after 5 s of waiting, so a reader that had to wait would fail here).
    static func replaceIsAtomicToAConcurrentReader(_ target: DatabaseSinkTarget) async throws {
        try await SinkRows.load(target.first, into: target.sink(.replace), context: SinkRows.context(loadID: "l1"))
        let sink = target.sink(.replace)
        try await SinkRows.write(
            (0..<4).map { SinkRows.row("n\($0)", "NEW\($0)", priority: 1, notes: nil) }, into: sink,
            context: SinkRows.context(loadID: "l2"))
        let read = target.lockLimit + "; SELECT count(*), sum(priority) FROM \(target.incident)"
        #expect(try await target.lastLine(read) == "3|6")
        _ = try await sink.prepare()
        #expect(try await target.lastLine(read) == "3|6")
        try await sink.commitTransaction()
        _ = try await sink.commit()
        #expect(try await target.lastLine(read) == "4|4")
    }

    /// A replace whose columns changed loads a staging table and swaps it in with the COMMIT: until then
    /// readers read the old table without waiting for a lock; no staging table is left.
    static func aStagedReplaceSwapsWithTheCommit(_ target: DatabaseSinkTarget) async throws {
        try await SinkRows.load(target.first, into: target.sink(.replace), context: SinkRows.context(loadID: "l1"))
        let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
        let sink = target.sink(.replace)
        var row = SinkRows.row("n1", "NEW1", priority: 9, notes: nil)
        row.values.append(.string("network"))
        try await SinkRows.prepare([row], schema: wider, into: sink, context: SinkRows.context(loadID: "l2"))
        let read = target.lockLimit + "; SELECT count(*), sum(priority) FROM \(target.incident)"
        #expect(try await target.lastLine(read) == "3|6")
        try await sink.commitTransaction()
        _ = try await sink.commit()
        #expect(try await target.lastLine(read) == "1|9")
        #expect(try await target.query("SELECT category FROM \(target.incident)") == "network")
        #expect(
            try await target.query(
                "SELECT count(*) FROM information_schema.tables WHERE \(target.schemaCondition) AND "
                    + "table_name LIKE 'incident\\_\\_%'") == "0")
    }

    /// A new field adds a column; a field whose type changed fails the load naming the column and both
    /// types, leaving the table as it was, unless `on_type_change: recreate` asks to rebuild it.
    static func aNewFieldAddsAColumnAndATypeChangeRecreatesOnlyWhenAsked(_ target: DatabaseSinkTarget) async throws {
        try await SinkRows.load(target.first, into: target.sink(.merge), context: SinkRows.context(loadID: "l1"))
        let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
        var rows = target.first
        rows[0].values.append(.string("network"))
        for index in 1..<rows.count { rows[index].values.append(nil) }
        var added = SinkRows.row("d4", "INC004", priority: 4, notes: nil)
        added.values.append(.string("network"))
        try await SinkRows.load(
            rows + [added], schema: wider, into: target.sink(.merge), context: SinkRows.context(loadID: "l2"))
        #expect(try await target.query("SELECT count(*), count(category) FROM \(target.incident)") == "4|2")
        #expect(try await target.query("SELECT category FROM \(target.incident) WHERE sys_id = 'a1'") == "network")
        var columns = SinkRows.schema.columns
        columns[2] = ColumnSchema(name: "priority", type: .string)
        let retyped = RowSchema(columns: columns)
        var text = SinkRows.row("e5", "INC005", priority: 5, notes: nil)
        text.values[2] = .string("high")
        await #expect {
            try await SinkRows.load(
                [text], schema: retyped, into: target.sink(.merge), context: SinkRows.context(loadID: "l3"))
        } throws: { error in
            let message = "\(error)"
            return error is NowETLError && message.contains("incident") && message.contains("priority")
                && message.contains("BIGINT") && message.contains(target.textTypeName)
        }
        #expect(try await target.query("SELECT count(*) FROM \(target.incident)") == "4")
        #expect(try await target.dataType("priority") == "bigint")
        let recreated = try await SinkRows.load(
            [text], schema: retyped, into: target.sink(.merge, .recreate), context: SinkRows.context(loadID: "l4"))
        #expect(recreated?.recreated == true)
        #expect(try await target.dataType("priority") == target.textDataType)
        #expect(try await target.query("SELECT sys_id, priority FROM \(target.incident)") == "e5|high")
    }

    /// A wrong password (77), a missing database (78) and a port nothing listens on (69) fail the sink's
    /// open with their exit codes, never showing the password.
    static func connectionFailuresKeepTheirExitCode(_ target: DatabaseSinkTarget) async throws {
        let wrong = "Wr0ng-\(UUID().uuidString.prefix(8))"
        let refused = try RefusedPort()
        let cases: [(url: String, password: String, status: Int32, names: String)] = [
            (target.url(target.database.name), wrong, 77, "127.0.0.1"),
            (target.url("no_such_db"), target.database.password, 78, "no_such_db"),
            (target.unreachable(refused.port), wrong, 69, "127.0.0.1"),
        ]
        for (index, item) in cases.enumerated() {
            await #expect {
                try await target.connect(item.url, item.password).open(
                    schema: SinkRows.schema, context: SinkRows.context(loadID: "x\(index)"))
            } throws: { error in
                guard let error = error as? NowETLError else { return false }
                return error.exitCode == item.status && error.description.contains(item.names)
                    && !error.description.contains(item.password)
            }
        }
    }
}
