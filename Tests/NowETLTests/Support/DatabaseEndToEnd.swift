import Foundation
import NowQuery
import NowSimTesting
import Testing

@testable import NowETL

/// The end-to-end runs of the database outputs (SQLite, PostgreSQL) against nowsim: the pipeline, the
/// run, and the compared values of the table as the Table API answers and as a database holds them.
enum DatabaseEndToEnd {
    /// The compared fields: text, integer (with choices), boolean, date-time, duration.
    static let fields = ["number", "short_description", "priority", "active", "opened_at", "business_duration"]

    /// Runs `nowetl run p.yaml` (and `arguments`) in `directory` with `environment`, killed at the crash
    /// point `crashingAt` when given, in a second of its own (so the run ids of consecutive runs differ),
    /// and returns its exit status and log.
    static func run(
        _ directory: URL, arguments: [String] = [], environment: [String: String] = [:], crashingAt: String? = nil,
        timeout: TimeInterval = 300
    ) async throws -> (status: Int32, log: String) {
        try await IncrementalTestClock.waitForTheNextSecond()
        var variables = environment
        if let crashingAt { variables[CrashPoint.environmentVariable] = crashingAt }
        let result = try await NowETLProcess.run(
            ["run", "p.yaml", "--progress", "off"] + arguments, in: directory, environment: variables,
            timeout: timeout)
        return (result.status, result.stderrText)
    }

    /// Runs `body` with a nowsim of `incidents` seeded incidents (seed value `seedValue`, user admin), a
    /// fresh PostgreSQL database, and a scratch directory labelled `name`: the setting of the PostgreSQL
    /// end-to-end runs.
    static func withPostgresRun(
        incidents: Int, seedValue: Int, _ name: String,
        _ body: (NowSimInstance, PostgresTestDatabase, URL) async throws -> Void
    ) async throws {
        try await withPostgresDatabase { database in
            try await withSimRun(incidents: incidents, seedValue: seedValue, name) { sim, directory in
                try await body(sim, database, directory)
            }
        }
    }

    /// Runs `body` with a nowsim of `incidents` seeded incidents (seed value `seedValue`, user admin) and a
    /// scratch directory labelled `name`: the setting of the database end-to-end runs.
    static func withSimRun(
        incidents: Int, seedValue: Int, _ name: String, _ body: (NowSimInstance, URL) async throws -> Void
    ) async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=\(incidents)", "--seed-value", "\(seedValue)", "--user", "admin:admin:admin",
        ]) { sim in
            try await withScratchDirectory(name) { (directory: URL) in try await body(sim, directory) }
        }
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
        try await SimRecords.fields(sim, "incident", fields)
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
            let differences = DatabaseEndToEnd.differences(try await loaded(), try await incidents.contents())
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

    /// Writes the crash scenario's pipeline: incident's sys_id, number, priority and short_description
    /// loaded twice into `output` (a flow mapping's inside, such as `mysql: { url: …`, closed here), with
    /// `mode: replace` and with `mode: append` into `{table}_log`, and into the `extra` outputs.
    static func writeCrashPipeline(_ sim: NowSimInstance, output: String, extra: [String] = [], in directory: URL)
        throws
    {
        try writePipeline(
            sim, tableKeys: ["fields: [sys_id, number, priority, short_description]"],
            outputs: [output + ", mode: replace }", output + ", mode: append, table_name: \"{table}_log\" }"] + extra,
            in: directory)
    }

    /// The crash scenario both server database suites run, after `loads` runs that each loaded
    /// `incident` (replace) and `incident_log` (append) of `seeded` rows: the source changes, a run killed
    /// with its tables loaded but not committed leaves the database as it was, one killed after the
    /// COMMIT has loaded both, and its rerun (returned) loads neither again. `run` runs nowetl crashing
    /// at a crash point (`nil`: none); `query` runs SQL; `counts` gives `incident/incident_log/_nowetl_loads`
    /// row counts, `dump` a hash of incident's rows.
    @discardableResult
    static func crashScenario(
        _ sim: NowSimInstance, seeded: Int, loads: Int, run: (String?) async throws -> (status: Int32, log: String),
        query: (String) async throws -> String, counts: String, dump: String
    ) async throws -> (status: Int32, log: String) {
        let before = try await query(dump)
        let incidents = IncidentTable(sim: sim)
        try await incidents.update(Array(try await incidents.sysIDs().prefix(1)), text: "changed after run \(loads)")
        #expect(try await run("table-prepared").status == 137)
        #expect(try await query(counts) == "\(seeded)/\(loads * seeded)/\(2 * loads)")
        #expect(try await query(dump) == before)
        #expect(try await run("database-committed").status == 137)
        let committed = "\(seeded)/\((loads + 1) * seeded)/\(2 * (loads + 1))"
        #expect(try await query(counts) == committed)
        #expect(try await query(dump) != before)
        let result = try await run(nil)
        try #require(result.status == 0, "rerun: \(result.log)")
        #expect(try await query(counts) == committed)
        return result
    }
}
