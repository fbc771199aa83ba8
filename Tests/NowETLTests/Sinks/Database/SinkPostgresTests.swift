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

    static let first = SinkRows.first(notes: awkward)

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

    static func query(_ database: PostgresTestDatabase, _ sql: String) async throws -> String {
        try await database.psql(sql).trimmingCharacters(in: .newlines)
    }

    /// The test's database for ``DatabaseSinkScenarios``.
    static func target(_ database: PostgresTestDatabase) -> DatabaseSinkTarget {
        DatabaseSinkTarget(
            sink: { sink(database, $0, onTypeChange: $1) }, query: { try await query(database, $0) }, first: first,
            incident: "servicenow.incident", loads: "servicenow.\"_nowetl_loads\"",
            schemaCondition: "table_schema = 'servicenow'", lockLimit: "SET lock_timeout = '5s'",
            snapshot: "SELECT md5(string_agg(t::text, '|' ORDER BY sys_id)) FROM servicenow.incident t",
            rowsPerStatement: PostgresSession.chunkRows, textDataType: "text", textTypeName: "text",
            connect: { DatabaseSink(.postgres(PostgresSinkOptions(url: $0, password: Secret($1)))) },
            url: database.server.url(database:),
            unreachable: { "postgres://u@127.0.0.1:\($0)/r?connect_timeout=5&sslmode=disable" },
            database: (database.name, database.password))
    }

    /// The scenarios the MariaDB suite runs too. The staged replace swaps at the COMMIT (PostgreSQL's DDL
    /// is transactional); the batches are COPY chunks, and a value with a tab and a backslash reads back
    /// equal.
    @Test(arguments: DatabaseSinkScenarios.Scenario.allCases)
    func shared(_ scenario: DatabaseSinkScenarios.Scenario) async throws {
        try await withPostgresDatabase { database in
            try await scenario.run(Self.target(database))
            if scenario == .batches {
                #expect(
                    try await Self.query(
                        database, "SELECT notes = E'row 17\\t\\\\' FROM servicenow.incident WHERE sys_id = 'id000017'")
                        == "t")
            }
        }
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

    @Test func replaceSwapsAndAppendAdds() async throws {
        try await withPostgresDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            try await SinkRows.load(
                [SinkRows.row("z9", "INC009", priority: 4, notes: "only")], into: Self.sink(database, .replace),
                context: SinkRows.context(loadID: "l2"))
            #expect(try await Self.target(database).incidentIDs() == "z9")
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
            #expect(try await Self.target(database).incidentIDs() == "a1,b2,c3")
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
            #expect(try await Self.target(database).incidentIDs() == "x")
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
            #expect(try await Self.target(database).incidentIDs() == "a1,b2,c3")
        }
    }
}
