import Foundation
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// nowetl's own files in `output_dir`: no symbolic link followed, modes whatever the umask, and one
/// pipeline per `output_dir` — on the real `nowetl` against `nowsim`, and on the primitives.
@Suite(.timeLimit(.minutes(6))) struct StateOwnFilesTests {
    /// An incremental table whose every record is rejected into dead letters (`number` is no integer),
    /// and a full table, written as CSV, JSON, the manifest and a SQLite database.
    static func pipeline(instance: URL, outputDirectory: String, fileMode: String? = nil) -> String {
        PipelineYAML(
            instance: instance.absoluteString, source: ["page_size: 100"], outputDirectory: outputDirectory,
            settings: fileMode.map { ["file_mode: \"\($0)\""] } ?? [],
            tables: """
                  - table: incident
                    mode: incremental
                    fields: [sys_id, number, sys_updated_on]
                    columns:
                      - { name: sys_id, path: sys_id }
                      - { name: number, path: number, type: int }
                    reject: { mode: dead_letter }
                  - table: sys_user
                    fields: [sys_id, user_name]
                """,
            outputs: """
                  - csv: { path: "{table}-{run_id}.csv" }
                  - json: { path: "json/{table}-{run_id}.jsonl" }
                  - sqlite: { path: "report.db" }
                """
        ).text
    }

    /// Runs `nowetl ARGUMENTS` in `directory` under umask 022 (the usual one, which left outputs 0644).
    static func nowetl(
        _ arguments: [String], in directory: String, environment: [String: String] = [:]
    ) async throws -> (status: Int32, log: String) {
        let command = "umask 022; exec \"$0\" \"$@\""
        let result = try await Subprocess.run(
            "/bin/sh", ["-c", command, NowETLProcess.path] + arguments,
            directory: URL(fileURLWithPath: directory), environment: NowETLProcess.environment(environment),
            timeout: 240)
        return (result.status, result.stderrText)
    }

    /// The permission bits of `path` (not following a link), `nil` when it does not exist.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Every file and directory below `directory`, relative to it.
    static func everything(_ directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).sorted()
    }

    static func octal(_ mode: mode_t?) -> String { mode.map { String($0, radix: 8) } ?? "missing" }

    // MARK: - Modes

    @Test func everyFileGetsItsModeUnderUmask022() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("modes") { (scratch: String) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                toFile: scratch + "/p.yaml", atomically: true, encoding: .utf8)
            let out = scratch + "/out"

            // Killed right after its commit record: journals, spills, the record and every staged file are on disk.
            let crashed = try await Self.nowetl(
                ["run", "p.yaml", "--progress", "off"], in: scratch,
                environment: [CrashPoint.environmentVariable: "commit-record"])
            #expect(crashed.status != 0)
            let staged = Self.everything(out)
            #expect(staged.contains { $0.hasPrefix(".nowetl/tables/incident/") && $0.hasSuffix(".spill") }, "\(staged)")
            #expect(staged.contains(".nowetl/commit.json"), "\(staged)")
            for relative in staged {
                let path = out + "/" + relative
                let name = (relative as NSString).lastPathComponent
                let mode = Self.mode(path)
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                if relative == ".nowetl" || relative.hasPrefix(".nowetl/") {
                    #expect(mode == (isDirectory.boolValue ? 0o700 : 0o600), "\(relative): \(Self.octal(mode))")
                } else if name == OutputDirectoryLock.fileName || name.contains(".rejects") {
                    #expect(mode == 0o600, "\(relative): \(Self.octal(mode))")
                } else if isDirectory.boolValue {
                    #expect(mode == 0o750, "\(relative): \(Self.octal(mode))")
                } else {
                    #expect(mode == 0o640, "\(relative): \(Self.octal(mode))")
                }
            }

            // The rerun finishes that commit and runs again (everything, so there are dead letters again):
            // every committed file has its mode.
            let rerun = try await Self.nowetl(["run", "p.yaml", "--progress", "off", "--full-refresh"], in: scratch)
            #expect(rerun.status == 0, "\(rerun.log)")
            let committed = Self.everything(out)
            let expected: [(name: String, mode: mode_t)] = [
                ("", 0o750), (".nowetl.lock", 0o600), (".nowetl", 0o700), (".nowetl/state.json", 0o600),
                ("manifest.json", 0o640), ("report.db", 0o640), ("json", 0o750),
            ]
            // An incremental table keeps each run's dead letters (incident.rejects-<run_id>.jsonl): all 0600.
            let rejects = committed.filter { $0.hasPrefix("incident.rejects-") && $0.hasSuffix(".jsonl") }
            #expect(!rejects.isEmpty, "\(committed)")
            for relative in rejects {
                #expect(
                    Self.mode(out + "/" + relative) == 0o600,
                    "\(relative): \(Self.octal(Self.mode(out + "/" + relative)))")
            }
            for (relative, wanted) in expected {
                let mode = Self.mode(relative.isEmpty ? out : out + "/" + relative)
                #expect(mode == wanted, "\(relative): \(Self.octal(mode)), expected \(Self.octal(wanted))")
            }
            let data = committed.filter { ($0.hasSuffix(".csv") || $0.hasSuffix(".jsonl")) && !$0.contains(".rejects") }
            #expect(data.count == 8, "two runs of two tables in two formats: \(committed)")
            for relative in data {
                #expect(
                    Self.mode(out + "/" + relative) == 0o640,
                    "\(relative): \(Self.octal(Self.mode(out + "/" + relative)))")
            }
        }
    }

    @Test func fileModeIsHonoured() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("filemode") { (scratch: String) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out", fileMode: "0600").write(
                toFile: scratch + "/p.yaml", atomically: true, encoding: .utf8)
            // An output_dir that exists keeps its mode.
            try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: false)
            #expect(chmod(scratch + "/out", 0o755) == 0)
            let result = try await Self.nowetl(["run", "p.yaml", "--progress", "off"], in: scratch)
            #expect(result.status == 0, "\(result.log)")
            let out = scratch + "/out"
            #expect(Self.mode(out) == 0o755)
            let data = Self.everything(out).filter {
                ($0.hasSuffix(".csv") || $0.hasSuffix(".jsonl")) && !$0.contains(".rejects")
            }
            #expect(data.count == 4)
            for name in data + ["manifest.json", "report.db"] {
                #expect(Self.mode(out + "/" + name) == 0o600, "\(name): \(Self.octal(Self.mode(out + "/" + name)))")
            }
            #expect(Self.mode(out + "/json") == 0o700)
            #expect(Self.mode(out + "/.nowetl/state.json") == 0o600)
        }
    }

    // MARK: - Symbolic links

    @Test func plantedLinkAtTheLockLeavesItsTargetUntouched() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("locklink") { (scratch: String) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                toFile: scratch + "/p.yaml", atomically: true, encoding: .utf8)
            let victim = scratch + "/precious.txt"
            try "do not truncate me\n".write(toFile: victim, atomically: true, encoding: .utf8)
            #expect(chmod(victim, 0o644) == 0)
            try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: false)
            #expect(symlink(victim, scratch + "/out/.nowetl.lock") == 0)

            let result = try await Self.nowetl(["run", "p.yaml", "--progress", "off"], in: scratch)
            #expect(result.status == 73, "\(result.log)")
            #expect(result.log.contains("out/.nowetl.lock is a symbolic link"), "\(result.log)")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "do not truncate me\n")
            #expect(Self.mode(victim) == 0o644)
            #expect(Self.everything(scratch + "/out") == [".nowetl.lock"], "nothing else written")
        }
    }

    @Test func plantedLinkAtTheStateDirectoryIsRefused() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("statelink") { (scratch: String) in
            try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                toFile: scratch + "/p.yaml", atomically: true, encoding: .utf8)
            let elsewhere = scratch + "/elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: false)
            #expect(symlink(elsewhere, scratch + "/out/.nowetl") == 0)

            let result = try await Self.nowetl(["run", "p.yaml", "--progress", "off"], in: scratch)
            #expect(result.status == 73, "\(result.log)")
            #expect(result.log.contains("out/.nowetl is a symbolic link"), "\(result.log)")
            #expect(Self.everything(elsewhere).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: scratch + "/out/manifest.json"))
        }
    }

    @Test func linksAreNeverFollowedByThePrimitives() throws {
        try withScratchDirectory("primitives") { (scratch: String) in
            let victim = scratch + "/victim"
            try "keep\n".write(toFile: victim, atomically: true, encoding: .utf8)
            #expect(symlink(victim, scratch + "/planted") == 0)
            for flags in [O_WRONLY | O_CREAT, O_WRONLY | O_APPEND, O_RDONLY] {
                let error = #expect(throws: NowETLError.self) {
                    _ = try OwnFiles.open(scratch + "/planted", flags, action: "open")
                }
                #expect(error?.exitCode == 73)
                #expect(error?.message.contains("planted is a symbolic link") == true, "\(error?.message ?? "")")
            }
            // A spill part and a state directory behind a link are refused too.
            #expect(throws: NowETLError.self) { _ = try SpillWriter(path: scratch + "/planted") }
            try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: false)
            #expect(symlink(scratch, scratch + "/out/.nowetl") == 0)
            let error = #expect(throws: NowETLError.self) {
                try OwnFiles.makeDirectories(scratch + "/out/.nowetl/tables")
            }
            #expect(error?.exitCode == 73)
            #expect(!FileManager.default.fileExists(atPath: scratch + "/tables"))
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep\n")
        }
    }

    @Test func atomicFileAndDirectoriesIgnoreTheUmask() throws {
        try withScratchDirectory("umask") { (scratch: String) in
            // mkdir and open narrow the mode by the umask (0o022 here, the test process's own untouched):
            // the primitives set what they were asked for anyway, wider or narrower.
            for mode: mode_t in [0o600, 0o640, 0o664] {
                let file = try AtomicFile(targetPath: scratch + "/f\(mode)", displayPath: "f", mode: mode)
                try file.commit()
                #expect(Self.mode(scratch + "/f\(mode)") == mode)
            }
            try OwnFiles.makeDirectories(scratch + "/a/b/.nowetl/tables/x", mode: 0o750)
            #expect(Self.mode(scratch + "/a") == 0o750 && Self.mode(scratch + "/a/b") == 0o750)
            for path in ["/a/b/.nowetl", "/a/b/.nowetl/tables", "/a/b/.nowetl/tables/x"] {
                #expect(Self.mode(scratch + path) == 0o700, "\(path)")
            }
            #expect(OwnFiles.directoryMode(forFileMode: 0o640) == 0o750)
            #expect(OwnFiles.directoryMode(forFileMode: 0o644) == 0o755)
            #expect(OwnFiles.directoryMode(forFileMode: 0o600) == 0o700)
        }
    }

    @Test(arguments: [
        ("0640", 0o640 as mode_t?), ("640", 0o640), ("0600", 0o600), ("0666", 0o666), ("0755", nil), ("0440", nil),
        ("4640", nil), ("064", nil), ("00640", nil), ("0o640", nil), ("0680", nil), ("", nil),
    ])
    func fileModeText(text: String, mode: mode_t?) {
        #expect(PipelineConfiguration.fileMode(text) == mode)
    }

    // MARK: - Ownership

    @Test func secondPipelineOnTheSameOutputDirectoryIsRefused() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory("owner") { (scratch: String) in
            for name in ["a", "b"] {
                try Self.pipeline(instance: sim.baseURL, outputDirectory: "out").write(
                    toFile: scratch + "/\(name).yaml", atomically: true, encoding: .utf8)
            }
            let first = try await Self.nowetl(["run", "a.yaml", "--progress", "off"], in: scratch)
            #expect(first.status == 0, "\(first.log)")
            let before = Dictionary(
                uniqueKeysWithValues: Self.everything(scratch + "/out").map {
                    ($0, FileManager.default.contents(atPath: scratch + "/out/" + $0))
                })

            let second = try await Self.nowetl(["run", "b.yaml", "--progress", "off"], in: scratch)
            #expect(second.status == 78, "\(second.log)")
            let a = OutputDirectoryLock.pipelineIdentity(of: scratch + "/a.yaml")
            let b = OutputDirectoryLock.pipelineIdentity(of: scratch + "/b.yaml")
            #expect(second.log.contains("belongs to the pipeline \(a), not to \(b)"), "\(second.log)")
            #expect(second.log.contains(scratch + "/out: "), "\(second.log)")
            let after = Dictionary(
                uniqueKeysWithValues: Self.everything(scratch + "/out").map {
                    ($0, FileManager.default.contents(atPath: scratch + "/out/" + $0))
                })
            #expect(after == before, "nothing written or removed")

            // `state reset` of the other pipeline is refused the same way; the owner reruns as usual.
            let reset = try await Self.nowetl(["state", "reset", "b.yaml"], in: scratch)
            #expect(reset.status == 78, "\(reset.log)")
            #expect(try IncrementalState.read(outputDirectory: scratch + "/out").tables["incident"] != nil)
            let again = try await Self.nowetl(["run", "a.yaml", "--progress", "off"], in: scratch)
            #expect(again.status == 0, "\(again.log)")
        }
    }

    @Test func ownershipIsRecordedAndKeptAcrossRuns() throws {
        try withScratchDirectory("ownerunit") { (scratch: String) in
            let started = Date()
            let lock = try OutputDirectoryLock.acquire(
                directory: scratch, runID: "r1", started: started, pipeline: "/p/a \"quoted\".yaml")
            lock.release()
            let text = try String(contentsOfFile: scratch + "/.nowetl.lock", encoding: .utf8)
            #expect(text == "pipeline: \"/p/a \\\"quoted\\\".yaml\"\n")
            #expect(Self.mode(scratch + "/.nowetl.lock") == 0o600)

            let error = #expect(throws: NowETLError.self) {
                _ = try OutputDirectoryLock.acquire(
                    directory: scratch, runID: "r2", started: started, pipeline: "/p/b.yaml")
            }
            #expect(error?.code == .foreignOwner && error?.exitCode == 78)
            #expect(try String(contentsOfFile: scratch + "/.nowetl.lock", encoding: .utf8) == text, "left as it was")

            // The owner again; a crashed holder's line is reported and the ownership line kept.
            let again = try OutputDirectoryLock.acquire(
                directory: scratch, runID: "r3", started: started, pipeline: "/p/a \"quoted\".yaml")
            #expect(again.previousHolder == nil && again.owner == "/p/a \"quoted\".yaml")
            let held = try String(contentsOfFile: scratch + "/.nowetl.lock", encoding: .utf8)
            #expect(held.hasPrefix(text) && held.contains("run r3"))
            let busy = #expect(throws: NowETLError.self) {
                _ = try OutputDirectoryLock.acquire(
                    directory: scratch, runID: "r4", started: started, pipeline: "/p/b.yaml")
            }
            #expect(
                busy?.code == .foreignOwner, "another pipeline is told it does not own the directory, even while busy")
            again.release()

            // A lock file of an older nowetl (no ownership line) is claimed by the next pipeline.
            try withScratchDirectory("ownerold") { (old: String) in
                try "pid 1, run x, started y\n".write(toFile: old + "/.nowetl.lock", atomically: true, encoding: .utf8)
                let claimed = try OutputDirectoryLock.acquire(
                    directory: old, runID: "r5", started: started, pipeline: "/p/c")
                #expect(claimed.previousHolder == "pid 1, run x, started y")
                claimed.release()
                #expect(try String(contentsOfFile: old + "/.nowetl.lock", encoding: .utf8) == "pipeline: \"/p/c\"\n")
            }
        }
    }
}
