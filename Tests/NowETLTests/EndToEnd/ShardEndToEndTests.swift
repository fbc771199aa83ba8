import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl run --shard I/N` and `nowetl merge` with the real binaries against the real `nowsim`: what a
/// Kubernetes Indexed Job (or a cron array) and its merge step see.
@Suite(.timeLimit(.minutes(8))) struct ShardEndToEndTests {
    static let environment = ["SN_USER": "admin", "SN_PASSWORD": "admin"]

    /// A pipeline of one table (the seeded incidents, a filter that keeps most) into CSV, JSON Lines
    /// (gzip), XML records and SQLite, `concurrency` requests at once.
    static func pipeline(instance: URL, outputDirectory: String, concurrency: Int = 2) -> String {
        PipelineYAML(
            instance: instance.absoluteString, auth: PipelineYAML.placeholderAuthBlock,
            source: ["concurrency: \(concurrency)", "page_size: 100"], outputDirectory: outputDirectory,
            tables: PipelineYAML.incidentColumns(filter: "active=true^ORpriority<=3"),
            outputs: """
                  - csv: { path: "{table}.csv" }
                  - json: { path: "{table}.jsonl.gz" }
                  - xml: { path: "{table}.xml", format: records }
                  - sqlite: { path: "report.db", mode: replace }
                """
        ).text
    }

    static func nowetl(_ arguments: [String], in directory: URL) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await NowETLProcess.run(arguments + ["--progress", "off"], in: directory, environment: environment).textual
    }

    static func makeDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowetl-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The manifest's file entries (everything but the run's own id and time).
    static func manifestFiles(_ url: URL) throws -> [[String: String]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let files = object?["files"] as? [[String: Any]] ?? []
        return files.map { file in file.mapValues { "\($0)" } }
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Three shard processes at once, then the merge: the files are the bytes one run writes, the
    /// manifest lists the same files, the SQLite table holds the same rows, and no shard state is left.
    @Test func threeConcurrentShardsMergeIntoTheBytesOfOneRun() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shards") { (directory: URL) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "single", concurrency: 3)
                .write(to: directory.appendingPathComponent("single.yaml"), atomically: true, encoding: .utf8)
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "sharded")
                .write(to: directory.appendingPathComponent("sharded.yaml"), atomically: true, encoding: .utf8)
            let single = try await Self.nowetl(["run", "single.yaml"], in: directory)
            #expect(single.status == 0, "\(single.stderr)")

            let statuses = try await withThrowingTaskGroup(of: (Int, Int32, String).self) { group in
                for index in 0..<3 {
                    group.addTask {
                        let result = try await Self.nowetl(
                            ["run", "sharded.yaml", "--shard", "\(index)/3"], in: directory)
                        return (index, result.status, result.stderr)
                    }
                }
                var statuses: [Int: (Int32, String)] = [:]
                for try await (index, status, stderr) in group { statuses[index] = (status, stderr) }
                return statuses
            }
            for index in 0..<3 { #expect(statuses[index]?.0 == 0, "shard \(index): \(statuses[index]?.1 ?? "")") }
            let sharded = directory.appendingPathComponent("sharded")
            // The shards publish nothing: no output, no manifest, until the merge.
            #expect(!Self.exists(sharded.appendingPathComponent("manifest.json")))
            #expect(!Self.exists(sharded.appendingPathComponent("incident.csv")))
            for index in 0..<3 {
                #expect(Self.exists(sharded.appendingPathComponent(".nowetl/shards/shard-\(index).json")))
            }

            let merged = try await Self.nowetl(
                ["merge", "sharded.yaml", "--summary-json", "merge.json"], in: directory)
            #expect(merged.status == 0, "\(merged.stderr)")
            // The merge's counts are the shards' sums (here: the page bodies they received).
            let report = try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("merge.json")))
            let table = ((report as? [String: Any])?["tables"] as? [[String: Any]])?.first ?? [:]
            #expect((table["response_bytes"] as? Int ?? 0) > 10_000, "\(table)")
            for name in ["incident.csv", "incident.jsonl.gz", "incident.xml"] {
                let one = try Data(contentsOf: directory.appendingPathComponent("single/\(name)"))
                let many = try Data(contentsOf: sharded.appendingPathComponent(name))
                #expect(one.count > 10_000)
                // A Bool, not `one == many` inside #expect: its diff of two large byte strings takes minutes.
                let identical = one == many
                #expect(identical, "\(name): the merge must write the bytes one run writes")
            }
            #expect(
                try Self.manifestFiles(directory.appendingPathComponent("single/manifest.json"))
                    == Self.manifestFiles(sharded.appendingPathComponent("manifest.json")))
            let query = ["-separator", "|", "", "SELECT * FROM incident ORDER BY sys_id"]
            var rows: [String] = []
            for output in ["single", "sharded"] {
                var arguments = query
                arguments[2] = "\(output)/report.db"
                let dump = try await Subprocess.run("/usr/bin/sqlite3", arguments, directory: directory).textual
                #expect(dump.status == 0, "\(dump.stderr)")
                rows.append(dump.stdout)
            }
            #expect(rows[0].split(separator: "\n").count > 500)
            let sameRows = rows[0] == rows[1]
            #expect(sameRows, "the merged SQLite table must hold the rows of one run")
            // The commit removed every shard's state; a second merge has nothing to merge and changes nothing.
            #expect(!Self.exists(sharded.appendingPathComponent(".nowetl/shards")))
            let manifest = try Data(contentsOf: sharded.appendingPathComponent("manifest.json"))
            let again = try await Self.nowetl(["merge", "sharded.yaml"], in: directory)
            #expect(again.status == 1)
            #expect(again.stderr.contains("no shard manifest"), "\(again.stderr)")
            let unchanged = try Data(contentsOf: sharded.appendingPathComponent("manifest.json")) == manifest
            #expect(unchanged)
        }
    }

    /// A missing shard, a shard of another N, another pipeline file, a damaged spill part and a rerun
    /// shard: each merge refuses with its exit code, naming the shard and the file, and publishes nothing,
    /// until the set is whole again.
    @Test func aMergeRefusesMissingForeignAndDamagedShardsAndPublishesNothing() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-errors") { (directory: URL) in
            let file = directory.appendingPathComponent("p.yaml")
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: file, atomically: true, encoding: .utf8)
            let out = directory.appendingPathComponent("out")
            let manifest = out.appendingPathComponent("manifest.json")
            for index in [0, 2] {
                let shard = try await Self.nowetl(["run", "p.yaml", "--shard", "\(index)/3"], in: directory)
                #expect(shard.status == 0, "\(shard.stderr)")
            }
            var merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 1 of 3 is missing"), "\(merge.stderr)")
            #expect(merge.stderr.contains(".nowetl/shards/shard-1.json"), "\(merge.stderr)")
            #expect(!Self.exists(manifest))

            let other = try await Self.nowetl(["run", "p.yaml", "--shard", "1/4"], in: directory)
            #expect(other.status == 0, "\(other.stderr)")
            merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 78)
            #expect(merge.stderr.contains("different shard counts"), "\(merge.stderr)")
            #expect(merge.stderr.contains("shard 1 with N=4"), "\(merge.stderr)")
            #expect(!Self.exists(manifest))

            // The right shard replaces the foreign one's manifest: a rerun under the same index.
            let right = try await Self.nowetl(["run", "p.yaml", "--shard", "1/3"], in: directory)
            #expect(right.status == 0, "\(right.stderr)")
            try (Self.pipeline(instance: sim.baseURL, outputDirectory: "out") + "# edited\n").write(
                to: file, atomically: true, encoding: .utf8)
            merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 78)
            #expect(merge.stderr.contains("another version of the pipeline file"), "\(merge.stderr)")
            #expect(!Self.exists(manifest))
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: file, atomically: true, encoding: .utf8)

            // A damaged spill part: the merge names the shard and the file.
            let journal = out.appendingPathComponent(".nowetl/shards/tables/incident/2-of-3")
            let spill = try #require(
                try FileManager.default.contentsOfDirectory(atPath: journal.path).sorted().first {
                    $0.hasSuffix(".spill")
                })
            let spillURL = journal.appendingPathComponent(spill)
            var bytes = try Data(contentsOf: spillURL)
            #expect(bytes.count > 100)
            let original = bytes
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: spillURL)
            merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 2/3"), "\(merge.stderr)")
            #expect(merge.stderr.contains(spill), "\(merge.stderr)")
            #expect(!Self.exists(manifest))
            #expect(!Self.exists(out.appendingPathComponent("incident.csv")))
            try original.write(to: spillURL)

            // A finished shard run again fetches nothing new (its journal is done) and the set merges.
            let rerun = try await Self.nowetl(["run", "p.yaml", "--shard", "0/3"], in: directory)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 0, "\(merge.stderr)")
            #expect(Self.exists(manifest))
            #expect(Self.exists(out.appendingPathComponent("incident.csv")))
        }
    }

    /// A shard whose table fails (here a value that will not convert, under `reject: fail`) exits with
    /// the table's code and leaves a manifest that says so; the merge refuses it, naming the shard.
    @Test func aFailedShardIsRefusedByTheMerge() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-failed") { (directory: URL) in
            let pipeline = Self.pipeline(instance: sim.baseURL, outputDirectory: "out").replacingOccurrences(
                of: "path: number.value }", with: "path: number.value, type: int }")
            try pipeline.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            for index in 0..<2 {
                let shard = try await Self.nowetl(["run", "p.yaml", "--shard", "\(index)/2"], in: directory)
                #expect(shard.status == 1, "\(shard.stderr)")
            }
            let manifest = try ShardManifest.read(
                from: directory.appendingPathComponent("out/.nowetl/shards/shard-0.json").path)
            #expect(manifest.status == .failed)
            #expect(manifest.error?.contains("incident") == true)
            let merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 0 of 2 failed"), "\(merge.stderr)")
            #expect(merge.stderr.contains("shard-0.json"), "\(merge.stderr)")
            #expect(!Self.exists(directory.appendingPathComponent("out/manifest.json")))
        }
    }

    /// `--run-key` is the sharded run's identity: a shard resumes its journal only under the same key
    /// (another night's finished journal is fetched again, not handed over as tonight's), and the merge
    /// refuses a shard of another key — an earlier night's manifest left by a merge that never ran —
    /// naming it, and publishes nothing.
    @Test func aMergeTakesOnlyShardsOfItsRunKey() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-run-key") { (directory: URL) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let out = directory.appendingPathComponent("out")
            let shards = out.appendingPathComponent(".nowetl/shards")
            func manifest(_ index: Int) throws -> ShardManifest {
                try ShardManifest.read(from: shards.appendingPathComponent("shard-\(index).json").path)
            }
            for index in 0..<2 {
                let shard = try await Self.nowetl(
                    ["run", "p.yaml", "--shard", "\(index)/2", "--run-key", "2026-12-01"], in: directory)
                #expect(shard.status == 0, "\(shard.stderr)")
            }
            // The same key resumes: the finished journal is not fetched again.
            let same = try await Self.nowetl(
                ["run", "p.yaml", "--shard", "0/2", "--run-key", "2026-12-01"], in: directory)
            #expect(same.status == 0, "\(same.stderr)")
            let resumed = try #require(try manifest(0).tables.first)
            #expect(resumed.counts[.resumedRows] > 0)
            #expect(resumed.counts[.resumedRows] == resumed.parts.reduce(0) { $0 + $1.rows })

            // Another key (the next night) starts over.
            let next = try await Self.nowetl(
                ["run", "p.yaml", "--shard", "0/2", "--run-key", "2026-12-02"], in: directory)
            #expect(next.status == 0, "\(next.stderr)")
            let fresh = try #require(try manifest(0).tables.first)
            #expect(try manifest(0).runKey == "2026-12-02")
            #expect(fresh.counts[.resumedRows] == 0)
            #expect(fresh.parts.reduce(0) { $0 + $1.rows } == resumed.parts.reduce(0) { $0 + $1.rows })

            // Shard 1 is still the earlier night's: refused, naming it; nothing is published.
            var merge = try await Self.nowetl(["merge", "p.yaml", "--run-key", "2026-12-02"], in: directory)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 1 of 2 belongs to another sharded run"), "\(merge.stderr)")
            #expect(merge.stderr.contains("--run-key 2026-12-01"), "\(merge.stderr)")
            #expect(!Self.exists(out.appendingPathComponent("manifest.json")))
            merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("no --run-key"), "\(merge.stderr)")
            #expect(!Self.exists(out.appendingPathComponent("manifest.json")))

            let last = try await Self.nowetl(
                ["run", "p.yaml", "--shard", "1/2", "--run-key", "2026-12-02"], in: directory)
            #expect(last.status == 0, "\(last.stderr)")
            merge = try await Self.nowetl(["merge", "p.yaml", "--run-key", "2026-12-02"], in: directory)
            #expect(merge.status == 0, "\(merge.stderr)")
            #expect(Self.exists(out.appendingPathComponent("manifest.json")))
            #expect(!Self.exists(shards))
        }
    }

    /// A merge killed in the middle of its commit (after its commit record, between renames): the next
    /// merge completes that commit — which removes the shard state — and exits 0, instead of reporting
    /// the shards it has just published as missing (which a scheduler would retry into a failure).
    @Test func aMergeKilledWhileCommittingIsCompletedByTheNextMerge() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-merge-crash") { (directory: URL) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let out = directory.appendingPathComponent("out")
            for index in 0..<2 {
                let shard = try await Self.nowetl(["run", "p.yaml", "--shard", "\(index)/2"], in: directory)
                #expect(shard.status == 0, "\(shard.stderr)")
            }
            var environment = Self.environment
            environment[CrashPoint.environmentVariable] = "commit-rename:2"
            let killed = try await NowETLProcess.run(
                ["merge", "p.yaml", "--progress", "off"], in: directory, environment: environment
            ).textual
            #expect(killed.status != 0)
            #expect(!Self.exists(out.appendingPathComponent("manifest.json")))
            #expect(Self.exists(out.appendingPathComponent(".nowetl/shards/shard-0.json")))
            let merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 0, "\(merge.stderr)")
            #expect(merge.stderr.contains("interrupted commit is complete"), "\(merge.stderr)")
            #expect(Self.exists(out.appendingPathComponent("manifest.json")))
            #expect(Self.exists(out.appendingPathComponent("incident.csv")))
            #expect(!Self.exists(out.appendingPathComponent(".nowetl/shards")))
        }
    }

    /// docs/guides/shards.md's way with a pipeline that also has an incremental table: the shards run its full
    /// tables (`--table`), an ordinary run the incremental one — and the merge publishes the shards'
    /// tables rather than refusing the pipeline for a table no shard ran.
    @Test func aMergeOfTheFullTablesOfAPipelineWithAnIncrementalOne() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-mixed") { (directory: URL) in
            let pipeline = Self.pipeline(instance: sim.baseURL, outputDirectory: "out").replacingOccurrences(
                of: "outputs:\n",
                with:
                    "  - table: problem\n    mode: incremental\n    fields: [sys_id, number, sys_updated_on]\npublish: { mode: directories }\noutputs:\n"
            ).replacingOccurrences(of: "mode: replace", with: "mode: merge")
            #expect(pipeline.contains("mode: incremental"))
            try pipeline.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let unselected = try await Self.nowetl(["run", "p.yaml", "--shard", "0/2"], in: directory)
            #expect(unselected.status == 78)
            #expect(unselected.stderr.contains("shards export full tables only"), "\(unselected.stderr)")
            for index in 0..<2 {
                let shard = try await Self.nowetl(
                    ["run", "p.yaml", "--shard", "\(index)/2", "--table", "incident"], in: directory)
                #expect(shard.status == 0, "\(shard.stderr)")
            }
            let merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 0, "\(merge.stderr)")
            let out = directory.appendingPathComponent("out")
            let written = (FileManager.default.enumerator(atPath: out.path)?.allObjects as? [String] ?? []).map {
                ($0 as NSString).lastPathComponent
            }
            #expect(written.contains("incident.csv"), "\(written)")
            #expect(!written.contains("problem.csv"), "\(written)")
        }
    }

    /// A plain `nowetl run` on the shards' `output_dir` cleans only its own interrupted temporary files:
    /// a running shard's (here one standing in for its manifest being written) are the shard's.
    @Test func aPlainRunLeavesTheShardsTemporaryFilesAlone() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("shard-plain-run") { (directory: URL) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let out = directory.appendingPathComponent("out")
            let shards = out.appendingPathComponent(".nowetl/shards")
            try FileManager.default.createDirectory(at: shards, withIntermediateDirectories: true)
            let inFlight = shards.appendingPathComponent(".shard-1.json.tmp-0123456789abcdef")
            let ownTemporary = out.appendingPathComponent(".incident.csv.tmp-0123456789abcdef")
            try Data("{".utf8).write(to: inFlight)
            try Data("a,b".utf8).write(to: ownTemporary)
            let run = try await Self.nowetl(["run", "p.yaml"], in: directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!Self.exists(ownTemporary))
            #expect(Self.exists(inFlight))
        }
    }

    /// What shards do not support is refused before any request: exit 78 for an incremental table,
    /// exit 64 for a bad `--shard`.
    @Test func unsupportedPipelinesAndBadShardValuesAreRefused() async throws {
        try await withScratchDirectory("shard-refused") { (directory: URL) in
            let pipeline = PipelineYAML(
                instance: "http://127.0.0.1:9", auth: PipelineYAML.placeholderAuthBlock,
                tables: "  - table: incident\n    mode: incremental\n    fields: [number, sys_updated_on]"
            ).text
            try pipeline.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let incremental = try await Self.nowetl(["run", "p.yaml", "--shard", "0/2"], in: directory)
            #expect(incremental.status == 78)
            #expect(incremental.stderr.contains("incremental"), "\(incremental.stderr)")
            let merge = try await Self.nowetl(["merge", "p.yaml"], in: directory)
            #expect(merge.status == 78)
            let bad = try await Self.nowetl(["run", "p.yaml", "--shard", "2/2"], in: directory)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--shard"), "\(bad.stderr)")
            #expect(!Self.exists(directory.appendingPathComponent("out")))
        }
    }
}
