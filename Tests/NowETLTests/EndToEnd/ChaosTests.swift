import Foundation
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

extension Tag {
    /// Tests that kill the real binary with SIGKILL and check what the next start makes of it.
    @Tag static var chaos: Self
}

/// `kill -9` of the real `nowetl` at random instants and at every crash point (``CrashPoint``,
/// `NOWETL_CRASH_AT`), resumed until a run completes, against a real nowsim (3,000 incidents,
/// 20 ms a page, 50 rows a page, 4 partitions) writing every format: CSV, XML records, gzip'd
/// JSON Lines, a JSON array and a CSV split every 700 rows (5 parts).
///
/// What is checked, and why it is the promise the engine makes:
///
/// * **After every kill, before the next start**, the output_dir is in one of three states:
///   - *no commit yet*: no `manifest.json` and no file at an output's final name (only hidden
///     temporary files and `.nowetl/`);
///   - *committed*: `manifest.json` lists exactly the visible files, every one byte-identical to the
///     clean run's file of that name, with the clean run's rows, bytes and SHA-256 (which were checked
///     against the files with `sha256sum`) — so the manifest is consistent with the files;
///   - *commit decided* (`.nowetl/commit.json` present: the kill came between the record and its
///     removal): here the visible files may mix two runs, which is allowed only because the next start
///     rolls the commit forward. So the check is that it can: every staged file the record names is
///     still at its temporary name or already at its target; for the kills at the commit's own crash
///     points the exact split between renamed and staged files is checked too (none renamed at
///     `commit-record`, the first K at `commit-rename:K`, all and the manifest at `commit-manifest` —
///     where the committed state above already holds).
/// * **After the next start's recovery**: a kill that left a record is followed by a start killed at
///   its first spill append (`spill-appended:1`): recovery and the removal of stale temporary files
///   have run, nothing of the new run is staged yet. There the state must be *committed*, with the
///   record's run_id in the manifest, no record, and no `.tmp-` file anywhere under output_dir. (One
///   scheduled start is killed in the middle of such a recovery, at `commit-rename:3`, so recovery
///   itself is shown to be resumable.)
/// * **At the end** (a final uninterrupted run, exit 0): every output byte-identical to the clean
///   run's, the manifest consistent, no `.tmp-` file, no `.nowetl/` left — and resume works: the Table
///   API page requests of all attempts (counted in nowsim's request log) are fewer than kills × the
///   clean run's, and within what the commits explain: each commit (a run that completed, or a decided
///   commit rolled forward) makes the next start export the table afresh, so the total is bounded by
///   exports × clean pages plus, per kill, a few in-flight pages and the extra pages of new splits.
///
/// Kill instants are drawn from a seeded generator (`CHAOS_SEED` to replay one); the seed is in every
/// failure message. Nothing here asserts a duration: the instants only spread the kills over a run.
@Suite(.tags(.chaos), .serialized, .timeLimit(.minutes(5))) struct ChaosTests {
    /// The scheduled kills; a recovery check (`spill-appended:1`) is inserted after every kill that
    /// leaves a commit record, unless the next one is meant to hit the recovery (`commit-rename:3`).
    ///
    /// Every crash point must be reached, so the order matters: `spill-appended:7` comes first (a start
    /// with every page journaled already fetches nothing), the recovery checks follow a commit (their
    /// start exports afresh), and the other points are reached by every run that does not fail.
    static let schedule: [RunKill] = [
        .at("spill-appended:7"), .random, .random, .at("table-prepared"), .at("commit-record"),
        .at("commit-rename:3"), .random, .at("commit-rename:2"), .random, .random, .at("commit-manifest"),
        .random,
    ]

    /// The environment of the runs that must not die (`NOWETL_CRASH_AT` empty arms nothing, whatever
    /// the test process's environment says).

    static let rows = 3_000
    static let pageSize = 50
    static let concurrency = 4

    static func pipeline(instance: URL, outputDirectory: String) -> String {
        PipelineYAML(
            instance: instance.absoluteString, source: ["concurrency: \(concurrency)", "page_size: \(pageSize)"],
            outputDirectory: outputDirectory,
            tables:
                "  - table: incident\n    fields: [number, short_description, description, caller_id, priority, opened_at, active]",
            outputs: """
                  - csv: { path: "{table}.csv" }
                  - xml: { path: "{table}.xml", format: records }
                  - json: { path: "{table}.jsonl.gz" }
                  - json: { path: "{table}.json", array: true }
                  - csv: { path: "{table}-split.csv.gz", split: { rows: 700 } }
                """
        ).text
    }

    @Test func killedRunsResumeToTheBytesOfACleanRun() async throws {
        let seed =
            ProcessInfo.processInfo.environment["CHAOS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        var random = SplitMix64(seed: seed)
        try await withNowSim(
            arguments: [
                "--seed", "incident=\(Self.rows)", "--seed-value", "7", "--user", "admin:admin:admin", "--fault",
                "delay:ms=20",
            ], logRequests: true
        ) { sim in
            let scratch = try SinkTestSupport.scratchDirectory("chaos")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let directory = URL(fileURLWithPath: scratch)
            for name in ["clean", "chaos"] {
                try Self.pipeline(instance: sim.baseURL, outputDirectory: name).write(
                    to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
            }
            func pageRequests() -> Int {
                sim.requestLog.filter { $0.contains(" GET /api/now/table/incident?") }.count
            }

            // The reference: a clean run.
            let clock = ContinuousClock()
            let started = clock.now
            let clean = try await NowETLProcess.run(["run", "clean.yaml", "--progress", "off"], in: directory)
            let cleanDuration = clock.now - started
            try #require(clean.status == 0, "clean run: \(clean.stderrText)")
            let cleanPages = pageRequests()
            let reference = try Reference(directory: scratch + "/clean")
            try await reference.verifyAgainstSHA256Sum()

            // The chaos: kill, check, start again.
            let output = scratch + "/chaos"
            var checker = Checker(output: output, reference: reference)
            var queue = Self.schedule[...]
            var kills = 0
            var pendingRecord: CommitRecord?
            var log: [String] = []
            while kills < 20, let next = queue.first {
                let kill: RunKill
                if pendingRecord != nil, case .at(let point) = next, point == "commit-rename:3" {
                    kill = queue.removeFirst()  // meant to die inside the recovery of that record
                } else if pendingRecord != nil {
                    kill = .at("spill-appended:1")  // the recovery check; the schedule waits
                } else {
                    kill = queue.removeFirst()
                }
                // Mostly inside the run: a resumed run is shorter than the clean one.
                let delay = cleanDuration * Double.random(in: 0.05...0.75, using: &random)
                let status = try await Self.attempt(kill, delay: delay, in: directory)
                let note = "seed \(seed), attempt \(log.count + 1) (\(kill)): exit \(status)"
                log.append("\(kill): \(status)")
                if case .at = kill {
                    #expect(status == 137, "\(note): the crash point was not reached")
                }
                guard status == 137 else {
                    #expect(status == 0, "\(note)")
                    checker.expectCommitted(note)
                    pendingRecord = nil
                    continue
                }
                kills += 1
                let recovering = pendingRecord
                pendingRecord = checker.afterKill(kill, recovering: recovering, note: note)
                if pendingRecord != nil { log[log.count - 1] += " (commit record left)" }
                if let recovering, pendingRecord == nil {
                    // The start after a decided commit was killed at its first page: recovery is done.
                    #expect(kill.description == "spill-appended:1", "\(note)")
                    checker.expectRecovered(recovering, note)
                }
            }
            #expect(queue.isEmpty, "seed \(seed): the schedule did not finish within 20 kills: \(log)")
            // Every crash point fired (a random kill may have added a record of its own).
            for point in Set(
                Self.schedule.compactMap { kill -> String? in
                    if case .at(let point) = kill { return point } else { return nil }
                })
            {
                #expect(log.contains { $0.hasPrefix(point + ": 137") }, "seed \(seed): \(point) never fired: \(log)")
            }

            // The final, uninterrupted run.
            let final = try await NowETLProcess.run(["run", "chaos.yaml", "--progress", "off"], in: directory)
            let note = "seed \(seed), final run; attempts: \(log.joined(separator: ", "))"
            try #require(final.status == 0, "\(note): \(final.stderrText)")
            checker.expectCommitted(note)
            checker.expectNoTemporaryFile(note)
            #expect(!FileManager.default.fileExists(atPath: output + "/.nowetl"), "\(note): .nowetl/ is left")

            let chaosPages = pageRequests() - cleanPages
            let exports = checker.commitRunIDs.count
            let slack = kills * 3 * Self.concurrency
            // Resuming is what keeps this bound: every export (a run that ended with exit 0, a commit
            // recovered) costs one clean run's pages, and a kill at most a few pages in flight, however
            // many attempts an export took. The bound is per export, not per kill: a random kill that
            // comes after its run has ended — as runs do when the load on the machine drops — adds an
            // export, not a kill.
            #expect(
                chaosPages <= exports * cleanPages + slack,
                "\(note): \(chaosPages) page requests for \(exports) exports of \(cleanPages) pages and \(kills) kills")
        }
    }

    /// Starts `nowetl run chaos.yaml` and kills it as `kill` says; returns its exit status (137 when killed).
    static func attempt(_ kill: RunKill, delay: Duration, in directory: URL) async throws -> Int32 {
        var point = ""
        if case .at(let name) = kill { point = name }
        let child = try NowETLProcess.start(
            ["run", "chaos.yaml", "--progress", "off"], in: directory,
            environment: [CrashPoint.environmentVariable: point])
        defer { child.removeDirectory() }
        if case .random = kill {
            try await Task.sleep(for: delay)
            // Not reaped yet, so the pid is still this child's (at worst a zombie).
            if child.poll() == nil { Glibc.kill(child.pid, SIGKILL) }
        }
        let result = try await child.wait(timeout: 240)
        return result.status
    }
}

/// The clean run's files and manifest.
struct Reference {
    let directory: String
    let manifest: Manifest
    let files: [String: Data]

    init(directory: String) throws {
        self.directory = directory
        manifest = try Manifest.read(fromDirectory: directory)
        var files: [String: Data] = [:]
        for entry in manifest.files {
            files[entry.path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + entry.path))
        }
        self.files = files
    }

    /// The clean manifest against the files, with tools of its own: every output present (5 split
    /// parts of 700, 700, 700, 700 and 200 rows), rows, bytes and `sha256sum`'s digests as listed.
    func verifyAgainstSHA256Sum() async throws {
        let paths = manifest.files.map(\.path)
        #expect(paths.count == 9, "\(paths)")
        #expect(ChaosTests.visibleFiles(directory) == Set(paths + ["manifest.json"]))
        for format in ["csv", "xml-records", "jsonl", "json"] {
            let rows = manifest.files.filter { $0.format == format && $0.part == nil }.map(\.rows)
            #expect(rows == [ChaosTests.rows], "\(format): \(rows)")
        }
        #expect(manifest.files.compactMap { $0.part == nil ? nil : $0.rows } == [700, 700, 700, 700, 200])
        let sums = try await Subprocess.run(
            Subprocess.tool("sha256sum"), paths, directory: URL(fileURLWithPath: directory))
        try #require(sums.status == 0, "\(sums.stderrText)")
        var digests: [String: String] = [:]
        for line in sums.stdoutText.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 1)
            if words.count == 2 { digests[String(words[1].drop { $0 == " " || $0 == "*" })] = String(words[0]) }
        }
        for entry in manifest.files {
            #expect(digests[entry.path] == entry.sha256, "\(entry.path)")
            #expect(files[entry.path]?.count == entry.bytes, "\(entry.path)")
        }
    }
}

