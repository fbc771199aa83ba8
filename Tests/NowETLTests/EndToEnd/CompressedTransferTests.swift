import Foundation
import NowSimTesting
import Testing

/// `compressed_transfer:` against the real `nowsim`, which gzips an answer exactly when the request
/// asks for it: the bytes it logs per answer show whether a run asked, and the export must not
/// depend on it.
@Suite(.timeLimit(.minutes(5))) struct CompressedTransferTests {
    /// What one run left: the exported file, the summary's `response_bytes` and the body bytes nowsim
    /// logged for the run's Table API requests.
    struct Outcome {
        var export: Data
        var responseBytes: Int
        var wireBytes: Int
        var requests: Int
    }

    @Test func autoAsksNothingOnLoopbackAlwaysAsksAndTheExportIsTheSame() async throws {
        try await withNowSim(arguments: seededNowSim("incident=300", value: 7), logRequests: true) { sim in
            try await withScratchDirectory { (directory: URL) in
                var outcomes: [String: Outcome] = [:]
                for setting in ["auto", "always", "never"] {
                    outcomes[setting] = try await Self.run(sim, setting: setting, in: directory)
                }
                let auto = try #require(outcomes["auto"])
                let always = try #require(outcomes["always"])
                let never = try #require(outcomes["never"])
                #expect(auto.requests > 0 && always.requests == auto.requests && never.requests == auto.requests)
                #expect(auto.wireBytes == never.wireBytes, "auto asks for no gzip on loopback")
                #expect(auto.wireBytes == auto.responseBytes, "what nowsim sent is what was decoded")
                #expect(
                    always.wireBytes * 2 < never.wireBytes,
                    "always asks, and nowsim answers gzip: \(always.wireBytes) of \(never.wireBytes) bytes")
                #expect(always.responseBytes == never.responseBytes, "response_bytes counts decompressed bytes")
                #expect(!never.export.isEmpty)
                #expect(always.export == never.export)
                #expect(auto.export == never.export)
            }
        }
    }

    @Test func anUnknownSettingIsRefusedWithTheChoices() async throws {
        try await withScratchDirectory { (directory: URL) in
            let pipeline = PipelineYAML(
                instance: "http://127.0.0.1:9", source: ["compressed_transfer: sometimes"])
            let file = try pipeline.write("p.yaml", in: directory)
            let result = try await NowETLProcess.run(["validate", file.path], in: directory)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderrText.contains("compressed_transfer"), "\(result.output)")
        }
    }

    /// Runs `incident` with `compressed_transfer: setting` into a directory of its own.
    static func run(_ sim: NowSimInstance, setting: String, in parent: URL) async throws -> Outcome {
        let directory = parent.appendingPathComponent(setting)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pipeline = PipelineYAML(
            sim, source: ["page_size: 50", "concurrency: 2", "compressed_transfer: \(setting)"],
            tables: "  - table: incident\n    fields: [sys_id, number, short_description, sys_updated_on]",
            outputs: #"  - json: { path: "{table}.jsonl" }"#)
        let file = try pipeline.write("p.yaml", in: directory)
        let logged = sim.requestLog.count
        let summaryPath = directory.appendingPathComponent("summary.json").path
        let result = try await NowETLProcess.run(
            ["run", file.path, "--progress", "off", "--summary-json", summaryPath], in: directory)
        try #require(result.status == 0, "\(setting): \(result.output)")

        let lines = sim.requestLog.dropFirst(logged).filter { $0.contains(" GET /api/now/table/incident?") }
        let wireBytes = lines.reduce(0) { total, line in
            let field = line.split(separator: " ").first { $0.hasSuffix("B") && Int($0.dropLast()) != nil }
            return total + (field.flatMap { Int($0.dropLast()) } ?? 0)
        }
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath)))
        let tables = (summary as? [String: Any])?["tables"] as? [[String: Any]]
        let responseBytes = try #require(tables?.first?["response_bytes"] as? Int, "\(summary)")
        let export = try Data(contentsOf: directory.appendingPathComponent("out/incident.jsonl"))
        return Outcome(export: export, responseBytes: responseBytes, wireBytes: wireBytes, requests: lines.count)
    }
}
