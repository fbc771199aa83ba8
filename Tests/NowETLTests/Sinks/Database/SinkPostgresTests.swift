import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The PostgreSQL sink driven directly with row batches against the throwaway server; what it wrote
/// is read back with `psql`, an independent reader.
@Suite(.timeLimit(.minutes(5))) struct SinkPostgresTests {
    /// PostgreSQL text cannot hold NUL; everything else awkward stays.
    static let awkward =
        "quote \" apostrophe ' backslash \\ \\N comma , newline \n tab \t crlf \r\n émoji 👩‍👩‍👧 end"

    static let first = [
        SinkRows.row("a1", "INC001", priority: 1, notes: awkward),
        SinkRows.row("b2", "INC002", priority: 2, notes: SinkRows.big),
        SinkRows.row("c3", "INC003", priority: 3, notes: nil),
    ]

    /// A sink of schema `servicenow`. The loads of these tests are changes, not every record of a
    /// filter: no prune (`prune: never`) unless a test asks.
    static func sink(
        _ database: PostgresTestDatabase, _ mode: DatabaseLoadMode, onTypeChange: DatabaseTypeChangePolicy = .fail,
        prune: DatabasePrunePolicy = .never
    ) -> DatabaseSink {
        DatabaseSink(
            .postgres(
                PostgresSinkOptions(
                    url: database.url, password: Secret(database.password), schema: "servicenow", mode: mode,
                    onTypeChange: onTypeChange, prune: prune)))
    }

    /// The sys_ids of servicenow.incident, sorted, comma-separated.
    static func incidentIDs(_ database: PostgresTestDatabase) async throws -> String {
        try await query(database, "SELECT string_agg(sys_id, ',' ORDER BY sys_id) FROM servicenow.incident")
    }

    static func query(_ database: PostgresTestDatabase, _ sql: String) async throws -> String {
        try await database.psql(sql).trimmingCharacters(in: .newlines)
    }

    @Test func mergeLoadsRealTypesAndAwkwardTextReadsBackEqual() async throws {
        try await withPostgresDatabase { database in
            let load = try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            #expect(load?.rows == 3)
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.incident") == "3")
            let types = try await Self.query(
                database,
                "SELECT pg_typeof(sys_id), pg_typeof(priority), pg_typeof(cost), pg_typeof(active), "
                    + "pg_typeof(opened_at), pg_typeof(due), pg_typeof(time_worked) FROM servicenow.incident LIMIT 1")
            #expect(types == "text|bigint|numeric|boolean|timestamp with time zone|date|interval")
            // 2024-01-01 00:00 UTC + priority hours: a real timestamp comparison, independent of psql's zone.
            #expect(
                try await Self.query(
                    database,
                    "SELECT string_agg(number, ',' ORDER BY number) FROM servicenow.incident "
                        + "WHERE opened_at > timestamptz '2024-01-01 01:30:00+00'") == "INC002,INC003")
            #expect(
                try await Self.query(database, "SELECT sum(cost), sum(priority) FROM servicenow.incident") == "37.50|6")
            #expect(
                try await Self.query(
                    database,
                    "SELECT due, extract(epoch FROM time_worked)::bigint, active FROM servicenow.incident "
                        + "WHERE sys_id = 'a1'") == "2024-01-02|93784|t")
            let hex = try await Self.query(
                database,
                "SELECT encode(convert_to(notes, 'UTF8'), 'hex') FROM servicenow.incident WHERE sys_id = 'a1'")
            #expect(hex.uppercased() == SinkRows.hex(Self.awkward))
            #expect(
                try await Self.query(
                    database,
                    "SELECT notes = '\(SinkRows.big)', notes IS NULL FROM servicenow.incident "
                        + "WHERE sys_id IN ('b2', 'c3') ORDER BY sys_id") == "t|f\n|t")
            #expect(
                try await Self.query(database, "SELECT count(*) FROM servicenow.\"_nowetl_loads\"") == "1")
        }
    }

    @Test func aMergeRerunChangesNothingAndTheSameLoadIsSkipped() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            let snapshot = "SELECT md5(string_agg(t::text, '|' ORDER BY sys_id)) FROM servicenow.incident t"
            let before = try await Self.query(database, snapshot)
            let skipped = try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            #expect(skipped?.skipped == true)
            let rerun = try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l2"))
            #expect(rerun?.skipped == false)
            #expect(try await Self.query(database, snapshot) == before)
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.incident") == "3")
            // An update and a deletion.
            let changes = [
                SinkRows.row("a1", "INC001-changed", priority: 1, notes: "new", deletedAt: .some(nil)),
                SinkRows.row("b2", "INC002", priority: 2, notes: nil, deletedAt: 1_704_067_200),
            ]
            let applied = try await SinkRows.load(
                changes, schema: SinkRows.deletionSchema, into: Self.sink(database, .merge),
                context: SinkRows.context(loadID: "l3"))
            #expect(applied?.deleted == 1)
            #expect(
                try await Self.query(
                    database, "SELECT string_agg(sys_id || '=' || number, ',' ORDER BY sys_id) FROM servicenow.incident"
                )
                    == "a1=INC001-changed,c3=INC003")
        }
    }

    @Test func copyLoadsMoreThanAChunkAndTheLastRowOfASysIDWins() async throws {
        try await withPostgresDatabase { database in
            var rows = (0..<(PostgresSession.chunkRows * 2 + 7)).map {
                SinkRows.row(String(format: "id%06d", $0), "INC\($0)", priority: $0 % 5, notes: "row \($0)\t\\")
            }
            rows.append(SinkRows.row("id000003", "INC3-again", priority: 9, notes: "later"))
            let load = try await SinkRows.load(
                rows, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            #expect(load?.rows == rows.count)
            let distinct = rows.count - 1
            var sum = 9 - 3
            for index in 0..<distinct { sum += index % 5 }
            #expect(
                try await Self.query(database, "SELECT count(*), sum(priority) FROM servicenow.incident")
                    == "\(distinct)|\(sum)")
            #expect(
                try await Self.query(
                    database, "SELECT number, notes FROM servicenow.incident WHERE sys_id = 'id000003'")
                    == "INC3-again|later")
            #expect(
                try await Self.query(
                    database, "SELECT notes = E'row 17\\t\\\\' FROM servicenow.incident WHERE sys_id = 'id000017'")
                    == "t")
        }
    }

    @Test func replaceSwapsAndAppendAdds() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            try await SinkRows.load(
                [SinkRows.row("z9", "INC009", priority: 4, notes: "only")], into: Self.sink(database, .replace),
                context: SinkRows.context(loadID: "l2"))
            #expect(try await Self.incidentIDs(database) == "z9")
            // A third replace works too (the staging table's names are free again).
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l3"))
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.incident") == "3")
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .append), context: SinkRows.context(loadID: "l4", table: "log"))
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .append), context: SinkRows.context(loadID: "l5", table: "log"))
            #expect(
                try await Self.query(database, "SELECT count(*), count(DISTINCT sys_id) FROM servicenow.log") == "6|3")
        }
    }

    @Test func anAbortAfterPrepareLeavesThePreviousData() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            let sink = Self.sink(database, .replace)
            try await SinkRows.prepare(
                [SinkRows.row("z9", "INC009", priority: 4, notes: "never")], into: sink,
                context: SinkRows.context(loadID: "l2"))
            await sink.abort()
            #expect(try await Self.incidentIDs(database) == "a1,b2,c3")
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.\"_nowetl_loads\"") == "1")
        }
    }

    @Test func replaceIsAtomicToAConcurrentReaderThatNeverWaits() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            let sink = Self.sink(database, .replace)
            try await SinkRows.write(
                (0..<4).map { SinkRows.row("n\($0)", "NEW\($0)", priority: 1, notes: nil) }, into: sink,
                context: SinkRows.context(loadID: "l2"))
            // Mid-load and prepared, the table's old rows are deleted and the new ones loaded inside the
            // open transaction: another connection reads the old table whole, at once (psql gives up
            // after 5 s of waiting for a lock, so a reader that had to wait would fail here).
            let old = "SET lock_timeout = '5s'; SELECT count(*), sum(priority) FROM servicenow.incident"
            #expect(try await Self.query(database, old).hasSuffix("3|6"))
            _ = try await sink.prepare()
            #expect(try await Self.query(database, old).hasSuffix("3|6"))
            try await sink.commitTransaction()
            _ = try await sink.commit()
            #expect(try await Self.query(database, old).hasSuffix("4|4"))
        }
    }

    /// A replace whose columns changed loads a staging table and swaps it in at the COMMIT: until then
    /// readers read the old table without waiting for a lock.
    @Test func aStagedReplaceSwapsAtTheCommitAndReadersNeverWaitBefore() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
            let sink = Self.sink(database, .replace)
            var row = SinkRows.row("n1", "NEW1", priority: 9, notes: nil)
            row.values.append(.string("network"))
            try await SinkRows.prepare([row], schema: wider, into: sink, context: SinkRows.context(loadID: "l2"))
            let read = "SET lock_timeout = '5s'; SELECT count(*), sum(priority) FROM servicenow.incident"
            #expect(try await Self.query(database, read).hasSuffix("3|6"))
            try await sink.commitTransaction()
            _ = try await sink.commit()
            #expect(try await Self.query(database, read).hasSuffix("1|9"))
            #expect(try await Self.query(database, "SELECT category FROM servicenow.incident") == "network")
        }
    }

    /// An append table has no primary key: a replace of it builds the table anew with one, rather than
    /// load in place into a table that would take two rows of one sys_id.
    @Test func aReplaceOfATableWithoutThePrimaryKeyRebuildsIt() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .append), context: SinkRows.context(loadID: "l1"))
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .append), context: SinkRows.context(loadID: "l2"))
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l3"))
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.incident") == "3")
            await #expect(throws: NowETLError.self) {
                try await SinkRows.load(
                    Self.first + [Self.first[0]], into: Self.sink(database, .replace),
                    context: SinkRows.context(loadID: "l4"))
            }
            #expect(try await Self.query(database, "SELECT count(*) FROM servicenow.incident") == "3")
        }
    }

    /// The server refuses a table's COPY (two rows of one sys_id into the table in place): that table
    /// rolls back to its savepoint, and the table prepared before it in the run commits.
    @Test func aTableTheServerRefusesRollsBackAloneAndTheEarlierTableCommits() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l0"))
            let problem = Self.sink(database, .merge)
            try await SinkRows.prepare(
                [Self.first[2]], into: problem,
                context: SinkRows.context(loadID: "p1", table: "problem", runID: "run-shared"))
            let incident = Self.sink(database, .replace)
            try await incident.open(
                schema: SinkRows.schema, context: SinkRows.context(loadID: "i1", runID: "run-shared"))
            var batch = RowBatch(schema: SinkRows.schema, capacity: 2)
            batch.append(SinkRows.row("d1", "DUP", priority: 1, notes: nil))
            batch.append(SinkRows.row("d1", "DUP", priority: 1, notes: nil))
            await #expect {
                try await incident.write(batch)
                _ = try await incident.prepare()
            } throws: { error in
                "\(error)".contains("incident") && "\(error)".contains("23505")
            }
            await incident.abort()
            try await problem.commitTransaction()
            _ = try await problem.commit()
            #expect(try await Self.query(database, "SELECT string_agg(sys_id, ',') FROM servicenow.problem") == "c3")
            #expect(try await Self.incidentIDs(database) == "a1,b2,c3")
        }
    }

    /// The connection dies after a table was prepared: the transaction is gone, so that table's COMMIT
    /// fails — it is never reported as loaded — and nothing of it is in the database.
    @Test func aTransactionLostBeforeTheCommitFailsTheCommitOfTheTablesInIt() async throws {
        try await withPostgresDatabase { database in
            let problem = Self.sink(database, .merge)
            try await SinkRows.prepare(
                [Self.first[2]], into: problem,
                context: SinkRows.context(loadID: "p1", table: "problem", runID: "run-lost"))
            _ = try await Self.query(
                database,
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND pid <> pg_backend_pid()")
            let incident = Self.sink(database, .merge)
            await #expect(throws: NowETLError.self) {
                try await incident.open(
                    schema: SinkRows.schema, context: SinkRows.context(loadID: "i1", runID: "run-lost"))
            }
            await incident.abort()
            await #expect {
                try await problem.commitTransaction()
            } throws: { error in
                "\(error)".contains("problem") && "\(error)".contains("rolled back before its COMMIT")
            }
            #expect(try await Self.query(database, "SELECT to_regclass('servicenow.problem') IS NULL") == "t")
        }
    }

    /// A replace into the same columns loads in place: what users built on the table stays — an index,
    /// a view, a grant. New columns swap a new table in.
    @Test func replaceKeepsWhatUsersBuiltOnTheTableUntilItsColumnsChange() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            let role = "bi_reader_\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await Self.query(
                database,
                "CREATE INDEX by_priority ON servicenow.incident (priority); "
                    + "CREATE VIEW servicenow.urgent AS SELECT number FROM servicenow.incident WHERE priority = 1; "
                    + "CREATE ROLE \(role); GRANT USAGE ON SCHEMA servicenow TO \(role); "
                    + "GRANT SELECT ON servicenow.incident TO \(role)")
            try await SinkRows.load(
                [SinkRows.row("x", "INC100", priority: 1, notes: nil)], into: Self.sink(database, .replace),
                context: SinkRows.context(loadID: "l2"))
            #expect(try await Self.query(database, "SELECT number FROM servicenow.urgent") == "INC100")
            #expect(
                try await Self.query(
                    database,
                    "SELECT count(*) FROM pg_indexes WHERE schemaname = 'servicenow' AND indexname = 'by_priority'")
                    == "1")
            #expect(
                try await Self.query(database, "SELECT has_table_privilege('\(role)', 'servicenow.incident', 'SELECT')")
                    == "t")
            // Another column: the table is rebuilt and swapped in; the view depends on the old one, so the
            // swap fails naming the table, and the old rows stay.
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
            var rows = Self.first
            for index in rows.indices { rows[index].values.append(.string("c\(index)")) }
            await #expect {
                try await SinkRows.load(
                    rows, schema: wider, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l3"))
            } throws: { error in
                "\(error)".contains("incident") && "\(error)".contains("urgent")
            }
            #expect(try await Self.incidentIDs(database) == "x")
            _ = try await Self.query(database, "DROP VIEW servicenow.urgent")
            try await SinkRows.load(
                rows, schema: wider, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l4"))
            #expect(
                try await Self.query(
                    database, "SELECT string_agg(category, ',' ORDER BY sys_id) FROM servicenow.incident")
                    == "c0,c1,c2")
        }
    }

    /// PostgreSQL keeps 63 bytes of a name: longer table or column names are refused (exit 78) before
    /// anything is loaded; a table name that fits but leaves no room for the staging suffix still works.
    @Test func namesLongerThanPostgreSQLKeepsAreRefusedAndLongTablesStillSwap() async throws {
        try await withPostgresDatabase { database in
            let tooLong = String(repeating: "t", count: 64)
            await #expect {
                try await SinkRows.load(
                    Self.first, into: Self.sink(database, .merge),
                    context: SinkRows.context(loadID: "l1", table: tooLong))
            } throws: { error in
                (error as? NowETLError)?.exitCode == 78 && "\(error)".contains("table_name")
            }
            let longColumn = RowSchema(
                columns: SinkRows.schema.columns + [ColumnSchema(name: "u_" + String(repeating: "c", count: 62))])
            var rows = Self.first
            for index in rows.indices { rows[index].values.append(nil) }
            await #expect {
                try await SinkRows.load(
                    rows, schema: longColumn, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l2")
                )
            } throws: { error in
                (error as? NowETLError)?.exitCode == 78 && "\(error)".contains("u_ccc")
            }
            // 60 bytes: the staging table and its key get shortened names; replace (staged), replace (in
            // place) and replace with a new column (staged again, the key's name free) all work.
            let long = "x_vendor_" + String(repeating: "a", count: 51)
            let table = "servicenow.\"\(long)\""
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l3", table: long))
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l4", table: long))
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
            var widerRows = Self.first
            for index in widerRows.indices { widerRows[index].values.append(.string("c")) }
            try await SinkRows.load(
                widerRows, schema: wider, into: Self.sink(database, .replace),
                context: SinkRows.context(loadID: "l5", table: long))
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l6", table: long))
            #expect(try await Self.query(database, "SELECT count(*) FROM \(table)") == "3")
            #expect(
                try await Self.query(
                    database,
                    "SELECT count(*) FROM pg_tables WHERE schemaname = 'servicenow' AND tablename LIKE 'x_vendor%'")
                    == "1")
        }
    }

    /// Text with NUL cannot be stored: the load fails naming the table, the record and the column, and
    /// the previous rows stay.
    @Test func aNULCharacterFailsTheLoadNamingTheRecordAndLeavesThePreviousData() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            await #expect {
                try await SinkRows.load(
                    [SinkRows.row("n1", "INC001", priority: 1, notes: "before\u{0}after")],
                    into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l2"))
            } throws: { error in
                let message = "\(error)"
                return message.contains("incident") && message.contains("record n1") && message.contains("notes")
                    && message.contains("NUL")
            }
            #expect(try await Self.incidentIDs(database) == "a1,b2,c3")
        }
    }

    @Test func aNewFieldAddsAColumnAndATypeChangeFailsNamingIt() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            let wider = RowSchema(columns: SinkRows.schema.columns + [ColumnSchema(name: "category")])
            var rows = Self.first
            rows[0].values.append(.string("network"))
            for index in 1..<rows.count { rows[index].values.append(nil) }
            try await SinkRows.load(
                rows, schema: wider, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l2"))
            #expect(
                try await Self.query(database, "SELECT category FROM servicenow.incident WHERE sys_id = 'a1'")
                    == "network")
            var columns = SinkRows.schema.columns
            columns[2] = ColumnSchema(name: "priority")
            let changed = RowSchema(columns: columns)
            let rowsAsText = Self.first.map { row in
                var row = row
                row.values[2] = .string("high")
                return row
            }
            await #expect {
                try await SinkRows.load(
                    rowsAsText, schema: changed, into: Self.sink(database, .merge),
                    context: SinkRows.context(loadID: "l3"))
            } throws: { error in
                let message = "\(error)"
                return message.contains("incident") && message.contains("priority") && message.contains("BIGINT")
                    && message.contains("text")
            }
            #expect(
                try await Self.query(database, "SELECT pg_typeof(priority) FROM servicenow.incident LIMIT 1")
                    == "bigint")
            try await SinkRows.load(
                rowsAsText, schema: changed, into: Self.sink(database, .merge, onTypeChange: .recreate),
                context: SinkRows.context(loadID: "l4"))
            #expect(
                try await Self.query(
                    database, "SELECT pg_typeof(priority), priority FROM servicenow.incident WHERE sys_id = 'a1'")
                    == "text|high")
        }
    }

    @Test func connectionFailuresKeepTheirExitCodeAndHideThePassword() async throws {
        let server = try await PostgresServer.shared()
        let wrong = "Wr0ng-\(UUID().uuidString.prefix(8))"
        let bad = DatabaseSink(
            .postgres(PostgresSinkOptions(url: server.url(database: "postgres"), password: Secret(wrong))))
        await #expect {
            try await bad.open(schema: SinkRows.schema, context: SinkRows.context(loadID: "x"))
        } throws: { error in
            guard let error = error as? NowETLError else { return false }
            return error.exitCode == 77 && !error.description.contains(wrong) && error.description.contains("127.0.0.1")
        }
        let missing = DatabaseSink(
            .postgres(
                PostgresSinkOptions(url: server.url(database: "no_such_db"), password: Secret(server.password))))
        await #expect {
            try await missing.open(schema: SinkRows.schema, context: SinkRows.context(loadID: "y"))
        } throws: { error in
            guard let error = error as? NowETLError else { return false }
            return error.exitCode == 78 && error.description.contains("no_such_db")
                && !error.description.contains(server.password)
        }
    }
}
