import Foundation
import NowQuery
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` binary loading a real nowsim's incidents into SQLite; the database is read back
/// with the `sqlite3` tool and compared with the Table API's own answer.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkSQLiteEndToEndTests {
    static let seeded = 400
    /// The compared fields: text, integer (with choices), boolean, date-time, duration.
    static let fields = ["number", "short_description", "priority", "active", "opened_at", "business_duration"]

    static func run(_ directory: URL) async throws -> (status: Int32, log: String) {
        try await IncrementalTestClock.waitForTheNextSecond()
        let result = try await NowETLProcess.run(["run", "p.yaml", "--progress", "off"], in: directory)
        return (result.status, result.stderrText)
    }

    /// Writes `p.yaml` in `directory`: `sim`'s incidents, with `tableKeys` (lines such as `fields: […]`)
    /// under the table, loaded into `outputs` (one YAML flow mapping each). The end-to-end tests of the
    /// database outputs share it.
    static func writePipeline(
        _ sim: NowSimInstance, tableKeys: [String] = [], outputs: [String], concurrency: Int = 2, in directory: URL
    ) throws {
        try PipelineYAML(
            sim, source: ["concurrency: \(concurrency)", "page_size: 100"],
            tables: (["  - table: incident"] + tableKeys.map { "    " + $0 }).joined(separator: "\n"),
            outputs: outputs.map { "  - " + $0 }.joined(separator: "\n")
        ).write("p.yaml", in: directory)
    }

    /// `sqlite3 -json` rows of `sql`.
    static func rows(_ database: String, _ sql: String) async throws -> [[String: Any]] {
        let out = try await SinkTestSupport.output("sqlite3", ["-json", database, sql])
        if out.allSatisfy({ $0 == 0x0A || $0 == 0x20 }) { return [] }
        return try #require(try JSONSerialization.jsonObject(with: out) as? [[String: Any]])
    }

    static func text(_ database: String, _ sql: String) async throws -> String {
        String(decoding: try await SinkTestSupport.output("sqlite3", ["-batch", database, sql]), as: UTF8.self)
    }

    /// Every incident's compared fields as the Table API gives them (stored values).
    static func source(_ sim: NowSimInstance) async throws -> [String: [String: String]] {
        var rows: [String: [String: String]] = [:]
        var after = ""
        while true {
            let response = try await sim.request(
                "/api/now/table/incident",
                query: [
                    ("sysparm_query", (after.isEmpty ? "" : "sys_id>\(after)^") + "ORDERBYsys_id"),
                    ("sysparm_fields", (["sys_id"] + fields).joined(separator: ",")), ("sysparm_limit", "500"),
                ])
            try #require(response.status == 200)
            for record in response.resultList {
                rows[record["sys_id"] as? String ?? ""] = Dictionary(
                    uniqueKeysWithValues: fields.map { ($0, record[$0] as? String ?? "") })
            }
            guard let last = response.resultList.last?["sys_id"] as? String else { return rows }
            after = last
        }
    }

    /// The database's rows in the Table API's text forms: booleans as true/false, durations back to
    /// `1970-01-01 HH:MM:SS`, NULL as "".
    static func loaded(_ database: String) async throws -> [String: [String: String]] {
        let columns = (["sys_id"] + fields).joined(separator: ", ")
        var rows: [String: [String: String]] = [:]
        for row in try await Self.rows(database, "SELECT \(columns) FROM incident") {
            var values: [String: String] = [:]
            for field in fields {
                switch row[field] {
                case let number as Int where field == "active": values[field] = number == 1 ? "true" : "false"
                case let number as Int where field == "business_duration":
                    values[field] = TableAPIDateFormat.string(fromSeconds: number)
                case let number as Int: values[field] = String(number)
                case let text as String: values[field] = text
                default: values[field] = ""
                }
            }
            rows[row["sys_id"] as? String ?? ""] = values
        }
        return rows
    }

    static func differences(_ loaded: [String: [String: String]], _ source: [String: [String: String]]) -> [String] {
        var problems: [String] = []
        for (sysID, values) in source where loaded[sysID] != values {
            problems.append("\(sysID): \(loaded[sysID].map { "\($0)" } ?? "missing") ≠ \(values)")
        }
        for sysID in loaded.keys where source[sysID] == nil { problems.append("extra \(sysID)") }
        return problems.sorted()
    }

    @Test func aFullExportEqualsTheTableTypedAndAMergeRerunChangesNothing() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=\(Self.seeded)", "--seed-value", "5", "--user", "admin:admin:admin",
        ]) { sim in
            try await withScratchDirectory("sqliteFull") { (scratch: String) in
                let directory = URL(fileURLWithPath: scratch)
                // No fields: every field of the dictionary, each typed from it.
                try Self.writePipeline(
                    sim, outputs: [#"sqlite: { path: "report.db" }"#, #"json: { path: "{table}.jsonl" }"#],
                    concurrency: 3,
                    in: directory)
                let database = scratch + "/out/report.db"

                var result = try await Self.run(directory)
                try #require(result.status == 0, "run 1: \(result.log)")
                #expect(result.log.contains("database table loaded"), "\(result.log)")
                #expect(try await Self.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
                let differences = Self.differences(try await Self.loaded(database), try await Self.source(sim))
                #expect(differences.isEmpty, "\(differences.count) differences, e.g. \(differences.prefix(3))")
                #expect(
                    try await Self.text(
                        database,
                        "SELECT typeof(priority), typeof(active), typeof(opened_at), typeof(business_duration), "
                            + "typeof(number), typeof(caller_id) FROM incident WHERE opened_at IS NOT NULL "
                            + "AND business_duration IS NOT NULL AND caller_id IS NOT NULL LIMIT 1")
                        == "integer|integer|text|integer|text|text\n")
                #expect(
                    try await Self.text(
                        database,
                        "SELECT name || ' ' || type FROM pragma_table_info('incident') WHERE name IN ('sys_id', 'priority', 'active', "
                            + "'opened_at', 'business_duration', 'sys_mod_count') ORDER BY name")
                        == "active BOOLEAN\nbusiness_duration INTERVAL\nopened_at DATETIME\npriority INTEGER\nsys_id TEXT\n"
                        + "sys_mod_count INTEGER\n")
                // The typed columns are typed in the JSON output too.
                let json = try String(contentsOfFile: scratch + "/out/incident.jsonl", encoding: .utf8)
                #expect(json.contains("\"priority\":") && !json.contains("\"priority\":\""))
                // The manifest lists the files only.
                let manifest = try Manifest.read(fromDirectory: scratch + "/out")
                #expect(manifest.files.map(\.path) == ["incident.jsonl"])

                let dump = "SELECT * FROM incident ORDER BY sys_id"
                let before = try await Self.text(database, dump)
                result = try await Self.run(directory)
                try #require(result.status == 0, "run 2: \(result.log)")
                #expect(try await Self.text(database, dump) == before)
                #expect(
                    try await Self.text(database, "SELECT count(*), sum(rows) FROM _nowetl_loads")
                        == "2|\(2 * Self.seeded)\n")
            }
        }
    }

    /// A run killed after the database COMMIT and before its commit record: the rerun resumes the same
    /// run journal, finds its load in `_nowetl_loads` and skips it — an append table is not doubled.
    /// A run killed with the table prepared (the load inside the open transaction) changes nothing.
    @Test func aRerunAfterACrashBetweenTheDatabaseCommitAndTheRecordLoadsNothingTwice() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=\(Self.seeded)", "--seed-value", "9", "--user", "admin:admin:admin",
        ]) { sim in
            let scratch = try SinkTestSupport.scratchDirectory("sqliteCrash")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let directory = URL(fileURLWithPath: scratch)
            try Self.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, priority]"],
                outputs: [#"sqlite: { path: "report.db", mode: append }"#, #"csv: { path: "{table}.csv" }"#],
                in: directory)
            let database = scratch + "/out/report.db"
            func crash(at point: String) async throws -> Int32 {
                try await IncrementalTestClock.waitForTheNextSecond()
                return try await NowETLProcess.run(
                    ["run", "p.yaml", "--progress", "off"], in: directory,
                    environment: [CrashPoint.environmentVariable: point], timeout: 240
                ).status
            }

            #expect(try await crash(at: "database-committed") == 137)
            #expect(try await Self.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/out/manifest.json"))
            var result = try await Self.run(directory)
            try #require(result.status == 0, "rerun: \(result.log)")
            #expect(result.log.contains("skipped"), "\(result.log)")
            #expect(try await Self.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            #expect(FileManager.default.fileExists(atPath: scratch + "/out/manifest.json"))

            #expect(try await crash(at: "table-prepared") == 137)
            #expect(try await Self.text(database, "SELECT count(*) FROM incident") == "\(Self.seeded)\n")
            // The next run is another load (a fresh journal): appended.
            result = try await Self.run(directory)
            try #require(result.status == 0, "run 3: \(result.log)")
            #expect(
                try await Self.text(database, "SELECT count(*), count(DISTINCT sys_id) FROM incident")
                    == "\(2 * Self.seeded)|\(Self.seeded)\n")
            #expect(try await Self.text(database, "SELECT count(*) FROM _nowetl_loads") == "2\n")
        }
    }

    /// The incremental scenario both database end-to-end suites run: an incremental table with deletes
    /// merged into `output`, compared with the instance's table after the first run and after updates,
    /// inserts and deletions. `loaded` reads the database table's rows (sys_id → IncidentTable.fields);
    /// `count` its row count; `loadRows` the `_nowetl_loads` rows column in load order, comma-separated.
    static func incrementalScenario(
        _ sim: NowSimInstance, output: String, environment: [String: String] = [:], in directory: URL,
        loaded: () async throws -> [String: [String: String]], count: () async throws -> Int,
        loadRows: () async throws -> String
    ) async throws {
        try writePipeline(
            sim,
            tableKeys: [
                "mode: incremental", "deletes: true", "fields: [sys_id, number, short_description, sys_updated_on]",
            ],
            outputs: [output], in: directory)
        let incidents = IncidentTable(sim: sim)
        func run(_ note: String) async throws {
            try await IncrementalTestClock.waitForTheNextSecond()
            let result = try await NowETLProcess.run(
                ["run", "p.yaml", "--progress", "off"], in: directory, environment: environment, timeout: 240)
            try #require(result.status == 0, "\(note): \(result.stderrText)")
            let differences = Self.differences(try await loaded(), try await incidents.contents())
            #expect(differences.isEmpty, "\(note): \(differences.count) differences, e.g. \(differences.prefix(3))")
        }
        try await run("run 1")
        let seeded = try await count()
        let ids = try await incidents.sysIDs()
        try await incidents.update(Array(ids[0..<30]), text: "changed")
        try await incidents.insert(20, text: "new")
        try await incidents.delete(Array(ids[30..<45]))
        try await run("run 2")
        #expect(try await count() == seeded + 20 - 15)
        #expect(try await loadRows() == "\(seeded),65")
    }

    @Test func anIncrementalPipelineMergedIntoSQLiteEqualsTheTableThroughUpdatesInsertsAndDeletes() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=\(Self.seeded)", "--seed-value", "7", "--user", "admin:admin:admin",
        ]) { sim in
            let scratch = try SinkTestSupport.scratchDirectory("sqliteIncremental")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let database = scratch + "/out/report.db"
            try await Self.incrementalScenario(
                sim, output: "sqlite: { path: \"report.db\", mode: merge }", in: URL(fileURLWithPath: scratch),
                loaded: {
                    var loaded: [String: [String: String]] = [:]
                    for row in try await Self.rows(
                        database, "SELECT sys_id, number, short_description, sys_updated_on FROM incident")
                    {
                        loaded[row["sys_id"] as? String ?? ""] = Dictionary(
                            uniqueKeysWithValues: IncidentTable.fields.map { ($0, row[$0] as? String ?? "") })
                    }
                    #expect(
                        try await Self.text(
                            database, "SELECT count(*) FROM pragma_table_info('incident') WHERE name = '_deleted_at'")
                            == "0\n")
                    return loaded
                },
                count: { Int(try await Self.text(database, "SELECT count(*) FROM incident").dropLast()) ?? -1 },
                loadRows: {
                    try await Self.text(
                        database,
                        "SELECT group_concat(rows, ',') FROM (SELECT rows FROM _nowetl_loads ORDER BY loaded_at, rowid)"
                    )
                    .trimmingCharacters(in: .newlines)
                })
        }
    }
}
