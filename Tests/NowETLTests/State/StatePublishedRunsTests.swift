import Foundation
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// Publish mode `directories` on real files: run directories, the `current` link switched with one
/// rename (directly or as the last step of a commit record), and pruning that keeps the newest runs
/// and the current one.
@Suite(.timeLimit(.minutes(3))) struct StatePublishedRunsTests {
    static func makeRun(_ runs: PublishedRuns, _ runID: String, manifest: String = "{}") throws {
        let directory = try runs.runDirectory(for: runID)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: directory + "/manifest.json"))
    }

    static func linkTarget(_ path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    @Test func aRunWritesIntoItsOwnDirectory() throws {
        let runs = PublishedRuns(outputDirectory: "/data/./out/")
        #expect(runs.outputDirectory == "/data/out")
        #expect(try runs.runDirectory(for: "20240301T020000Z-7f3a") == "/data/out/runs/20240301T020000Z-7f3a")
        #expect(runs.currentLink == "/data/out/current")
    }

    @Test(arguments: [
        "", ".", "..", "a/b", ".current.tmp-0000000000000001", "run id", String(repeating: "x", count: 201),
    ])
    func runIDsThatCannotNameADirectoryAreRefused(runID: String) throws {
        let runs = PublishedRuns(outputDirectory: "/data/out")
        let error = try #require(throws: NowETLError.self) { _ = try runs.runDirectory(for: runID) }
        #expect(error.code == .invalidRunID && error.exitCode == 1)
    }

    @Test func switchingCurrentRenamesOneRelativeLinkOverTheOld() throws {
        try withScratchDirectory { (directory: String) in
            let runs = PublishedRuns(outputDirectory: directory)
            #expect(try runs.currentRunID() == nil)
            try Self.makeRun(runs, "r1", manifest: "one")
            try Self.makeRun(runs, "r2", manifest: "two")
            try runs.switchCurrent(to: "r1")
            #expect(Self.linkTarget(directory + "/current") == "runs/r1")
            #expect(try SinkTestSupport.read(directory + "/current/manifest.json") == Data("one".utf8))
            try runs.switchCurrent(to: "r2")
            #expect(try runs.currentRunID() == "r2")
            #expect(try SinkTestSupport.read(directory + "/current/manifest.json") == Data("two".utf8))
            #expect(try SinkTestSupport.listing(directory) == ["current", "runs"], "no temporary link left")
        }
    }

    @Test func aMissingRunDirectoryOrAForeignCurrentChangesNothing() throws {
        try withScratchDirectory { (directory: String) in
            let runs = PublishedRuns(outputDirectory: directory)
            try Self.makeRun(runs, "r1")
            try runs.switchCurrent(to: "r1")
            let missing = try #require(throws: NowETLError.self) { try runs.switchCurrent(to: "r9") }
            #expect(missing.code == .missingRunDirectory && missing.description.contains("runs/r9"))
            #expect(try runs.currentRunID() == "r1")

            // A real directory named current is not ours to replace.
            try FileManager.default.removeItem(atPath: directory + "/current")
            try FileManager.default.createDirectory(atPath: directory + "/current/x", withIntermediateDirectories: true)
            let foreign = try #require(throws: NowETLError.self) { try runs.switchCurrent(to: "r1") }
            #expect(foreign.code == .notARunLink && foreign.context.path == directory + "/current")
            #expect(throws: NowETLError.self) { _ = try runs.currentRunID() }
            #expect(try SinkTestSupport.listing(directory) == ["current", "runs"])
            #expect(try SinkTestSupport.listing(directory + "/current") == ["x"])
        }
    }

    @Test func pruningKeepsTheNewestRunsAndTheCurrentOne() throws {
        try withScratchDirectory { (directory: String) in
            let runs = PublishedRuns(outputDirectory: directory)
            #expect(try runs.pruneOldRuns(keep: 1) == [], "no runs directory yet")
            let ids = (1...5).map { "20240301T02000\($0)Z-abcd" }
            for id in ids { try Self.makeRun(runs, id) }
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/runs/notes.txt"))  // not a run
            try FileManager.default.createDirectory(
                atPath: directory + "/runs/.hidden", withIntermediateDirectories: true)  // not a run name
            try runs.switchCurrent(to: ids[1])  // an older run is current (someone went back by hand)

            #expect(try runs.pruneOldRuns(keep: 3) == [ids[0], ids[2]])
            #expect(
                try SinkTestSupport.listing(directory + "/runs") == [".hidden", ids[1], ids[3], ids[4], "notes.txt"])
            #expect(try runs.pruneOldRuns(keep: 3) == [], "pruning again removes nothing")
            #expect(try runs.pruneOldRuns(keep: 0) == [ids[3], ids[4]], "keep 0 still keeps the current run")
            #expect(try runs.currentRunID() == ids[1])
        }
    }

    /// A directory a crashed run left (no manifest) does not count as one of the kept runs: the
    /// previous committed run, which a reader may still be reading, stays; the leftover goes once it is
    /// older than every kept run.
    @Test func aCrashedRunsDirectoryDoesNotPushOutThePreviousCommittedRun() throws {
        try withScratchDirectory { (directory: String) in
            let runs = PublishedRuns(outputDirectory: directory)
            let ids = (1...5).map { "20240301T02000\($0)Z-abcd" }
            try Self.makeRun(runs, ids[0])
            try FileManager.default.createDirectory(
                atPath: try runs.runDirectory(for: ids[1]), withIntermediateDirectories: true)  // crashed
            try Self.makeRun(runs, ids[2])
            try runs.switchCurrent(to: ids[2])
            #expect(try runs.pruneOldRuns(keep: 2) == [])
            #expect(try SinkTestSupport.listing(directory + "/runs") == [ids[0], ids[1], ids[2]])
            try Self.makeRun(runs, ids[3])
            try runs.switchCurrent(to: ids[3])
            #expect(try runs.pruneOldRuns(keep: 2) == [ids[0], ids[1]])
            #expect(try SinkTestSupport.listing(directory + "/runs") == [ids[2], ids[3]])
        }
    }

    @Test func aCommitRecordSwitchesCurrentAfterTheManifestAndRollsForward() throws {
        try withScratchDirectory { (directory: String) in
            let runs = PublishedRuns(outputDirectory: directory)
            try Self.makeRun(runs, "r1", manifest: "one")
            try runs.switchCurrent(to: "r1")

            // Run r2 stages its files and manifest in its own directory, then the new link.
            let runDirectory = try runs.runDirectory(for: "r2")
            try FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
            var staged: [StagedFile] = []
            for (index, name) in ["incident.csv", "manifest.json"].enumerated() {
                let temporary = runDirectory + "/." + name + ".tmp-000000000000000\(index)"
                try Data("two \(name)".utf8).write(to: URL(fileURLWithPath: temporary))
                staged.append(
                    StagedFile(temporaryPath: temporary, targetPath: runDirectory + "/" + name, displayPath: name))
            }
            let link = try runs.stageCurrent(to: "r2")
            #expect(link.targetPath == directory + "/current")
            #expect(try runs.currentRunID() == "r1", "a staged link changes nothing")
            let record = CommitRecord(runID: "r2", files: [staged[0]], manifest: staged[1], publishedLink: link)
            try RunCommit.write(record, outputDirectory: directory)
            // The run dies after renaming its files and manifest, before the link.
            for file in staged { #expect(rename(file.temporaryPath, file.targetPath) == 0) }
            #expect(try runs.currentRunID() == "r1")

            #expect(try RunCommit.recover(outputDirectory: directory) == record)
            #expect(try runs.currentRunID() == "r2")
            #expect(try SinkTestSupport.read(directory + "/current/manifest.json") == Data("two manifest.json".utf8))
            #expect(try SinkTestSupport.listing(directory) == ["current", "runs"])
            #expect(try runs.pruneOldRuns(keep: 1) == ["r1"])
        }
    }
}
