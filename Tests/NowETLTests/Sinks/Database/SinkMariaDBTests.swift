import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The MySQL sink driven directly with row batches against the throwaway MariaDB server; what it wrote
/// is read back with the `mariadb` client, an independent reader.
@Suite(.timeLimit(.minutes(5))) struct SinkMariaDBTests {
    /// Everything awkward, NUL and four-byte UTF-8 included: MariaDB text holds every character.
    static let awkward =
        "quote \" apostrophe ' backslash \\ \\N comma , newline \n tab \t crlf \r\n nul \u{0} émoji 👩‍👩‍👧 end"

    static let first = SinkRows.first(notes: awkward)

    /// A sink of the test's database. The loads of these tests are changes, not every record of a
    /// filter: no prune (`prune: never`) unless a test asks.
    static func sink(
        _ database: MariaDBTestDatabase, _ mode: DatabaseLoadMode, onTypeChange: DatabaseTypeChangePolicy = .fail
    ) -> DatabaseSink {
        DatabaseSink(
            .mysql(
                MySQLSinkOptions(
                    url: database.url, password: Secret(database.password), mode: mode, onTypeChange: onTypeChange,
                    prune: .never)))
    }

    /// The `mariadb` client's rows, columns separated by `|` (batch mode writes a tab in a value as `\t`).
    static func query(_ database: MariaDBTestDatabase, _ sql: String) async throws -> String {
        try await database.sql(sql).trimmingCharacters(in: .newlines).replacingOccurrences(of: "\t", with: "|")
    }

    /// The test's database for ``DatabaseSinkScenarios``.
    static func target(_ database: MariaDBTestDatabase) -> DatabaseSinkTarget {
        DatabaseSinkTarget(
            sink: { sink(database, $0, onTypeChange: $1) }, query: { try await query(database, $0) }, first: first,
            incident: "incident", loads: "_nowetl_loads", schemaCondition: "table_schema = DATABASE()",
            lockLimit: "SET SESSION lock_wait_timeout = 5",
            snapshot: "SET group_concat_max_len = 1000000; SELECT md5(group_concat(concat_ws('|', sys_id, number, "
                + "priority, cost, active, opened_at, due, time_worked, hex(notes)) ORDER BY sys_id)) FROM incident",
            rowsPerStatement: MySQLSession.rowsPerStatement, textDataType: "longtext", textTypeName: "LONGTEXT",
            connect: { DatabaseSink(.mysql(MySQLSinkOptions(url: $0, password: Secret($1)))) },
            url: database.server.url(database:),
            unreachable: { "mysql://u@127.0.0.1:\($0)/r?connect_timeout=5" },
            database: (database.name, database.password))
    }

    /// The scenarios the PostgreSQL suite runs too. The staged replace swaps after the COMMIT with one
    /// atomic RENAME (DDL outside the transaction would commit it).
    @Test(arguments: DatabaseSinkScenarios.Scenario.allCases)
    func shared(_ scenario: DatabaseSinkScenarios.Scenario) async throws {
        try await withMariaDBDatabase { database in try await scenario.run(Self.target(database)) }
    }

    @Test func mergeLoadsRealTypesAndAwkwardTextReadsBackEqual() async throws {
        try await withMariaDBDatabase { database in
            let load = try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            #expect(load?.rows == 3)
            #expect(try await Self.query(database, "SELECT count(*) FROM incident") == "3")
            let types = try await Self.query(
                database,
                "SELECT group_concat(concat(column_name, ' ', column_type, ' ', coalesce(collation_name, '-')) "
                    + "ORDER BY ordinal_position SEPARATOR '|') FROM information_schema.columns WHERE "
                    + "table_schema = DATABASE() AND table_name = 'incident'")
            #expect(
                types
                    == "sys_id varchar(255) utf8mb4_bin|number longtext utf8mb4_bin|priority bigint(20) -|"
                    + "cost decimal(65,30) -|active tinyint(1) -|opened_at datetime(6) -|due date -|"
                    + "time_worked bigint(20) -|notes longtext utf8mb4_bin")
            #expect(
                try await Self.query(
                    database,
                    "SELECT group_concat(column_name) FROM information_schema.key_column_usage WHERE "
                        + "table_schema = DATABASE() AND table_name = 'incident' AND constraint_name = 'PRIMARY'")
                    == "sys_id")
            // 2024-01-01 00:00 UTC + priority hours, compared as DATETIME in the UTC the values were stored in.
            #expect(
                try await Self.query(
                    database,
                    "SELECT group_concat(number ORDER BY number) FROM incident WHERE opened_at > '2024-01-01 01:30:00'")
                    == "INC002,INC003")
            #expect(try await Self.query(database, "SELECT sum(cost) = 37.5, sum(priority) FROM incident") == "1|6")
            #expect(
                try await Self.query(database, "SELECT due, time_worked, active FROM incident WHERE sys_id = 'a1'")
                    == "2024-01-02|93784|1")
            #expect(
                try await Self.query(database, "SELECT hex(notes) FROM incident WHERE sys_id = 'a1'")
                    == SinkRows.hex(Self.awkward))
            #expect(
                try await Self.query(
                    database,
                    "SELECT notes = '\(SinkRows.big)', notes IS NULL FROM incident WHERE sys_id IN ('b2', 'c3') "
                        + "ORDER BY sys_id") == "1|0\nNULL|1")
            #expect(try await Self.query(database, "SELECT count(*) FROM _nowetl_loads") == "1")
        }
    }

    /// The binary collation keeps two keys that differ only in case (or accent) apart.
    @Test func keysThatDifferInCaseOrAccentAreTwoRows() async throws {
        try await withMariaDBDatabase { database in
            let rows = ["abc", "ABC", "abç"].map { SinkRows.row($0, $0, priority: 1, notes: $0) }
            try await SinkRows.load(rows, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            #expect(try await Self.query(database, "SELECT count(*) FROM incident") == "3")
            #expect(try await Self.query(database, "SELECT count(*) FROM incident WHERE notes = 'ABC'") == "1")
        }
    }

    /// A run killed between the COMMIT of a staged replace and its swap left the staging table and the
    /// marker: the rerun of the load skips it and finishes the swap.
    @Test func aCommittedStagingTableIsSwappedInByTheRerun() async throws {
        try await withMariaDBDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l1"))
            _ = try await database.sql(
                "CREATE TABLE incident__nowetl_new LIKE incident; INSERT INTO incident__nowetl_new "
                    + "SELECT * FROM incident WHERE sys_id = 'b2'; INSERT INTO _nowetl_loads VALUES "
                    + "('l2:incident', 'incident', 'run-l2', 'replace', 1, '2024-01-01 00:00:00')")
            let rerun = try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l2"))
            #expect(rerun?.skipped == true)
            #expect(try await Self.target(database).incidentIDs() == "b2")
            // A staging table a killed load left before its COMMIT is dropped by the next load.
            _ = try await database.sql("CREATE TABLE incident__nowetl_new LIKE incident")
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .replace), context: SinkRows.context(loadID: "l3"))
            #expect(try await Self.target(database).incidentIDs() == "a1,b2,c3")
            #expect(
                try await Self.query(
                    database,
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND "
                        + "table_name = 'incident__nowetl_new'") == "0")
        }
    }

    @Test func aDecimalThatWouldBeRoundedFailsTheLoadAndLeavesThePreviousData() async throws {
        try await withMariaDBDatabase { database in
            try await SinkRows.load(
                Self.first, into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l1"))
            var row = SinkRows.row("d4", "INC004", priority: 4, notes: nil)
            row.values[3] = .decimal("0." + String(repeating: "1", count: 31))
            await #expect {
                try await SinkRows.load(
                    [row], into: Self.sink(database, .merge), context: SinkRows.context(loadID: "l2"))
            } throws: { error in
                (error as? NowETLError)?.description.contains("cost") == true
            }
            #expect(try await Self.target(database).incidentIDs() == "a1,b2,c3")
        }
    }
}
