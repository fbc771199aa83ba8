import Foundation
import NowQuery
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` binary loading a real nowsim's incidents into the throwaway PostgreSQL; the table
/// is read back with `psql` and compared with the Table API's own answer.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkPostgresEndToEndTests {
    static let seeded = 300

    static func pipeline(_ sim: NowSimInstance, output: String, in directory: URL) throws {
        try DatabaseEndToEnd.writePipeline(sim, outputs: [output], concurrency: 3, in: directory)
    }

    /// The database's rows in the Table API's text forms (booleans true/false, durations as
    /// `1970-01-01 HH:MM:SS`, date-times UTC, NULL as "").
    static func loaded(_ database: PostgresTestDatabase) async throws -> [String: [String: String]] {
        let json = try await database.psql(
            "SELECT coalesce(json_agg(json_build_object('sys_id', sys_id, 'number', coalesce(number, ''), "
                + "'short_description', coalesce(short_description, ''), 'priority', coalesce(priority::text, ''), "
                + "'active', coalesce(active::text, ''), "
                + "'opened_at', coalesce(to_char(opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), ''), "
                + "'business_duration', extract(epoch FROM business_duration)::bigint)), '[]') "
                + "FROM servicenow.incident")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        var result: [String: [String: String]] = [:]
        for row in rows {
            var values: [String: String] = [:]
            for field in DatabaseEndToEnd.fields {
                switch row[field] {
                case let seconds as Int where field == "business_duration":
                    values[field] = TableAPIDateFormat.string(fromSeconds: seconds)
                case let text as String where field == "active":
                    values[field] = text == "" ? "" : String(text == "true")
                case let text as String: values[field] = text
                default: values[field] = ""
                }
            }
            result[row["sys_id"] as? String ?? ""] = values
        }
        return result
    }

    @Test func aFullExportEqualsTheTableAndAMergeRerunChangesNothing() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.seeded, seedValue: 5, "postgresFull") {
            sim, database, directory in
            try (database.password + "\n").write(
                toFile: directory.path + "/pg-password", atomically: true, encoding: .utf8)
            try Self.pipeline(
                sim,
                output: "postgres: { url: \"${PG_URL}\", schema: servicenow, password_file: pg-password }",
                in: directory)
            var result = try await DatabaseEndToEnd.run(
                directory, environment: ["PG_URL": database.url], timeout: 240)
            try #require(result.status == 0, "run 1: \(result.log)")
            #expect(!result.log.contains(database.password))
            #expect(try await database.psql("SELECT count(*) FROM servicenow.incident") == "\(Self.seeded)\n")
            let differences = DatabaseEndToEnd.differences(
                try await Self.loaded(database), try await DatabaseEndToEnd.source(sim))
            #expect(differences.isEmpty, "\(differences.count) differences, e.g. \(differences.prefix(3))")
            #expect(
                try await database.psql(
                    "SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_schema = "
                        + "'servicenow' AND table_name = 'incident' AND column_name IN ('priority', 'active', "
                        + "'opened_at', 'business_duration') ORDER BY column_name")
                    == "active boolean\nbusiness_duration interval\nopened_at timestamp with time zone\n"
                    + "priority bigint\n")
            let dump = "SELECT md5(string_agg(t::text, '|' ORDER BY sys_id)) FROM servicenow.incident t"
            let before = try await database.psql(dump)
            result = try await DatabaseEndToEnd.run(
                directory, environment: ["PG_URL": database.url], timeout: 240)
            try #require(result.status == 0, "run 2: \(result.log)")
            #expect(try await database.psql(dump) == before)
        }
    }

    /// A run killed with its tables loaded inside the open transaction leaves the previous data as it
    /// was (the server rolls the dead connection's transaction back); one killed after the COMMIT and
    /// before the run's commit record is resumed by the rerun, which finds its loads in `_nowetl_loads`
    /// and skips them — the append table is not doubled — and says so in `--summary-json`.
    @Test func aKilledRunLeavesThePreviousDataAndItsRerunLoadsNothingTwice() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.seeded, seedValue: 6, "postgresCrash") {
            sim, database, directory in
            try DatabaseEndToEnd.writeCrashPipeline(
                sim, output: "postgres: { url: \"${PG_URL}\", password: \"${PG_PASSWORD}\", schema: servicenow",
                extra: [#"csv: { path: "{table}.csv" }"#], in: directory)
            let environment = ["PG_URL": database.url, "PG_PASSWORD": database.password]
            func run(crashingAt point: String? = nil) async throws -> (status: Int32, log: String) {
                try await DatabaseEndToEnd.run(
                    directory, arguments: ["--summary-json", "summary.json"], environment: environment,
                    crashingAt: point, timeout: 240)
            }
            let counts =
                "SELECT (SELECT count(*) FROM servicenow.incident) || '/' || (SELECT count(*) FROM "
                + "servicenow.incident_log) || '/' || (SELECT count(*) FROM servicenow._nowetl_loads)"
            let dump = "SELECT md5(string_agg(t::text, '|' ORDER BY sys_id)) FROM servicenow.incident t"
            var result = try await run()
            try #require(result.status == 0, "run 1: \(result.log)")
            #expect(try await database.psql(counts) == "\(Self.seeded)/\(Self.seeded)/2\n")
            result = try await DatabaseEndToEnd.crashScenario(
                sim, seeded: Self.seeded, loads: 1, run: { try await run(crashingAt: $0) },
                query: { try await database.psql($0).trimmingCharacters(in: .newlines) }, counts: counts, dump: dump)
            let summary = try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("summary.json")))
            let tables = try #require((summary as? [String: Any])?["tables"] as? [[String: Any]])
            let loads = try #require(tables.first?["database_tables"] as? [[String: Any]])
            #expect(loads.map { $0["table"] as? String } == ["incident", "incident_log"])
            // Skipped: this run loaded no row, the database had them from the killed run.
            #expect(loads.allSatisfy { $0["skipped"] as? Bool == true && $0["rows"] as? Int == 0 }, "\(loads)")
            #expect(loads.allSatisfy { ($0["database"] as? String)?.hasSuffix("/servicenow") == true })
            #expect(!result.log.contains(database.password))
        }
    }

    /// An incremental table with deletes merged into PostgreSQL equals the instance's table after
    /// updates, inserts and deletions (applied as DELETEs; `_deleted_at` is no column).
    @Test func anIncrementalPipelineMergedIntoPostgreSQLEqualsTheTableThroughUpdatesInsertsAndDeletes() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.seeded, seedValue: 8, "postgresIncremental") {
            sim, database, directory in
            try await DatabaseEndToEnd.incrementalScenario(
                sim, output: "postgres: { url: \"${PG_URL}\", password: \"${PG_PASSWORD}\", schema: servicenow }",
                environment: ["PG_URL": database.url, "PG_PASSWORD": database.password],
                in: directory,
                loaded: {
                    let json = try await database.psql(
                        "SELECT coalesce(json_agg(json_build_object('sys_id', sys_id, 'number', number, "
                            + "'short_description', coalesce(short_description, ''), 'sys_updated_on', "
                            + "to_char(sys_updated_on AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))), '[]') "
                            + "FROM servicenow.incident")
                    let rows = try #require(
                        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
                    #expect(
                        try await database.psql(
                            "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'servicenow' "
                                + "AND table_name = 'incident' AND column_name = '_deleted_at'") == "0\n")
                    return Dictionary(
                        rows.map { row in
                            (
                                row["sys_id"] as? String ?? "",
                                Dictionary(
                                    uniqueKeysWithValues: IncidentTable.fields.map {
                                        ($0, row[$0] as? String ?? "")
                                    })
                            )
                        }, uniquingKeysWith: { first, _ in first })
                },
                count: {
                    Int(try await database.psql("SELECT count(*) FROM servicenow.incident").dropLast()) ?? -1
                },
                loadRows: {
                    try await database.psql(
                        "SELECT string_agg(rows::text, ',' ORDER BY loaded_at) FROM servicenow._nowetl_loads"
                    )
                    .trimmingCharacters(in: .newlines)
                })
        }
    }

    @Test func connectionFailuresExitWithTheirCodesAndNeverShowThePassword() async throws {
        try await withNowSim(arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"]) { sim in
            let server = try await PostgresServer.shared()
            try await withScratchDirectory("postgresFailures") { (directory: URL) in
                let wrong = "Wr0ng-\(UUID().uuidString.prefix(8))"
                let user = server.superuser
                let cases: [(url: String, password: String, status: Int32, names: String)] = [
                    (
                        "postgres://\(user):${PG_PASSWORD}@127.0.0.1:\(server.port)/postgres?sslmode=disable", wrong,
                        77,
                        "127.0.0.1:\(server.port)/postgres"
                    ),
                    (
                        "postgres://\(user):${PG_PASSWORD}@127.0.0.1:\(server.port)/no_such_db?sslmode=disable",
                        server.password, 78, "no_such_db"
                    ),
                    (
                        "postgres://\(user):${PG_PASSWORD}@127.0.0.1:1/reporting?sslmode=disable&connect_timeout=10",
                        wrong,
                        69, "127.0.0.1:1/reporting"
                    ),
                ]
                for item in cases {
                    try Self.pipeline(sim, output: "postgres: { url: \"\(item.url)\" }", in: directory)
                    let result = try await DatabaseEndToEnd.run(
                        directory, environment: ["PG_PASSWORD": item.password], timeout: 240)
                    #expect(result.status == item.status, "\(item.url): \(result.log)")
                    #expect(result.log.contains(item.names), "\(result.log)")
                    #expect(!result.log.contains(item.password), "\(result.log)")
                }
            }
        }
    }
}
