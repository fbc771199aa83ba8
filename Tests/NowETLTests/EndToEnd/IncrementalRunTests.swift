import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// `mode: incremental` end to end: the real `nowetl` binary run again and again against a real nowsim
/// whose incidents are updated, inserted and deleted between runs and while a run is in progress. The
/// promise checked after every run: the union of all runs' outputs — applied in run order, last write
/// wins, `_deleted_at` rows delete — equals the table, and no run delivers a record twice.
@Suite(.serialized, .timeLimit(.minutes(8))) struct IncrementalRunTests {
    static let seeded = 1_200

    static func pipeline(instance: URL, outputDirectory: String, lag: Int = 0) -> String {
        PipelineYAML(
            instance: instance.absoluteString, source: ["concurrency: 4", "page_size: 50"],
            outputDirectory: outputDirectory,
            tables: """
                  - table: incident
                    mode: incremental
                    deletes: true
                    lag_seconds: \(lag)
                    fields: [sys_id, number, short_description, sys_updated_on]
                """,
            outputs: #"  - json: { path: "{table}-{run_id}.jsonl" }"#
        ).text
    }

    /// Runs `nowetl run p.yaml` (plus `arguments`) in `directory`; returns the exit status and stderr.
    static func run(_ directory: URL, _ arguments: [String] = []) async throws -> (status: Int32, log: String) {
        try await IncrementalTestClock.waitForTheNextSecond()
        let result = try await NowETLProcess.run(["run", "p.yaml", "--progress", "off"] + arguments, in: directory)
        return (result.status, result.stderrText)
    }

    static func state(_ output: String) throws -> IncrementalTableState? {
        try IncrementalState.read(outputDirectory: output).tables["incident"]
    }

    /// The union equals the table, nothing doubled, and the state names the manifest's run.
    static func expectExact(_ sim: NowSimInstance, output: String, _ note: String) async throws {
        let table = try await IncidentTable(sim: sim).contents()
        let union = try await RunUnion.read(output)
        let differences = union.differences(from: table)
        #expect(differences.isEmpty, "\(note): \(differences.count) differences, e.g. \(differences.prefix(5))")
        #expect(union.duplicates.isEmpty, "\(note): delivered twice within a run: \(union.duplicates.prefix(5))")
        let manifest = try Manifest.read(fromDirectory: output)
        #expect(try state(output)?.runID == manifest.runID, "\(note): the state is not the committed run's")
    }

    @Test func unionOfTheRunsEqualsTheTableThroughUpdatesInsertsDeletesAndTheBoundary() async throws {
        try await withNowSim(arguments: seededNowSim("incident=\(Self.seeded)", value: 11)) { sim in
            let scratch = try Scratch("incremental", sim: sim)
            defer { scratch.remove() }
            let (directory, output) = (scratch.directory, scratch.output)
            let incidents = IncidentTable(sim: sim)

            // 1. The first run reads the whole table.
            var result = try await Self.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            var union = try await RunUnion.read(output)
            #expect(union.counts == [Self.seeded], "run 1 rows: \(union.counts)")
            try await Self.expectExact(sim, output: output, "run 1")

            // 2. Updates, inserts and deletes; last, 300 records updated within one second, which is so
            //    the greatest second the run delivers: the boundary the next run starts from.
            var ids = try await incidents.sysIDs()
            try await incidents.update(Array(ids[0..<40]), text: "changed once")
            let inserted = try await incidents.insert(25, text: "new")
            try await incidents.delete(Array(ids[40..<55]))
            let shared = TableAPIDateFormat.string(fromSeconds: Int(Date().timeIntervalSince1970))
            let sameSecond = Array(ids[100..<400])
            try await incidents.updateInOneSecond(sameSecond, text: "same second", updatedOn: shared)
            result = try await Self.run(directory)
            try #require(result.status == 0, "run 2: \(result.log)")
            union = try await RunUnion.read(output)
            let changed = 40 + 25 + 300 + 15
            #expect(union.counts.last == changed, "run 2 rows: \(union.counts)")
            #expect(union.deletions.last == 15, "run 2 deletions: \(union.deletions)")
            try await Self.expectExact(sim, output: output, "run 2")
            #expect(inserted.allSatisfy { union.rows[$0] != nil })

            // 3. The boundary: records that land late in the very second the last run ended with, after
            //    the last sys_id it delivered there (a slow commit), are delivered — and none of that
            //    second's records delivered before is delivered again.
            let saved = try #require(try Self.state(output))
            let boundary = try #require(saved.cursor)
            #expect(boundary == shared, "the boundary second is not the 300 records'")
            let last = try #require(saved.sysID)
            let late = (1...30).map { Self.sysID(after: last, by: $0) }
            for sysID in late {
                try await incidents.insert(sysID: sysID, updatedOn: boundary, text: "late in the boundary second")
            }
            result = try await Self.run(directory)
            try #require(result.status == 0, "run 3: \(result.log)")
            union = try await RunUnion.read(output)
            #expect(union.counts.last == late.count, "run 3 rows: \(union.counts)")
            try await Self.expectExact(sim, output: output, "run 3")

            // 4. Changes while a run is in progress (a full refresh, slowed down): left for the next run.
            ids = try await incidents.sysIDs()
            try await sim.setFaults(["delay:ms=100"])
            try await IncrementalTestClock.waitForTheNextSecond()
            let refresh = try NowETLProcess.start(
                ["run", "p.yaml", "--progress", "off", "--full-refresh"], in: directory)
            defer { refresh.removeDirectory() }
            // The run is under way once its journal holds a page.
            let journal = output + "/.nowetl/tables/incident/journal.jsonl"
            for _ in 0..<3000 {
                let text = (try? String(contentsOfFile: journal, encoding: .utf8)) ?? ""
                if text.contains("\"kind\":\"page\"") || refresh.poll() != nil { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let stride = ids.count / 20
            try await incidents.update((0..<20).map { ids[$0 * stride] }, text: "during the run")
            try await incidents.insert(10, text: "inserted during the run")
            try await incidents.delete((0..<10).map { ids[$0 * stride + 1] })
            let refreshed = try await refresh.wait(timeout: 240)
            try await sim.setFaults([])
            try #require(refreshed.status == 0, "run 4: \(refreshed.stderrText)")
            union = try await RunUnion.read(output)
            #expect(union.duplicates.isEmpty, "run 4 delivered records twice: \(union.duplicates.prefix(5))")
            // Changed after the signpost: a record read before its change comes with its old values, one
            // read after is left out (its cursor is past the signpost) — never half-read, never new values.
            let refreshFile = try #require(union.files.last)
            let refreshText = try String(contentsOfFile: output + "/" + refreshFile, encoding: .utf8)
            #expect(!refreshText.contains("during the run"), "run 4 delivered values written after its signpost")
            result = try await Self.run(directory)
            try #require(result.status == 0, "run 5: \(result.log)")
            try await Self.expectExact(sim, output: output, "run 5")

            // 5. Nothing changed: an empty run, and the state stays where it was.
            let before = try Self.state(output)
            result = try await Self.run(directory)
            try #require(result.status == 0, "run 6: \(result.log)")
            union = try await RunUnion.read(output)
            #expect(union.counts.last == 0, "run 6 rows: \(union.counts)")
            #expect(try Self.state(output)?.cursor == before?.cursor)
            #expect(try Self.state(output)?.sysID == before?.sysID)
            try await Self.expectExact(sim, output: output, "run 6")
        }
    }

    /// `hex` + `step` as a 32-digit hex sys_id (greater than `hex` for a positive step).
    static func sysID(after hex: String, by step: Int) -> String {
        var digits = Array(hex.utf8).map { UInt8(Int(String(UnicodeScalar($0)), radix: 16) ?? 0) }
        var carry = step
        for index in digits.indices.reversed() where carry > 0 {
            let sum = Int(digits[index]) + carry
            digits[index] = UInt8(sum % 16)
            carry = sum / 16
        }
        return digits.map { String($0, radix: 16) }.joined()
    }

    /// Deletions of a table others extend are audited under each record's own class; a run over its
    /// reject threshold (exit 2) does not move the state past the rejected records.
    /// Finding 6 of issue 24: the rerun of a killed run finishes the window its journal recorded and then,
    /// in the same run, catches up to its own signpost. On 1945ba2 it stopped at the old signpost, and
    /// what changed after the killed run started (updates, inserts, deletions) waited a whole night.
    /// Here every change made between the killed run and the rerun is in the rerun's output, each
    /// record once (a record changed in both windows in its newer form), a record read by the killed
    /// run and deleted afterwards as a deletion, and the state's signpost is the rerun's own.
    @Test func aResumedRunCatchesUpToItsOwnSignpost() async throws {
        try await withNowSim(arguments: seededNowSim("incident=400", value: 13)) { sim in
            let scratch = try Scratch("catch-up", sim: sim)
            defer { scratch.remove() }
            let (directory, output) = (scratch.directory, scratch.output)
            let incidents = IncidentTable(sim: sim)
            var result = try await Self.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")

            // A run over 120 changed records, killed after its first journaled page: its window is recorded.
            let ids = try await incidents.sysIDs()
            try await incidents.update(Array(ids[0..<120]), text: "before the kill")
            try await IncrementalTestClock.waitForTheNextSecond()
            let killed = try await NowETLProcess.run(
                ["run", "p.yaml", "--progress", "off"], in: directory,
                environment: [CrashPoint.environmentVariable: "spill-appended:2"])
            #expect(killed.status != 0, "the run was to die at its second spill: \(killed.stderrText)")
            let recorded = try #require(
                TableJournal.recordedWindow(
                    directory: TableJournal.directory(outputDirectory: output, table: "incident")))

            // Meanwhile: records of the killed window change again, others change, some are deleted
            // (two of them journaled by the killed run: their rows must give way to the deletions), some
            // are inserted.
            let journaled = try Self.journaledSysIDs(output: output, among: Array(ids[10..<120]))
            try #require(journaled.count >= 2, "the killed run journaled \(journaled.count) of the window's records")
            let goneFromTheWindow =
                Array(journaled.prefix(2)) + ids[110..<120].filter { !journaled.prefix(2).contains($0) }.prefix(3)
            try await IncrementalTestClock.waitForTheNextSecond()
            try await incidents.update(Array(ids[0..<10]) + Array(ids[200..<230]), text: "after the kill")
            try await incidents.delete(goneFromTheWindow + Array(ids[300..<305]))
            let inserted = try await incidents.insert(7, text: "inserted after the kill")

            result = try await Self.run(directory)
            try #require(result.status == 0, "rerun: \(result.log)")
            try await Self.expectExact(sim, output: output, "rerun")
            let union = try await RunUnion.read(output)
            #expect(inserted.allSatisfy { union.rows[$0] != nil })
            #expect(union.deletions.last == 10, "rerun deletions: \(union.deletions)")
            // 115 of the killed window's records (5 deleted), 30 others changed, 7 inserted, 10 deletions.
            let expected = 162
            #expect(union.counts.last == expected, "rerun rows: \(union.counts)")
            let state = try #require(try Self.state(output))
            #expect((state.signpost ?? "") > recorded.signpost, "\(state.signpost ?? "") ≤ \(recorded.signpost)")
        }
    }

    /// Those of `candidates` in the journaled bytes of the incident table's spill parts (what a killed
    /// run read and a rerun resumes with), found as text in the parts' journaled prefixes.
    static func journaledSysIDs(output: String, among candidates: [String]) throws -> [String] {
        let directory = TableJournal.directory(outputDirectory: output, table: "incident")
        let lines = try String(contentsOfFile: directory + "/journal.jsonl", encoding: .utf8).split(separator: "\n")
        var lengths: [Int: Int] = [:]
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["kind"] as? String == "page", let part = object["part"] as? Int,
                let bytes = object["bytes"] as? Int
            else { continue }
            lengths[part] = max(lengths[part] ?? 0, bytes)
        }
        var journaled = Data()
        for (part, length) in lengths {
            journaled += try Data(contentsOf: URL(fileURLWithPath: directory + "/part-\(part).spill")).prefix(length)
        }
        return candidates.filter { journaled.range(of: Data($0.utf8)) != nil }
    }

    @Test func childClassDeletionsCountAndARunOverItsRejectThresholdKeepsTheState() async throws {
        try await withNowSim(arguments: seededNowSim("incident=40,problem=20", value: 3)) { sim in
            try await withScratchDirectory("incremental-task") { (scratch: String) in
                let directory = URL(fileURLWithPath: scratch)
                try Self.pipeline(instance: sim.baseURL, outputDirectory: "out")
                    .replacingOccurrences(of: "table: incident", with: "table: task")
                    .replacingOccurrences(of: "{table}-{run_id}", with: "incident-{run_id}")
                    .write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
                var result = try await Self.run(directory)
                try #require(result.status == 0, "run 1: \(result.log)")
                let incidents = try await sim.request(
                    "/api/now/table/incident", query: [("sysparm_fields", "sys_id"), ("sysparm_limit", "3")])
                let problems = try await sim.request(
                    "/api/now/table/problem", query: [("sysparm_fields", "sys_id"), ("sysparm_limit", "2")])
                let deleted = (incidents.resultList + problems.resultList).compactMap { $0["sys_id"] as? String }
                try #require(deleted.count == 5)
                try await IncidentTable(sim: sim).delete(Array(deleted.prefix(3)))
                for sysID in deleted.suffix(2) {
                    let response = try await sim.request("DELETE", "/api/now/table/problem/\(sysID)")
                    try #require(response.status == 204)
                }
                result = try await Self.run(directory)
                try #require(result.status == 0, "run 2: \(result.log)")
                let union = try await RunUnion.read(scratch + "/out")
                #expect(union.deletions.last == 5, "deletions of incident and problem through task: \(union.deletions)")
                #expect(deleted.allSatisfy { union.rows[$0] == nil })

                // number as a date-time: every record is rejected, far over max 3 (exit 2).
                let rejecting = scratch + "/rejects"
                try FileManager.default.createDirectory(atPath: rejecting, withIntermediateDirectories: true)
                try Self.pipeline(instance: sim.baseURL, outputDirectory: "out")
                    .replacingOccurrences(
                        of: "    fields: [sys_id, number, short_description, sys_updated_on]",
                        with: """
                                columns:
                                  - { name: sys_id, path: sys_id }
                                  - { name: number, path: number, type: datetime }
                                reject: { mode: skip, max: 3 }
                            """
                    )
                    .write(
                        to: URL(fileURLWithPath: rejecting).appendingPathComponent("p.yaml"), atomically: true,
                        encoding: .utf8)
                result = try await Self.run(URL(fileURLWithPath: rejecting))
                #expect(result.status == 2, "\(result.log)")
                #expect(try Self.state(rejecting + "/out") == nil, "the state moved past the rejected records")
            }
        }
    }

    @Test func aFirstRunOfAnIncrementalTableNeedsReadAccessToTheDeletions() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=50", "--user", "admin:admin:admin", "--user", "etl:pw:itil",
        ]) { sim in
            try await withScratchDirectory("incremental-acl") { (scratch: String) in
                let directory = URL(fileURLWithPath: scratch)
                try Self.pipeline(instance: sim.baseURL, outputDirectory: "out")
                    .replacingOccurrences(of: "user: admin, password: admin", with: "user: etl, password: pw")
                    .write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
                let result = try await Self.run(directory)
                #expect(result.status == 77, "\(result.log)")
                #expect(result.log.contains("sys_audit_delete"), "\(result.log)")
                #expect(!FileManager.default.fileExists(atPath: scratch + "/out/manifest.json"))
                #expect(
                    !FileManager.default.fileExists(atPath: IncrementalState.path(outputDirectory: scratch + "/out")))
            }
        }
    }

    /// Runs killed with SIGKILL at random instants and at every crash point, round after round of
    /// changes: after every kill the state is the committed run's (or, while a commit record waits to
    /// be rolled forward, the old one or that record's), never ahead of the outputs; the reruns resume;
    /// and the union stays exact.
    @Test(.tags(.chaos)) func killedRunsNeverAdvanceTheStatePastWhatWasCommitted() async throws {
        let seed =
            ProcessInfo.processInfo.environment["CHAOS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        var random = SplitMix64(seed: seed)
        try await withNowSim(arguments: [
            "--seed", "incident=600", "--seed-value", "5", "--user", "admin:admin:admin", "--fault", "delay:ms=15",
        ]) { sim in
            let scratch = try Scratch("incremental-kills", sim: sim)
            defer { scratch.remove() }
            let (directory, output) = (scratch.directory, scratch.output)
            let incidents = IncidentTable(sim: sim)
            let first = try await Self.run(directory)
            try #require(first.status == 0, "seed \(seed), first run: \(first.log)")

            let kills: [RunKill] = [
                .at("spill-appended:2"), .random, .at("table-prepared"), .at("commit-record"), .random,
                .at("commit-rename:1"), .at("commit-rename:2"), .random, .at("commit-manifest"), .random,
            ]
            let statePath = IncrementalState.path(outputDirectory: output)
            let recordPath = RunCommit.recordPath(outputDirectory: output)
            for (round, kill) in kills.enumerated() {
                let note = "seed \(seed), round \(round + 1) (\(kill))"
                var ids = try await incidents.sysIDs()
                ids.shuffle(using: &random)
                try await incidents.update(Array(ids[0..<12]), text: "round \(round)")
                try await incidents.delete(Array(ids[12..<15]))
                try await incidents.insert(4, text: "round \(round)")
                try await IncrementalTestClock.waitForTheNextSecond()
                let stateBefore = try Data(contentsOf: URL(fileURLWithPath: statePath))
                let delay = Duration.milliseconds(Int.random(in: 50...600, using: &random))
                let status = try await Self.attempt(kill, delay: delay, in: directory)
                if case .at(let point) = kill, !point.hasPrefix("spill-appended") {
                    #expect(status == 137, "\(note): the crash point was not reached (exit \(status))")
                }
                let stateAfter = try Data(contentsOf: URL(fileURLWithPath: statePath))
                let state = try Self.state(output)
                if FileManager.default.fileExists(atPath: recordPath) {
                    // A decided commit: the state moves with it, and may be renamed already.
                    let record = try JSONDecoder().decode(
                        CommitRecord.self, from: Data(contentsOf: URL(fileURLWithPath: recordPath)))
                    #expect(
                        record.files.contains { $0.targetPath == statePath }, "\(note): the record leaves the state out"
                    )
                    #expect(stateAfter == stateBefore || state?.runID == record.runID, "\(note): state of another run")
                } else {
                    let manifest = try Manifest.read(fromDirectory: output)
                    #expect(state?.runID == manifest.runID, "\(note): the state is not the committed run's")
                    if status == 0 { try await Self.expectExact(sim, output: output, note) }
                }
                // Every other round, a clean rerun at once: it resumes or rolls forward, and is exact.
                if round % 2 == 1 {
                    let rerun = try await Self.run(directory)
                    try #require(rerun.status == 0, "\(note), rerun: \(rerun.log)")
                    try await Self.expectExact(sim, output: output, "\(note), rerun")
                }
            }
            let last = try await Self.run(directory)
            try #require(last.status == 0, "seed \(seed), last run: \(last.log)")
            try await Self.expectExact(sim, output: output, "seed \(seed), last run")
            #expect(!FileManager.default.fileExists(atPath: recordPath))
        }
    }

    /// Starts `nowetl run p.yaml` and kills it as `kill` says; returns its exit status (137 when killed).
    static func attempt(_ kill: RunKill, delay: Duration, in directory: URL) async throws -> Int32 {
        var point = ""
        if case .at(let name) = kill { point = name }
        let child = try NowETLProcess.start(
            ["run", "p.yaml", "--progress", "off"], in: directory, environment: [CrashPoint.environmentVariable: point])
        defer { child.removeDirectory() }
        if case .random = kill {
            try await Task.sleep(for: delay)
            // Not reaped yet, so the pid is still this child's (at worst a zombie).
            if child.poll() == nil { Glibc.kill(child.pid, SIGKILL) }
        }
        return try await child.wait(timeout: 240).status
    }

    /// A scratch directory holding `p.yaml` (``pipeline(instance:outputDirectory:lag:)`` against `sim`)
    /// and its output directory `out`.
    struct Scratch {
        let path: String
        var directory: URL { URL(fileURLWithPath: path) }
        var output: String { path + "/out" }

        init(_ label: String, sim: NowSimInstance) throws {
            path = try SinkTestSupport.scratchDirectory(label)
            try IncrementalRunTests.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                to: URL(fileURLWithPath: path).appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }
}