/// The checks on the chaos output_dir (see ``ChaosTests``).
struct Checker {
    let output: String
    let reference: Reference
    /// The run_ids of the commits seen so far (each makes the next start export afresh).
    private(set) var commitRunIDs: Set<String> = []

    init(output: String, reference: Reference) {
        self.output = output
        self.reference = reference
    }

    var recordPath: String { output + "/.nowetl/commit.json" }

    /// Checks the state a kill left; returns the commit record when one is in place (a decided commit).
    mutating func afterKill(_ kill: RunKill, recovering: CommitRecord?, note: String) -> CommitRecord? {
        guard FileManager.default.fileExists(atPath: recordPath) else {
            if FileManager.default.fileExists(atPath: output + "/manifest.json") {
                expectCommitted(note)
            } else {
                let visible = ChaosTests.visibleFiles(output)
                #expect(visible.isEmpty, "\(note): no commit yet, yet files at their final names: \(visible)")
            }
            return nil
        }
        let record: CommitRecord
        do {
            record = try JSONDecoder().decode(
                CommitRecord.self, from: Data(contentsOf: URL(fileURLWithPath: recordPath)))
        } catch {
            Issue.record("\(note): the commit record does not parse: \(error)")
            return nil
        }
        if let recovering {
            #expect(record.runID == recovering.runID, "\(note): a new record replaced the one being recovered")
        }
        commitRunIDs.insert(record.runID)
        // Everything the roll-forward needs is there.
        for file in record.files + [record.manifest].compactMap({ $0 }) {
            let staged = Self.exists(file.temporaryPath)
            #expect(
                staged || Self.exists(file.targetPath), "\(note): \(file.displayPath) is neither staged nor in place")
        }
        #expect(record.files.count == reference.manifest.files.count, "\(note): \(record.files.map(\.displayPath))")
        // At the commit's own crash points (not inside a recovery) the renames done are exactly known.
        guard recovering == nil, case .at(let point) = kill else { return record }
        let renamed = record.files.filter { !Self.exists($0.temporaryPath) }.count
        let manifestPlaced = record.manifest.map { !Self.exists($0.temporaryPath) } ?? false
        switch point {
        case "commit-record":
            #expect(renamed == 0 && !manifestPlaced, "\(note): \(renamed) renamed")
        case "commit-manifest":
            #expect(renamed == record.files.count && manifestPlaced, "\(note): \(renamed) renamed")
            expectCommitted(note)
        case let point where point.hasPrefix("commit-rename:"):
            let count = CrashPoint.Trigger(point)?.occurrence ?? 0
            #expect(renamed == count && !manifestPlaced, "\(note): \(renamed) renamed")
            let inPlace = record.files.prefix(count).allSatisfy { Self.exists($0.targetPath) }
            #expect(inPlace, "\(note): the first \(count) files are not in place")
        default:
            break  // a random kill that happened to land inside the commit
        }
        return record
    }

    /// The state right after the recovery of `record`: its commit complete, nothing temporary left.
    func expectRecovered(_ record: CommitRecord, _ note: String) {
        let manifest = try? Manifest.read(fromDirectory: output)
        #expect(manifest?.runID == record.runID, "\(note): the recovered manifest is \(manifest?.runID ?? "missing")")
        #expect(!FileManager.default.fileExists(atPath: recordPath), "\(note): the record is still there")
        expectNoTemporaryFile(note)
    }

    /// The manifest lists exactly the visible files, each byte-identical to the clean run's and
    /// described as the clean manifest describes it (so rows, bytes and SHA-256 match the file).
    mutating func expectCommitted(_ note: String) {
        guard let manifest = try? Manifest.read(fromDirectory: output) else {
            Issue.record("\(note): no readable manifest.json")
            return
        }
        commitRunIDs.insert(manifest.runID)
        #expect(manifest.failedTables == nil, "\(note)")
        #expect(
            manifest.files == reference.manifest.files, "\(note): the manifest's entries differ from the clean run's")
        let visible = ChaosTests.visibleFiles(output)
        #expect(visible == Set(manifest.files.map(\.path) + ["manifest.json"]), "\(note): \(visible.sorted())")
        for entry in manifest.files {
            let data = try? Data(contentsOf: URL(fileURLWithPath: output + "/" + entry.path))
            #expect(data == reference.files[entry.path], "\(note): \(entry.path) differs from the clean run's")
        }
    }

    func expectNoTemporaryFile(_ note: String) {
        let left = (FileManager.default.subpaths(atPath: output) ?? []).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "\(note): temporary files left: \(left)")
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

extension ChaosTests {
    /// The names in `directory` that are not hidden (outputs and the manifest at their final names).
    static func visibleFiles(_ directory: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") })
    }
}
