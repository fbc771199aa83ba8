import Foundation
import NowQuery
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` binary loading a real nowsim's incidents into SQLite; the database is read back
/// with the `sqlite3` tool and compared with the Table API's own answer.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkSQLiteEndToEndTests {
    static let seeded = 400

    @Test func aFullExportEqualsTheTableTypedAndAMergeRerunChangesNothing() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: 5, "sqliteFull") { sim, directory in
            // No fields: every field of the dictionary, each typed from it.
            try DatabaseEndToEnd.writePipeline(
                sim, outputs: [#"sqlite: { path: "report.db" }"#, #"json: { path: "{table}.jsonl" }"#],
                concurrency: 3,
                in: directory)
            let database = directory.path + "/out/report.db"

            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            #expect(result.log.contains("database table loaded"), "\(result.log)")
            #expect(
                try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            let differences = DatabaseEndToEnd.differences(
                try await DatabaseEndToEnd.loaded(database), try await DatabaseEndToEnd.source(sim))
            #expect(differences.isEmpty, "\(differences.count) differences, e.g. \(differences.prefix(3))")
            #expect(
                try await DatabaseEndToEnd.text(
                    database,
                    "SELECT typeof(priority), typeof(active), typeof(opened_at), typeof(business_duration), "
                        + "typeof(number), typeof(caller_id) FROM incident WHERE opened_at IS NOT NULL "
                        + "AND business_duration IS NOT NULL AND caller_id IS NOT NULL LIMIT 1")
                    == "integer|integer|text|integer|text|text\n")
            #expect(
                try await DatabaseEndToEnd.text(
                    database,
                    "SELECT name || ' ' || type FROM pragma_table_info('incident') WHERE name IN ('sys_id', 'priority', 'active', "
                        + "'opened_at', 'business_duration', 'sys_mod_count') ORDER BY name")
                    == "active BOOLEAN\nbusiness_duration INTERVAL\nopened_at DATETIME\npriority INTEGER\nsys_id TEXT\n"
                    + "sys_mod_count INTEGER\n")
            // The typed columns are typed in the JSON output too.
            let json = try String(contentsOfFile: directory.path + "/out/incident.jsonl", encoding: .utf8)
            #expect(json.contains("\"priority\":") && !json.contains("\"priority\":\""))
            // The manifest lists the files only.
            let manifest = try Manifest.read(fromDirectory: directory.path + "/out")
            #expect(manifest.files.map(\.path) == ["incident.jsonl"])

            let dump = "SELECT * FROM incident ORDER BY sys_id"
            let before = try await DatabaseEndToEnd.text(database, dump)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 2: \(result.log)")
            #expect(try await DatabaseEndToEnd.text(database, dump) == before)
            #expect(
                try await DatabaseEndToEnd.text(database, "SELECT count(*), sum(rows) FROM _nowetl_loads")
                    == "2|\(2 * Self.seeded)\n")
        }
    }

    /// A run killed after the database COMMIT and before its commit record: the rerun resumes the same
    /// run journal, finds its load in `_nowetl_loads` and skips it — an append table is not doubled.
    /// A run killed with the table prepared (the load inside the open transaction) changes nothing.
    @Test func aRerunAfterACrashBetweenTheDatabaseCommitAndTheRecordLoadsNothingTwice() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: 9, "sqliteCrash") { sim, directory in
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, priority]"],
                outputs: [#"sqlite: { path: "report.db", mode: append }"#, #"csv: { path: "{table}.csv" }"#],
                in: directory)
            let database = directory.path + "/out/report.db"
            func crash(at point: String) async throws -> Int32 {
                try await IncrementalTestClock.waitForTheNextSecond()
                return try await NowETLProcess.run(
                    ["run", "p.yaml", "--progress", "off"], in: directory,
                    environment: [CrashPoint.environmentVariable: point], timeout: 240
                ).status
            }

            #expect(try await crash(at: "database-committed") == 137)
            #expect(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/out/manifest.json"))
            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "rerun: \(result.log)")
            #expect(result.log.contains("skipped"), "\(result.log)")
            #expect(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            #expect(FileManager.default.fileExists(atPath: directory.path + "/out/manifest.json"))

            #expect(try await crash(at: "table-prepared") == 137)
            #expect(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            // The next run is another load (a fresh journal): appended.
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 3: \(result.log)")
            #expect(
                try await DatabaseEndToEnd.text(database, "SELECT count(*), count(DISTINCT sys_id) FROM incident")
                    == "\(2 * Self.seeded)|\(Self.seeded)\n")
            #expect(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM _nowetl_loads") == "2\n")
        }
    }

    @Test func anIncrementalPipelineMergedIntoSQLiteEqualsTheTableThroughUpdatesInsertsAndDeletes() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: 7, "sqliteIncremental") {
            sim, directory in
            let database = directory.path + "/out/report.db"
            try await DatabaseEndToEnd.incrementalScenario(
                sim, output: "sqlite: { path: \"report.db\", mode: merge }", in: directory,
                loaded: {
                    var loaded: [String: [String: String]] = [:]
                    for row in try await DatabaseEndToEnd.rows(
                        database, "SELECT sys_id, number, short_description, sys_updated_on FROM incident")
                    {
                        loaded[row["sys_id"] as? String ?? ""] = Dictionary(
                            uniqueKeysWithValues: IncidentTable.fields.map { ($0, row[$0] as? String ?? "") })
                    }
                    #expect(
                        try await DatabaseEndToEnd.text(
                            database, "SELECT count(*) FROM pragma_table_info('incident') WHERE name = '_deleted_at'")
                            == "0\n")
                    return loaded
                },
                count: {
                    Int(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident").dropLast()) ?? -1
                },
                loadRows: {
                    try await DatabaseEndToEnd.text(
                        database,
                        "SELECT group_concat(rows, ',') FROM (SELECT rows FROM _nowetl_loads ORDER BY loaded_at, rowid)"
                    )
                    .trimmingCharacters(in: .newlines)
                })
        }
    }
}
