import Foundation
import Testing

@testable import NowETL

/// One run per output_dir: the flock, the holder named to a second run, a dead holder taken over, and
/// the temporary files of interrupted runs removed by the holder.
@Suite(.timeLimit(.minutes(3))) struct StateOutputDirectoryLockTests {
    static let started = Date(timeIntervalSince1970: 1_733_011_200)  // 2024-12-01 00:00:00 UTC

    /// A fresh folder that is not there yet (the lock creates it).
    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-lock-\(UUID().uuidString)/out").path
    }

    static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    /// Runs `fixture`'s pipeline in-process with a fake extractor that gives incident seven rows.
    static func runSevenIncidents(_ fixture: RunFixture) async -> (code: Int32, captured: CapturedStreams) {
        let runner = FakeTableRunner(["incident": .rows(7, sourceCount: 7)])
        let (code, captured) = await InProcessNowETL.run(
            ["run", fixture.pipelinePath, "--progress", "off"], environment: RunFixture.environment,
            makeTableRunner: { _ in runner })
        return (code, captured)
    }

    @Test func aSecondClaimFailsWith75NamingTheHolder() throws {
        let directory = Self.directory()
        defer { Self.remove(directory) }
        let first = try OutputDirectoryLock.acquire(directory: directory, runID: "run-1", started: Self.started)
        #expect(first.previousHolder == nil)
        // flock locks belong to an open file description: a second open in this process conflicts like
        // another process would.
        let error = try #require(throws: NowETLError.self) {
            _ = try OutputDirectoryLock.acquire(directory: directory, runID: "run-2", started: Self.started)
        }
        #expect(error.code == .outputDirectoryBusy)
        #expect(error.exitCode == 75)
        #expect(error.description.contains("pid \(getpid()), run run-1, started 2024-12-01"))
        #expect(error.description.hasPrefix(directory + "/.nowetl.lock: another nowetl run"))

        first.release()
        let second = try OutputDirectoryLock.acquire(directory: directory, runID: "run-2", started: Self.started)
        #expect(second.previousHolder == nil, "a released lock is a clean hand-over")
        second.release()
        second.release()
    }

    @Test func theLockOfADeadRunIsTakenOverAndReported() throws {
        let directory = Self.directory()
        defer { Self.remove(directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // What a run killed with SIGKILL leaves: its line in the file, and no flock (the kernel dropped it).
        try "pid 999999, run dead-run, started 2024-11-30T02:00:00Z\n".write(
            toFile: directory + "/.nowetl.lock", atomically: false, encoding: .utf8)
        let lock = try OutputDirectoryLock.acquire(directory: directory, runID: "run-3", started: Self.started)
        defer { lock.release() }
        #expect(lock.previousHolder == "pid 999999, run dead-run, started 2024-11-30T02:00:00Z")
        let text = try String(contentsOfFile: directory + "/.nowetl.lock", encoding: .utf8)
        #expect(text == "pid \(getpid()), run run-3, started 2024-12-01T00:00:00Z\n")
    }

    @Test func theHolderRemovesTemporaryFilesOfInterruptedRunsAndNothingElse() throws {
        let directory = Self.directory()
        defer { Self.remove(directory) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory + "/incident", withIntermediateDirectories: true)
        let stale = [".incident.csv.tmp-0123456789abcdef", "incident/.part-1.jsonl.gz.tmp-00000000000000ff"]
        let kept = [
            "incident.csv", ".hidden", ".x.tmp-0123456789ABCDEF", ".x.tmp-0123", "x.tmp-0123456789abcdef",
            ".tmp-0123456789abcdef", "incident/data.xml",
        ]
        for path in stale + kept {
            #expect(manager.createFile(atPath: directory + "/" + path, contents: Data("x".utf8)))
        }
        let lock = try OutputDirectoryLock.acquire(directory: directory, runID: "run-4", started: Self.started)
        defer { lock.release() }
        #expect(lock.removeStaleTemporaryFiles() == stale.sorted())
        for path in stale { #expect(!manager.fileExists(atPath: directory + "/" + path), "\(path)") }
        for path in kept { #expect(manager.fileExists(atPath: directory + "/" + path), "\(path)") }
    }

    /// A symbolic link below output_dir to a directory elsewhere is not walked into: a temporary-looking
    /// file there is not the run's to remove (issue 24, finding 8).
    @Test func theCleanUpDoesNotFollowLinksOutOfTheOutputDirectory() throws {
        let directory = Self.directory()
        let elsewhere = Self.directory()
        defer {
            Self.remove(directory)
            Self.remove(elsewhere)
        }
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try manager.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let foreign = elsewhere + "/.precious.db.tmp-0123456789abcdef"
        #expect(manager.createFile(atPath: foreign, contents: Data("keep".utf8)))
        #expect(symlink(elsewhere, directory + "/linked") == 0)
        #expect(symlink(foreign, directory + "/.link.tmp-0123456789abcdef") == 0)
        let lock = try OutputDirectoryLock.acquire(directory: directory, runID: "run-5", started: Self.started)
        defer { lock.release() }
        #expect(lock.removeStaleTemporaryFiles().isEmpty)
        #expect(manager.fileExists(atPath: foreign))
    }

    @Test func aRunIntoABusyOutputDirectoryExits75AndWritesNothing() async throws {
        try await RunFixture.with { fixture in
            let holder = try OutputDirectoryLock.acquire(
                directory: fixture.outputDirectory, runID: "other-run", started: Self.started)
            defer { holder.release() }
            let (code, captured) = await Self.runSevenIncidents(fixture)
            #expect(code == 75, "\(captured.standardError)")
            #expect(
                captured.standardError.contains("another nowetl run is writing to this output_dir (pid \(getpid())"))
            #expect(try fixture.manifest() == nil)
            let written = try FileManager.default.contentsOfDirectory(atPath: fixture.outputDirectory)
            #expect(written == [".nowetl.lock"])
        }
    }

    @Test func aRunAfterACrashTakesOverAndCleansUp() async throws {
        try await RunFixture.with { fixture in
            try FileManager.default.createDirectory(atPath: fixture.outputDirectory, withIntermediateDirectories: true)
            try "pid 999999, run crashed, started 2024-11-30T02:00:00Z\n".write(
                toFile: fixture.outputDirectory + "/.nowetl.lock", atomically: false, encoding: .utf8)
            let stale = fixture.outputDirectory + "/.incident.csv.tmp-0123456789abcdef"
            #expect(FileManager.default.createFile(atPath: stale, contents: Data(repeating: 0x41, count: 1000)))
            let (code, captured) = await Self.runSevenIncidents(fixture)
            #expect(code == 0, "\(captured.standardError)")
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(captured.standardError.contains("took over the output_dir lock of a run that did not finish"))
            #expect(captured.standardError.contains("pid 999999, run crashed"))
            #expect(captured.standardError.contains("removed a temporary file of an interrupted run"))
            #expect(captured.standardError.contains(".incident.csv.tmp-0123456789abcdef"))
            let lock = try String(contentsOfFile: fixture.outputDirectory + "/.nowetl.lock", encoding: .utf8)
            // A finished run leaves only the ownership line (no holder).
            let owner = OutputDirectoryLock.pipelineIdentity(of: fixture.pipelinePath)
            #expect(lock == "pipeline: \"\(owner)\"\n", "a finished run leaves only the ownership line")
        }
    }
}
