import Foundation
import NowSimTesting
import Testing

/// The real `nowetl reconcile` as a child process, and the checks of its JSON report: the instance
/// output's end-to-end suites (SinkInstanceEndToEndTests, UnloadMigrationTests) compare their copies so.
enum ReconcileRun {
    /// What a reconcile gave: exit status, stdout (the summary), stderr, and the JSON report.
    typealias Result = (status: Int32, summary: String, log: String, report: [String: Any]?)

    /// The real `nowetl reconcile PIPELINE --report r.json` in `directory`: its exit status, stdout
    /// (the summary), stderr and the JSON report (`nil` when none was written).
    static func run(_ directory: URL, pipeline: String = "p.yaml", environment: [String: String] = [:])
        async throws -> Result
    {
        let path = directory.appendingPathComponent("r.json")
        try? FileManager.default.removeItem(at: path)
        let result = try await NowETLProcess.run(
            ["reconcile", pipeline, "--report", path.path], in: directory, environment: environment)
        let json = (try? Data(contentsOf: path)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
        return (result.status, result.stdoutText, result.stderrText, json as? [String: Any])
    }

    /// The report's tables by name.
    static func tables(_ report: [String: Any]?) -> [String: [String: Any]] {
        var tables: [String: [String: Any]] = [:]
        for table in report?["tables"] as? [[String: Any]] ?? [] {
            if let name = table["table"] as? String { tables[name] = table }
        }
        return tables
    }

    /// Expects a reconcile that found `tables` equal: exit 0, and per table zero missing, extra and
    /// differing rows in the JSON report, every source row matching.
    static func expectEqual(
        _ reconciled: Result, tables expected: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reconciled.status == 0, "\(reconciled.summary)\(reconciled.log)", sourceLocation: sourceLocation)
        #expect(reconciled.report?["status"] as? String == "equal", sourceLocation: sourceLocation)
        let found = tables(reconciled.report)
        #expect(found.keys.sorted() == expected.sorted(), sourceLocation: sourceLocation)
        for (name, table) in found {
            let counts = ["missing", "extra", "differing"].map { table[$0] as? Int }
            #expect(counts == [0, 0, 0] && table["equal"] as? Bool == true, "\(name)", sourceLocation: sourceLocation)
            let rows = table["source_rows"] as? Int ?? -1
            #expect(
                rows > 0 && table["target_rows"] as? Int == rows && table["matching"] as? Int == rows, "\(name)",
                sourceLocation: sourceLocation)
        }
    }
}
