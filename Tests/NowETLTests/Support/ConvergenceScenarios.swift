import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The scenarios that show a database copy staying equal to the source (`prune:`, `deletes: soft`,
/// backfill, `--full-refresh`), run the same against every database: the real `nowetl` against nowsim,
/// the copy read back by the database's own client (`query`: SQL in, rows of `|`-separated columns out)
/// and compared with what nowsim's Table API answers.
enum ConvergenceScenarios {
    /// Runs SQL on the database under test and returns its rows, one per line.
    typealias Query = (String) async throws -> String

    /// The two copies every scenario loads in one run: `hard_copy` (deletes: hard) and `soft_copy`
    /// (deletes: soft), each `extra` keys added, into `output` (a flow mapping's inside, such as
    /// `sqlite: { path: "report.db"`, closed here).
    static func outputs(_ output: String, extra: String = "") -> [String] {
        [
            output + ", table_name: hard_copy\(extra) }",
            output + ", table_name: soft_copy, deletes: soft\(extra) }",
        ]
    }

    /// The lines `query` prints for `sql`, sorted.
    static func lines(_ query: Query, _ sql: String) async throws -> [String] {
        try await query(sql).split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
    }

    /// The sys_ids of the active incidents, as the Table API gives them.
    static func activeIDs(_ sim: NowSimInstance) async throws -> [String] {
        try await SimRecords.fields(sim, "incident", ["active"]).filter { $0.value["active"] == "true" }.keys.sorted()
    }

    /// Runs the pipeline in `directory` (optionally with `arguments`), requiring exit 0; returns the log.
    @discardableResult
    static func run(_ directory: URL, _ note: String, arguments: [String] = [], environment: [String: String])
        async throws -> String
    {
        try await IncrementalTestClock.waitForTheNextSecond()
        let result = try await NowETLProcess.run(
            ["run", "p.yaml", "--progress", "off"] + arguments, in: directory, environment: environment,
            timeout: 300)
        try #require(result.status == 0, "\(note): \(result.stderrText)")
        return result.stderrText
    }

    /// A full table with `filter: active=true`: three records closed and two deleted (with no deletion
    /// record: the table does not capture deletes) leave `hard_copy` at the next run, and stay in
    /// `soft_copy` with `_deleted_at` set; a record reopened is back in both, live.
    static func fullTable(
        _ sim: NowSimInstance, output: String, environment: [String: String] = [:], in directory: URL,
        query: Query
    ) async throws {
        try DatabaseEndToEnd.writePipeline(
            sim, tableKeys: ["filter: active=true", "fields: [sys_id, number, active, short_description]"],
            outputs: outputs(output), in: directory)
        try await run(directory, "run 1", environment: environment)
        let before = try await activeIDs(sim)
        try #require(before.count >= 8, "nowsim seeded \(before.count) active incidents")
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == before)
        let incidents = IncidentTable(sim: sim)
        try await incidents.patch(Array(before[0..<3]), ["active": "false"])
        try await incidents.delete(Array(before[3..<5]))
        let log = try await run(directory, "run 2", environment: environment)
        let after = try await activeIDs(sim)
        #expect(after.count == before.count - 5)
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == after)
        #expect(try await lines(query, "SELECT sys_id FROM soft_copy WHERE _deleted_at IS NULL") == after)
        #expect(
            try await lines(query, "SELECT sys_id FROM soft_copy WHERE _deleted_at IS NOT NULL")
                == Array(before[0..<5]))
        #expect(log.contains("pruned=10"), "\(log)")

        try await incidents.patch([before[0]], ["active": "true"])
        try await run(directory, "run 3", environment: environment)
        let reopened = try await activeIDs(sim)
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == reopened)
        #expect(try await lines(query, "SELECT sys_id FROM soft_copy WHERE _deleted_at IS NULL") == reopened)
    }

    /// An incremental table with `filter: active=true` (prune every run, no captured deletes): the prune
    /// compares against a scan of the filter's sys_ids, so closed and deleted records leave the copy
    /// although no run reads them; `short_description`, added to the pipeline, is filled for every row
    /// in the same run (backfill), not only for the rows that changed.
    static func incrementalTable(
        _ sim: NowSimInstance, output: String, environment: [String: String] = [:], in directory: URL,
        query: Query
    ) async throws {
        func pipeline(_ fields: String) throws {
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["mode: incremental", "filter: active=true", "fields: [\(fields)]"],
                outputs: outputs(output, extra: ", prune: every_run"), in: directory)
        }
        try pipeline("sys_id, number, active, sys_updated_on")
        try await run(directory, "run 1", environment: environment)
        let before = try await activeIDs(sim)
        try #require(before.count >= 8, "nowsim seeded \(before.count) active incidents")
        let incidents = IncidentTable(sim: sim)
        try await incidents.patch(Array(before[0..<3]), ["active": "false"])
        try await incidents.delete(Array(before[3..<5]))
        try await incidents.update([before[5]], text: "changed")
        try pipeline("sys_id, number, active, sys_updated_on, short_description")
        let log = try await run(directory, "run 2", environment: environment)
        let after = try await activeIDs(sim)
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == after)
        #expect(try await lines(query, "SELECT sys_id FROM soft_copy WHERE _deleted_at IS NULL") == after)
        let source = try await SimRecords.fields(sim, "incident", ["short_description"])
        let expected = after.map { "\($0)|\(source[$0]?["short_description"] ?? "")" }
        #expect(try await lines(query, "SELECT sys_id, short_description FROM hard_copy") == expected)
        #expect(log.contains("pruned=10"), "\(log)")
        // Every row of both copies but the changed one (its run delivered it) was filled by the backfill.
        #expect(log.contains("backfilled="), "\(log)")
    }

    /// With `prune: never`, a closed record stays in the copies until `run --prune` removes (or marks)
    /// it. Then `--full-refresh` of the incremental table replaces `hard_copy` in the run's transaction:
    /// a reader polling its count during the run sees the old count or the new one, never another; after
    /// it the copy is the source's active records, the load is recorded as a replace, and `soft_copy`
    /// (merged and pruned instead) keeps the deleted rows marked.
    static func fullRefresh(
        _ sim: NowSimInstance, output: String, environment: [String: String] = [:], in directory: URL,
        query: Query
    ) async throws {
        try DatabaseEndToEnd.writePipeline(
            sim, tableKeys: ["mode: incremental", "filter: active=true", "fields: [sys_id, number, active]"],
            outputs: outputs(output, extra: ", prune: never"), in: directory)
        try await run(directory, "run 1", environment: environment)
        let first = try await activeIDs(sim)
        try #require(first.count >= 10, "nowsim seeded \(first.count) active incidents")
        // prune: never keeps two closed records, until `run --prune`.
        try await IncidentTable(sim: sim).patch(Array(first[0..<2]), ["active": "false"])
        try await run(directory, "run 2", environment: environment)
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == first)
        let pruned = try await run(directory, "run 3 --prune", arguments: ["--prune"], environment: environment)
        let before = try await activeIDs(sim)
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == before)
        #expect(pruned.contains("pruned=4"), "\(pruned)")

        try await IncidentTable(sim: sim).delete(Array(before[0..<7]))
        let after = try await activeIDs(sim)
        async let refreshed = run(directory, "full refresh", arguments: ["--full-refresh"], environment: environment)
        var seen: Set<String> = []
        // Until the replace is recorded (committed), for at most about a minute.
        for _ in 0..<3_000 {
            // A reader that cannot read for a moment (SQLite's COMMIT) tries again.
            if let count = try? await query("SELECT count(*) FROM hard_copy") {
                seen.insert(count.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let replaces = try? await query("SELECT count(*) FROM _nowetl_loads WHERE mode = 'replace'")
            if let replaces, replaces.trimmingCharacters(in: .whitespacesAndNewlines) != "0" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        _ = try await refreshed
        #expect(seen.isSubset(of: [String(before.count), String(after.count)]), "counts seen: \(seen)")
        #expect(try await lines(query, "SELECT sys_id FROM hard_copy") == after)
        #expect(try await lines(query, "SELECT sys_id FROM soft_copy WHERE _deleted_at IS NULL") == after)
        #expect(try await lines(query, "SELECT count(*) FROM soft_copy WHERE _deleted_at IS NOT NULL") == ["9"])
        #expect(
            try await lines(query, "SELECT mode FROM _nowetl_loads WHERE table_name = 'hard_copy'")
                == ["merge", "merge", "merge", "replace"])
    }
}
