import Foundation
import NowSimTesting
import Testing

/// The issue's whole-record data on a nowsim: 30 incidents with 45 attachments (binary, one of 20 MB,
/// names with `/`, `..`, spaces and non-ASCII, two of one name on one record) uploaded through the
/// Attachment API, and 60 journal entries written through the Table API (`work_notes`, `comments`),
/// each update also leaving its `sys_audit` rows.
struct WholeRecordFixture {
    /// What was uploaded: the attachment's sys_id → record, name, content type, bytes, SHA-256.
    struct Upload: Sendable, Hashable {
        var record: String
        var fileName: String
        var contentType: String
        var bytes: Int
        var sha256: String
    }

    /// The nowsim arguments: 30 seeded incidents.
    static let arguments = seededNowSim("incident=30", value: 27)
    /// The size of the large attachment.
    static let largeBytes = 20 * 1024 * 1024

    var incidents: [String]
    var uploads: [String: Upload] = [:]
    /// The attachment of ``largeBytes``.
    var large = ""

    /// Deterministic bytes: a 64-bit LCG's high bytes, `count` long.
    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return Data(bytes)
    }

    /// The SHA-256 of `data` as `sha256sum` prints it (an independent reader).
    static func sha256(_ data: Data, in directory: URL) async throws -> String {
        let file = directory.appendingPathComponent("sha-input-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await sha256sum([file.path], in: directory)[file.path] ?? ""
    }

    /// `sha256sum` of `paths`: path → digest.
    static func sha256sum(_ paths: [String], in directory: URL) async throws -> [String: String] {
        guard !paths.isEmpty else { return [:] }
        let result = try await Subprocess.run(
            "/usr/bin/sha256sum", paths, directory: directory, environment: [:], input: nil, timeout: 120)
        try #require(result.status == 0, "\(result.stderrText)")
        var digests: [String: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            digests[String(parts[1].drop { $0 == " " || $0 == "*" })] = String(parts[0])
        }
        return digests
    }

    /// Uploads `data` as `name` to `record` (raw `POST /api/now/attachment/file`); returns its sys_id.
    static func upload(
        _ sim: NowSimInstance, record: String, name: String, type: String, data: Data
    ) async throws -> String {
        let response = try await sim.request(
            "POST", "/api/now/attachment/file",
            query: [("table_name", "incident"), ("table_sys_id", record), ("file_name", name)],
            headers: ["Content-Type": type], body: data)
        try #require(response.status == 201, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
        return try #require(response.resultObject["sys_id"] as? String)
    }

    /// Builds the fixture on `sim`; `scratch` holds the temporary files of the hashing.
    static func make(on sim: NowSimInstance, scratch: URL) async throws -> WholeRecordFixture {
        let incidents = try await SinkInstanceEndToEndTests.dump(sim, "incident").keys.sorted()
        try #require(incidents.count == 30)
        var fixture = WholeRecordFixture(incidents: incidents)
        let names = [
            "screenshot.png", "logs/app.log", "../../etc/passwd", "quarterly report.pdf", "Übergabe – 日本語.txt",
            "..", ".hidden", "notes.txt",
        ]
        let types = ["image/png", "text/plain", "application/octet-stream", "application/pdf", "text/plain"]
        for index in 0..<44 {
            let record = incidents[index % incidents.count]
            // Two attachments named notes.txt on the first record.
            let name = index == 30 ? "notes.txt" : names[index % names.count]
            let data = bytes(1 + (index * 7919) % 70_000, seed: UInt64(index + 1))
            let type = types[index % types.count]
            let sysID = try await upload(sim, record: record, name: name, type: type, data: data)
            fixture.uploads[sysID] = Upload(
                record: record, fileName: name, contentType: type, bytes: data.count,
                sha256: try await sha256(data, in: scratch))
        }
        // The large one, on the last record in sys_id order: a run killed while it streams has finished
        // the attachments of every other record before it (they go in the records' order).
        let large = bytes(largeBytes, seed: 4242)
        fixture.large = try await upload(
            sim, record: incidents[29], name: "dump 20 MB.bin", type: "application/octet-stream", data: large)
        fixture.uploads[fixture.large] = Upload(
            record: incidents[29], fileName: "dump 20 MB.bin", contentType: "application/octet-stream",
            bytes: large.count, sha256: try await sha256(large, in: scratch))
        try #require(fixture.uploads.count == 45 && !fixture.large.isEmpty)
        // 60 journal entries: two per incident, one work note and one comment.
        for (index, record) in incidents.enumerated() {
            for (field, text) in [
                ("work_notes", "Checked the logs (\(index))."), ("comments", "Déjà vu #\(index)\nline 2"),
            ] {
                let response = try await sim.request(
                    "PATCH", "/api/now/table/incident/\(record)",
                    body: try JSONSerialization.data(withJSONObject: [field: text]))
                try #require(response.status == 200, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
        }
        return fixture
    }

    /// Writes the incremental tests' `p.yaml` in `directory`: `sim`'s incidents but the last (in sys_id
    /// order), incremental, with their attachments and work notes, into `outputs`. Returns the incidents
    /// in sys_id order.
    static func writeIncrementalPipeline(_ sim: NowSimInstance, outputs: String, in directory: URL) async throws
        -> [String]
    {
        let incidents = try await SinkInstanceEndToEndTests.dump(sim, "incident").keys.sorted()
        try PipelineYAML(
            sim, source: ["page_size: 20"],
            tables: """
                  - table: incident
                    filter: sys_id!=\(incidents.last ?? "")
                    mode: incremental
                    attachments: true
                    journal: [work_notes]
                """, outputs: outputs
        ).write("p.yaml", in: directory)
        return incidents
    }

    /// Adds the work note `text` to incident `record` through the Table API.
    static func note(_ sim: NowSimInstance, _ record: String, _ text: String) async throws {
        let response = try await sim.request(
            "PATCH", "/api/now/table/incident/\(record)",
            body: try JSONSerialization.data(withJSONObject: ["work_notes": text]))
        try #require(response.status == 200)
    }

    /// `body` with a nowsim seeded with `seed` (seed value `value`) and a scratch directory named `name`
    /// holding `p.yaml`: the incidents with their attachments and both journal fields, into `output`.
    static func withSeededPipeline(
        _ seed: String, value: Int, name: String, output: String, _ body: (NowSimInstance, URL) async throws -> Void
    ) async throws {
        try await withNowSim(arguments: seededNowSim(seed, value: value)) { sim in
            try await SinkInstanceEndToEndTests.withScratch(name) { directory in
                try PipelineYAML(
                    sim, source: ["page_size: 60"],
                    tables: "  - table: incident\n    attachments: true\n    journal: [work_notes, comments]",
                    outputs: "  - " + output
                ).write("p.yaml", in: directory)
                try await body(sim, directory)
            }
        }
    }

    /// Lines of a JSON Lines file as objects.
    static func jsonLines(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
