import Foundation
import NowSQLite
import NowSimTesting
import Testing

@testable import NowETL

/// The SQLite sink driven directly with row batches; what it wrote is read back with the `sqlite3`
/// command-line tool, an independent reader.
@Suite(.timeLimit(.minutes(5))) struct SinkSQLiteTests {
    static let awkward = "quote \" apostrophe ' comma , semicolon ; newline \n tab \t crlf \r\n émoji 👩‍👩‍👧 NUL \u{0} end"

    static let first = SinkRows.first(notes: awkward)

    /// A sink of `report.db`. The loads of these tests are changes, not every record of a filter: no
    /// prune (`prune: never`) unless a test asks.
    static func sink(
        _ directory: String, _ mode: DatabaseLoadMode, onTypeChange: DatabaseTypeChangePolicy = .fail,
        prune: DatabasePrunePolicy = .never
    ) throws -> DatabaseSink {
        DatabaseSink(
            .sqlite(
                SQLiteSinkOptions(mode: mode, onTypeChange: onTypeChange, prune: prune),
                file: try SinkTestSupport.options(directory, "report.db")))
    }

    /// `sqlite3 -batch` output of `sql` on the database (rows on lines, columns separated by `|`).
    static func query(_ directory: String, _ sql: String) async throws -> String {
        let out = try await SinkTestSupport.output("sqlite3", ["-batch", directory + "/report.db", sql])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test func mergeWritesTypedColumnsThatAnotherReaderReadsAsTypes() async throws {
        try await withScratchDirectory { (directory: String) in
            let load = try await SinkRows.load(
                Self.first, into: Self.sink(directory, .merge), context: SinkRows.context(loadID: "L1"))
            #expect(load?.rows == 3 && load?.table == "incident" && load?.skipped == false)
            #expect(
                try await Self.query(
                    directory,
                    "SELECT typeof(sys_id), typeof(priority), typeof(cost), typeof(active), typeof(opened_at), "
                        + "typeof(due), typeof(time_worked), typeof(notes) FROM incident WHERE sys_id = 'a1'")
                    == "text|integer|real|integer|text|text|integer|text")
            #expect(
                try await Self.query(
                    directory, "SELECT opened_at, due, active, cost, time_worked FROM incident ORDER BY sys_id")
                    == "2024-01-01 01:00:00|2024-01-02|1|12.5|93784\n2024-01-01 02:00:00|2024-01-03|0|12.5|93784\n"
                    + "2024-01-01 03:00:00|2024-01-04|0|12.5|93784")
            #expect(
                try await Self.query(directory, "SELECT count(*) FROM incident WHERE opened_at > '2024-01-01 01:30:00'")
                    == "2")
            #expect(
                try await Self.query(
                    directory, "SELECT sum(priority), sum(cost), max(datetime(opened_at, '+1 day')) FROM incident")
                    == "6|37.5|2024-01-02 03:00:00")
            // Text comes back byte for byte: awkward characters, an embedded NUL, 63 KB, a NULL.
            #expect(
                try await Self.query(directory, "SELECT hex(notes) FROM incident WHERE sys_id = 'a1'")
                    == SinkRows.hex(Self.awkward))
            #expect(
                try await Self.query(directory, "SELECT length(CAST(notes AS BLOB)) FROM incident WHERE sys_id = 'b2'")
                    == String(SinkRows.big.utf8.count))
            #expect(try await Self.query(directory, "SELECT notes IS NULL FROM incident WHERE sys_id = 'c3'") == "1")
            #expect(
                try await Self.query(directory, "SELECT pk FROM pragma_table_info('incident') WHERE name = 'sys_id'")
                    == "1"
            )
            #expect(
                try await Self.query(directory, "SELECT load_id, table_name, run_id, mode, rows FROM _nowetl_loads")
                    == "L1:incident|incident|run-L1|merge|3")
        }
    }

    @Test func mergeUpsertsBySysIDAndAppliesDeletions() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = try Self.sink(directory, .merge)
            try await SinkRows.load(
                Self.first.map { Row(values: $0.values + [nil]) }, schema: SinkRows.deletionSchema, into: sink,
                context: SinkRows.context(loadID: "L1"))
            let deletion = Row(
                values: [.string("c3")] + Array(repeating: nil, count: 8) + [.dateTime(secondsSinceEpoch: 5)])
            let changes = [
                SinkRows.row("b2", "INC002", priority: 4, notes: "changed", deletedAt: .some(nil)),
                SinkRows.row("d4", "INC004", priority: 1, notes: "new", deletedAt: .some(nil)), deletion,
            ]
            let load = try await SinkRows.load(
                changes, schema: SinkRows.deletionSchema, into: sink, context: SinkRows.context(loadID: "L2"))
            #expect(load?.rows == 2 && load?.deleted == 1)
            #expect(
                try await Self.query(
                    directory, "SELECT sys_id, number, priority, hex(notes) FROM incident ORDER BY sys_id")
                    == "a1|INC001|1|\(SinkRows.hex(Self.awkward))\nb2|INC002|4|\(SinkRows.hex("changed"))\nd4|INC004|1|\(SinkRows.hex("new"))"
            )
            // The deletion column is not a column of the merged table.
            #expect(
                try await Self.query(
                    directory, "SELECT count(*) FROM pragma_table_info('incident') WHERE name = '_deleted_at'")
                    == "0")
        }
    }

    @Test func aLoadAlreadyRecordedIsSkipped() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = try Self.sink(directory, .append)
            try await SinkRows.load(Self.first, into: sink, context: SinkRows.context(loadID: "same"))
            let again = try await SinkRows.load(
                [SinkRows.row("z9", "INC999", priority: 9, notes: nil)], into: sink,
                context: SinkRows.context(loadID: "same"))
            #expect(again?.skipped == true && again?.rows == 0)
            #expect(
                try await Self.query(directory, "SELECT count(*), group_concat(sys_id) FROM incident") == "3|a1,b2,c3")
            #expect(try await Self.query(directory, "SELECT count(*) FROM _nowetl_loads") == "1")
            // Another load id (the next run) loads.
            try await SinkRows.load(
                [SinkRows.row("z9", "INC999", priority: 9, notes: nil)], into: sink,
                context: SinkRows.context(loadID: "next"))
            #expect(try await Self.query(directory, "SELECT count(*) FROM incident") == "4")
        }
    }

    @Test func appendKeepsEveryRowAndTheDeletionColumn() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = try Self.sink(directory, .append)
            let rows = Self.first.map { Row(values: $0.values + [nil]) }
            try await SinkRows.load(
                rows, schema: SinkRows.deletionSchema, into: sink, context: SinkRows.context(loadID: "L1"))
            let deletion = Row(
                values: [.string("c3")] + Array(repeating: nil, count: 8) + [.dateTime(secondsSinceEpoch: 5)])
            try await SinkRows.load(
                rows + [deletion], schema: SinkRows.deletionSchema, into: sink, context: SinkRows.context(loadID: "L2"))
            #expect(
                try await Self.query(
                    directory,
                    "SELECT count(*), count(DISTINCT sys_id), count(_deleted_at), max(_deleted_at) FROM incident"
                )
                    == "7|3|1|1970-01-01 00:00:05")
        }
    }

    @Test func replaceSwapsTheTableAtOnceForAConcurrentReader() async throws {
        try await withScratchDirectory { (directory: String) in
            try await SinkRows.load(
                Self.first, into: Self.sink(directory, .replace), context: SinkRows.context(loadID: "L1"))
            let sink = try Self.sink(directory, .replace)
            try await SinkRows.write(
                (0..<500).map { SinkRows.row("n\($0)", "NEW\($0)", priority: 7, notes: nil) }, into: sink,
                context: SinkRows.context(loadID: "L2"))
            // Mid-load and after prepare, another process reads the old table whole.
            #expect(try await Self.query(directory, "SELECT count(*), sum(priority) FROM incident") == "3|6")
            _ = try await sink.prepare()
            #expect(try await Self.query(directory, "SELECT count(*), sum(priority) FROM incident") == "3|6")
            try await sink.commitTransaction()
            _ = try await sink.commit()
            #expect(try await Self.query(directory, "SELECT count(*), sum(priority) FROM incident") == "500|3500")
            #expect(
                try await Self.query(directory, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%nowetl_new%'")
                    == "0")
        }
    }

    /// Replace into the same columns loads in place, keeping a user's index; new columns swap a new
    /// table in, and a reader's view keeps working through both.
    @Test func replaceKeepsAReadersViewAndIndexWorking() async throws {
        try await withScratchDirectory { (directory: String) in
            try await SinkRows.load(
                Self.first, into: Self.sink(directory, .replace), context: SinkRows.context(loadID: "L1"))
            _ = try await Self.query(
                directory,
                "CREATE VIEW urgent AS SELECT number FROM incident WHERE priority = 1; "
                    + "CREATE INDEX by_priority ON incident (priority)")
            try await SinkRows.load(
                [SinkRows.row("x", "INC100", priority: 1, notes: nil)], into: Self.sink(directory, .replace),
                context: SinkRows.context(loadID: "L2"))
            #expect(try await Self.query(directory, "SELECT number FROM urgent") == "INC100")
            #expect(
                try await Self.query(directory, "SELECT count(*) FROM sqlite_master WHERE name = 'by_priority'") == "1")
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
            var row = SinkRows.row("y", "INC200", priority: 1, notes: nil)
            row.values.append(.string("network"))
            try await SinkRows.load(
                [row], schema: wider, into: Self.sink(directory, .replace), context: SinkRows.context(loadID: "L3"))
            #expect(try await Self.query(directory, "SELECT number FROM urgent") == "INC200")
            #expect(try await Self.query(directory, "SELECT category FROM incident") == "network")
        }
    }

    @Test(arguments: [DatabaseLoadMode.merge, .replace, .append])
    func abortLeavesThePreviousData(_ mode: DatabaseLoadMode) async throws {
        try await withScratchDirectory { (directory: String) in
            try await SinkRows.load(
                Self.first, into: Self.sink(directory, mode), context: SinkRows.context(loadID: "L1"))
            let sink = try Self.sink(directory, mode)
            try await SinkRows.prepare(
                [
                    SinkRows.row("a1", "CHANGED", priority: 9, notes: nil),
                    SinkRows.row("q7", "INC777", priority: 9, notes: nil),
                ], into: sink, context: SinkRows.context(loadID: "L2"))
            await sink.abort()
            #expect(
                try await Self.query(directory, "SELECT group_concat(number) FROM incident") == "INC001,INC002,INC003")
            #expect(try await Self.query(directory, "SELECT count(*) FROM _nowetl_loads") == "1")
            // The database is free again: the next load goes through.
            try await SinkRows.load(
                [SinkRows.row("q7", "INC777", priority: 9, notes: nil)], into: sink,
                context: SinkRows.context(loadID: "L3"))
        }
    }

    @Test func aNewColumnIsAddedAndAChangedTypeIsAnErrorNamingIt() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = try Self.sink(directory, .merge)
            try await SinkRows.load(Self.first, into: sink, context: SinkRows.context(loadID: "L1"))
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "u_extra", type: .int)])
            try await SinkRows.load(
                [Row(values: SinkRows.row("e5", "INC005", priority: 5, notes: nil).values + [.int(42)])], schema: wider,
                into: sink, context: SinkRows.context(loadID: "L2"))
            #expect(
                try await Self.query(directory, "SELECT sys_id, quote(u_extra) FROM incident ORDER BY sys_id")
                    == "a1|NULL\nb2|NULL\nc3|NULL\ne5|42")
            var changed = SinkRows.schema
            changed.columns[2].type = .string
            do {
                try await SinkRows.load(
                    [Row(values: [.string("f6"), nil, .string("high")] + Array(repeating: nil, count: 6))],
                    schema: changed,
                    into: sink, context: SinkRows.context(loadID: "L3"))
                Issue.record("a changed column type loaded")
            } catch let error as NowETLError {
                #expect(error.code == .database)
                #expect(
                    error.message.contains(
                        "table incident in \(directory)/report.db: column priority is INTEGER in the "
                            + "database, the pipeline now gives it TEXT (string)"))
            }
            #expect(try await Self.query(directory, "SELECT count(*) FROM incident") == "4")
            let recreating = try Self.sink(directory, .merge, onTypeChange: .recreate)
            let load = try await SinkRows.load(
                [Row(values: [.string("f6"), nil, .string("high")] + Array(repeating: nil, count: 6))], schema: changed,
                into: recreating, context: SinkRows.context(loadID: "L4"))
            #expect(load?.recreated == true)
            #expect(
                try await Self.query(directory, "SELECT sys_id, typeof(priority), priority FROM incident")
                    == "f6|text|high"
            )
        }
    }

    /// A table loading two tables of one database whose second output fails after the first was
    /// prepared: both outputs undo their work, and the table before it in the run (`--keep-going`
    /// commits it) keeps its rows.
    @Test func aFailedTableWithTwoOutputsInOneDatabaseUndoesItselfOnlyAndEarlierTablesKeepTheirRows() async throws {
        try await withScratchDirectory { (directory: String) in
            let incidentContext = SinkRows.context(loadID: "I1", runID: "run-shared")
            let problem = try Self.sink(directory, .merge)
            try await SinkRows.prepare(
                [Self.first[0]], into: problem,
                context: SinkRows.context(loadID: "P1", table: "problem", runID: "run-shared"))
            let merged = try Self.sink(directory, .merge)
            let logged = DatabaseSink(
                .sqlite(
                    SQLiteSinkOptions(mode: .append, tableName: "{table}_log"),
                    file: try SinkTestSupport.options(directory, "report.db")))
            // Both outputs open before either writes, as a table's pipeline opens them.
            try await merged.open(schema: SinkRows.schema, context: incidentContext)
            try await logged.open(schema: SinkRows.schema, context: incidentContext)
            var batch = RowBatch(schema: SinkRows.schema)
            batch.append(Self.first[0])
            try await merged.write(batch)
            try await logged.write(batch)
            _ = try await merged.prepare()
            // The second output fails (here: the run aborts it), so the table fails: both outputs abort, in
            // output order as the table's pipeline aborts them.
            await merged.abort()
            await logged.abort()
            try await problem.commitTransaction()
            _ = try await problem.commit()
            #expect(try await Self.query(directory, "SELECT count(*) FROM problem") == "1")
            #expect(
                try await Self.query(
                    directory, "SELECT count(*) FROM sqlite_master WHERE name IN ('incident', 'incident_log')")
                    == "0")
            #expect(try await Self.query(directory, "SELECT load_id FROM _nowetl_loads") == "P1:problem")
        }
    }

    /// Tables of a run load one after another into one transaction: each table's first load releases
    /// the savepoints of the tables before it (all prepared), so the nesting stays one table deep, and
    /// a table that fails still takes back only its own rows.
    @Test func aRunsTablesNestNoDeeperThanOneTableAndAFailedOneStillUndoesItselfOnly() async throws {
        try await withScratchDirectory { (directory: String) in
            let names = ["t1", "t2", "t3", "t4", "t5"]
            var sinks: [DatabaseSink] = []
            for name in names {
                let context = SinkRows.context(loadID: "L-\(name)", table: name, runID: "run-nesting")
                let sink = try Self.sink(directory, .merge)
                try await sink.open(schema: SinkRows.schema, context: context)
                let session = try SQLiteSession.shared(path: directory + "/report.db", runID: "run-nesting")
                #expect(session.books.savepoints.count == 1, "\(name): \(session.books.savepoints.map(\.name))")
                var batch = RowBatch(schema: SinkRows.schema)
                batch.append(Self.first[0])
                try await sink.write(batch)
                if name == "t4" {
                    await sink.abort()
                } else {
                    _ = try await sink.prepare()
                    sinks.append(sink)
                }
            }
            for sink in sinks {
                try await sink.commitTransaction()
                _ = try await sink.commit()
            }
            #expect(
                try await Self.query(
                    directory,
                    "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE name LIKE 't_' ORDER BY name)"
                )
                    == "t1,t2,t3,t5")
        }
    }

    @Test func twoTablesOfOneRunShareTheDatabasesTransaction() async throws {
        try await withScratchDirectory { (directory: String) in
            let incident = try Self.sink(directory, .merge)
            let problem = try Self.sink(directory, .merge)
            try await SinkRows.prepare([Self.first[0]], into: incident, context: SinkRows.context(loadID: "L1"))
            // The second table opens while the first one's transaction is open: same file, same run.
            try await SinkRows.prepare(
                [Self.first[0]], into: problem,
                context: SinkRows.context(loadID: "L1", table: "problem", runID: "run-L1"))
            #expect(try await Self.query(directory, "SELECT count(*) FROM sqlite_master WHERE name = 'problem'") == "0")
            try await incident.commitTransaction()
            try await problem.commitTransaction()
            _ = try await incident.commit()
            _ = try await problem.commit()
            #expect(
                try await Self.query(
                    directory, "SELECT (SELECT count(*) FROM incident), (SELECT count(*) FROM problem)")
                    == "1|1")
        }
    }

    @Test func aDatabaseLockedByAnotherWriterIsAnErrorNamingTheFileAndLeavesTheData() async throws {
        try await withScratchDirectory { (directory: String) in
            try await SinkRows.load(
                Self.first, into: Self.sink(directory, .merge), context: SinkRows.context(loadID: "L1"))
            let other = try SQLiteConnection(path: directory + "/report.db")
            try other.execute("BEGIN IMMEDIATE")
            var options = SQLiteSinkOptions(prune: .never)
            options.busyTimeoutMilliseconds = 50
            let sink = DatabaseSink(.sqlite(options, file: try SinkTestSupport.options(directory, "report.db")))
            do {
                try await SinkRows.load(
                    [SinkRows.row("z9", "INC999", priority: 9, notes: nil)], into: sink,
                    context: SinkRows.context(loadID: "L2")
                )
                Issue.record("loaded into a locked database")
            } catch let error as NowETLError {
                #expect(error.code == .database && error.context.path == directory + "/report.db")
                #expect(
                    error.message.hasPrefix(
                        "cannot begin a transaction on the SQLite database \(directory)/report.db: "
                            + "database is locked"))
            }
            try other.execute("ROLLBACK")
            #expect(try await Self.query(directory, "SELECT count(*) FROM incident") == "3")
            try await SinkRows.load(
                [SinkRows.row("z9", "INC999", priority: 9, notes: nil)], into: sink,
                context: SinkRows.context(loadID: "L2"))
            #expect(try await Self.query(directory, "SELECT count(*) FROM incident") == "4")
        }
    }

    @Test func mergeWithoutSysIDAndADirectoryAsDatabaseAreErrors() async throws {
        try await withScratchDirectory { (directory: String) in
            let noKey = RowSchema(columns: [ColumnSchema(name: "number")])
            do {
                try await SinkRows.load(
                    [Row(values: [.string("INC1")])], schema: noKey, into: Self.sink(directory, .merge),
                    context: SinkRows.context(loadID: "L1"))
                Issue.record("merge without sys_id loaded")
            } catch let error as NowETLError {
                #expect(error.code == .invalidSchema && error.message.contains("table incident in "))
                #expect(error.message.contains("mode: merge needs a sys_id column"))
            }
            // Append without sys_id is fine (no primary key).
            try await SinkRows.load(
                [Row(values: [.string("INC1")])], schema: noKey, into: Self.sink(directory, .append),
                context: SinkRows.context(loadID: "L2"))
            #expect(try await Self.query(directory, "SELECT number FROM incident") == "INC1")

            try FileManager.default.createDirectory(atPath: directory + "/dir.db", withIntermediateDirectories: true)
            let sink = DatabaseSink(
                .sqlite(SQLiteSinkOptions(), file: try SinkTestSupport.options(directory, "dir.db")))
            do {
                try await SinkRows.load(Self.first, into: sink, context: SinkRows.context(loadID: "L3"))
                Issue.record("a directory opened as a database")
            } catch let error as NowETLError {
                #expect(error.message == "cannot open the SQLite database \(directory)/dir.db: it is a directory")
            }
            // An unreadable file that is not a database.
            try Data("not a database, just text that is long enough to have a header".utf8).write(
                to: URL(fileURLWithPath: directory + "/text.db"))
            let text = DatabaseSink(
                .sqlite(SQLiteSinkOptions(), file: try SinkTestSupport.options(directory, "text.db")))
            do {
                try await SinkRows.load(Self.first, into: text, context: SinkRows.context(loadID: "L4"))
                Issue.record("a text file opened as a database")
            } catch let error as NowETLError {
                #expect(error.code == .database && error.message.contains("\(directory)/text.db"))
            }
        }
    }
}
