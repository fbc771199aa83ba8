import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `keep_runs: N`: after a commit, per-run files of committed runs beyond the newest N go; nothing else
/// in `output_dir` does. Real `nowetl` runs against a real nowsim, real files.
@Suite(.timeLimit(.minutes(5))) struct StateRunRetentionTests {
    /// A pipeline of incident with a per-run CSV kept for `keep` runs, a per-run JSON Lines file kept for
    /// every run, and a fixed-name CSV.
    static func pipeline(_ sim: NowSimInstance, keep: Int) -> PipelineYAML {
        PipelineYAML(
            sim, tables: "  - table: incident\n    fields: [number, short_description]",
            outputs: """
                  - csv: { path: "{table}-{run_id}.csv", keep_runs: \(keep) }
                  - json: { path: "{table}-{run_id}.jsonl" }
                  - csv: { path: "{table}.csv" }
                """)
    }

    /// Runs the pipeline `p.yaml` in `directory` and returns the committed run's id (from its manifest)
    /// and what it logged.
    static func run(
        in directory: URL, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (runID: String, log: String) {
        let result = try await NowETLProcess.run(
            ["run", "p.yaml", "--progress", "off"], in: directory, environment: environment)
        try #require(result.status == 0, "nowetl run: \(result.stderrText)", sourceLocation: sourceLocation)
        let manifest = try Manifest.read(fromDirectory: directory.appendingPathComponent("out").path)
        return (manifest.runID, result.stderrText)
    }

    /// The names in `out/` that are not hidden.
    static func visible(_ directory: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path))
            .filter { !$0.hasPrefix(".") }
    }

    static func files(of runs: [String], _ prefix: String = "incident-", _ suffix: String = ".csv") -> Set<String> {
        Set(runs.map { prefix + $0 + suffix })
    }

    @Test func keepsExactlyTheNewestRunsAndLeavesEverythingElse() async throws {
        try await withNowSim(arguments: seededNowSim("incident=12", value: 3)) { sim in
            try await withScratchDirectory { (directory: URL) in
                try Self.pipeline(sim, keep: 2).write("p.yaml", in: directory)
                var runs: [String] = []
                for _ in 0..<2 { runs.append(try await Self.run(in: directory).runID) }
                // N runs: N sets, nothing removed yet.
                #expect(
                    try Self.visible(directory).filter { $0.hasSuffix(".csv") }
                        == Self.files(of: runs).union(["incident.csv"]))

                // A file of a foreign name, and one shaped like the template that no run committed.
                let out = directory.appendingPathComponent("out")
                let foreign = ["notes.txt", "incident-20000101T000000Z-beef.csv", "incident-by-hand.csv"]
                for name in foreign { try Data("x\n".utf8).write(to: out.appendingPathComponent(name)) }

                var logs: [String] = []
                for _ in 0..<2 {
                    let (runID, log) = try await Self.run(in: directory)
                    runs.append(runID)
                    logs.append(log)
                }
                let names = try Self.visible(directory)
                #expect(
                    names.filter { $0.hasSuffix(".csv") && !foreign.contains($0) }
                        == Self.files(of: runs.suffix(2)).union(["incident.csv"]))
                // The output without keep_runs keeps every run's file; foreign files stay.
                #expect(names.filter { $0.hasSuffix(".jsonl") } == Self.files(of: runs, "incident-", ".jsonl"))
                for name in foreign { #expect(names.contains(name)) }

                // Each of the last two runs removed the oldest run's file, and said so.
                for (index, log) in logs.enumerated() {
                    let line = log.split(separator: "\n").first { $0.contains("msg=\"removed old run files\"") }
                    let text = String(line ?? "")
                    #expect(text.contains("table=incident"), "\(log)")
                    #expect(text.contains("keep_runs=2"))
                    #expect(text.contains("files=1"))
                    #expect(text.contains("paths=incident-\(runs[index]).csv"), "\(text)")
                }
                // The ledger lists the kept runs only.
                let ledger = try RetentionLedger.read(outputDirectory: out.path)
                #expect(ledger.runs.map(\.runID) == Array(runs.suffix(2)))
            }
        }
    }

    @Test func aRunThatCrashedBeforeItsCommitIsNotCountedAndOneRolledForwardIs() async throws {
        try await withNowSim(arguments: seededNowSim("incident=12", value: 5)) { sim in
            try await withScratchDirectory { (directory: URL) in
                try Self.pipeline(sim, keep: 2).write("p.yaml", in: directory)
                let first = try await Self.run(in: directory).runID

                // Killed with its outputs staged: no commit, so no run.
                let crashed = try await NowETLProcess.run(
                    ["run", "p.yaml", "--progress", "off"], in: directory,
                    environment: [NowETLProcess.crashPointVariable: "table-prepared"])
                #expect(crashed.status != 0)
                let second = try await Self.run(in: directory).runID
                #expect(
                    try Self.visible(directory).filter { $0.hasSuffix(".csv") }
                        == Self.files(of: [first, second]).union(["incident.csv"]))

                // Killed after its commit was decided (manifest in place, no retention yet): the next
                // start rolls it forward, and it counts as a committed run.
                let decided = try await NowETLProcess.run(
                    ["run", "p.yaml", "--progress", "off"], in: directory,
                    environment: [NowETLProcess.crashPointVariable: "commit-manifest"])
                #expect(decided.status != 0)
                let third = try Manifest.read(fromDirectory: directory.appendingPathComponent("out").path).runID
                #expect(third != second)
                let fourth = try await Self.run(in: directory).runID
                #expect(
                    try Self.visible(directory).filter { $0.hasSuffix(".csv") }
                        == Self.files(of: [third, fourth]).union(["incident.csv"]))
                let fifth = try await Self.run(in: directory).runID
                #expect(
                    try Self.visible(directory).filter { $0.hasSuffix(".csv") }
                        == Self.files(of: [fourth, fifth]).union(["incident.csv"]))
            }
        }
    }

    @Test func aRemovalThatFailsIsAWarningAndTheRunStaysCommitted() async throws {
        try await withNowSim(arguments: seededNowSim("incident=6", value: 7)) { sim in
            try await withScratchDirectory { (directory: URL) in
                try Self.pipeline(sim, keep: 1).write("p.yaml", in: directory)
                let first = try await Self.run(in: directory).runID
                // The file was replaced since nowetl committed it: not nowetl's to remove any more.
                let replaced = directory.appendingPathComponent("out/incident-\(first).csv")
                try Data("edited by hand\n".utf8).write(to: replaced)
                let (second, log) = try await Self.run(in: directory)
                #expect(log.contains("level=warning msg=\"old run file left in place"), "\(log)")
                #expect(FileManager.default.fileExists(atPath: replaced.path))
                #expect(try Self.visible(directory).contains("incident-\(second).csv"))
            }
        }
    }

    static let head = """
        version: 1
        source:
          instance: https://acme.service-now.com
          auth: { basic: { user: etl, password: "${SN_PASSWORD}" } }
        tables:
          - table: incident
        outputs:

        """

    static let mistakes: [ConfigErrorCase] = [
        ConfigErrorCase(
            "zero", head + "  - csv: { path: \"{table}-{run_id}.csv\", keep_runs: 0 }\n",
            "p.yaml:8:53: error: outputs[0].csv.keep_runs must be at least 1, got 0: the newest run's files are the "
                + "ones consumers read (set it higher, not lower, for a consumer that needs more time)"),
        ConfigErrorCase(
            "not an integer", head + "  - json: { path: \"{table}-{run_date}.jsonl\", keep_runs: two }\n",
            "p.yaml:8:58: error: expected an integer for outputs[0].json.keep_runs, got \"two\""),
        ConfigErrorCase(
            "a fraction", head + "  - json: { path: \"{table}-{run_date}.jsonl\", keep_runs: 1.5 }\n",
            "p.yaml:8:58: error: expected an integer for outputs[0].json.keep_runs, got \"1.5\""),
        ConfigErrorCase(
            "no per-run placeholder", head + "  - xml: { path: \"{table}.xml\", keep_runs: 3 }\n",
            "p.yaml:8:33: error: outputs[0].xml.keep_runs needs a per-run path: \"{table}.xml\" has no {run_id} or "
                + "{run_date}, so each run replaces the same file and there are no older runs to remove"),
        ConfigErrorCase(
            "on a database", head + "  - sqlite: { path: \"{run_id}.db\", keep_runs: 3 }\n",
            "p.yaml:8:36: error: unknown key 'keep_runs' in outputs[0].sqlite; expected one of path, mode, table_name, "
                + "on_type_change, prune, deletes"),
        ConfigErrorCase(
            "with publish directories",
            head + "  - csv: { path: \"{table}-{run_id}.csv\", keep_runs: 3 }\npublish: { mode: directories }\n",
            "p.yaml:8:42: error: outputs[0].csv.keep_runs does not apply with publish mode directories: each run has "
                + "its own directory there, and publish: { keep: N } says how many stay"),
    ]

    @Test(arguments: mistakes) func aMistakeIsAPositionedConfigError(_ mistake: ConfigErrorCase) {
        mistake.check()
    }

    @Test func keepRunsIsReadOnEveryFileFormat() throws {
        let yaml =
            Self.head + """
                  - csv: { path: "{table}-{run_id}.csv", keep_runs: 3 }
                  - json: { path: "{run_date}/{table}.jsonl", keep_runs: 1 }
                  - xml: { path: "{table}-{run_id}-{part}.xml", split: { rows: 10 }, keep_runs: 10000 }
                  - csv: { path: "{table}-{run_id}-all.csv" }
                """
        let configuration = try PipelineLoader.load(text: yaml, file: "p.yaml", environment: ["SN_PASSWORD": "x"])
        #expect(configuration.outputs.map(\.file.keepRuns) == [3, 1, 10000, nil])
        let retention = try #require(RunRetention(configuration: configuration))
        #expect(retention.outputs.map(\.index) == [0, 1, 2])
    }
}
