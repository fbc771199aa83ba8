import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The two-phase run commit on real files: the record, the renames (manifest last), idempotence, the
/// roll-forward of a commit interrupted after some renames, and the paths a record may not touch.
@Suite(.timeLimit(.minutes(3))) struct StateRunCommitTests {
    /// A scratch output directory with `count` staged files (`part-1.csv` … holding `new <n>`), each
    /// with an older version already in place, and a staged `manifest.json`.
    struct Fixture {
        let directory: String
        let files: [StagedFile]
        let manifest: StagedFile

        /// Stages the files in `directory` (which exists).
        init(count: Int = 3, in directory: String) throws {
            self.directory = directory
            var files: [StagedFile] = []
            for index in 1...count {
                try Self.put("old \(index)", at: directory + "/part-\(index).csv")
                files.append(try Self.stage("new \(index)", "part-\(index).csv", in: directory, serial: index))
            }
            self.files = files
            manifest = try Self.stage("{\"files\": \(count)}", "manifest.json", in: directory, serial: 0xff)
        }

        /// Runs `body` with a fixture of `count` files in a scratch directory, removed afterwards.
        static func with(
            count: Int = 3, _ label: String = #function, _ body: (Fixture) async throws -> Void
        ) async throws {
            try await withScratchDirectory(label) { (directory: String) in
                try await body(Fixture(count: count, in: directory))
            }
        }

        /// The synchronous form of ``with(count:_:_:)-async``.
        static func with(count: Int = 3, _ label: String = #function, _ body: (Fixture) throws -> Void) throws {
            try withScratchDirectory(label) { (directory: String) in try body(Fixture(count: count, in: directory)) }
        }

        var record: CommitRecord { CommitRecord(runID: "run-2", files: files, manifest: manifest) }

        /// Every entry below the directory with its contents (`<dir>/` for directories).
        func snapshot() throws -> [String: String] {
            var entries: [String: String] = [:]
            let walker = FileManager.default.enumerator(atPath: directory)
            while let relative = walker?.nextObject() as? String {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory)
                entries[relative] =
                    isDirectory.boolValue
                    ? "<dir>" : String(decoding: try SinkTestSupport.read(directory + "/" + relative), as: UTF8.self)
            }
            return entries
        }

        static func put(_ text: String, at path: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }

        /// Writes `text` under an AtomicFile-style temporary name beside `name`.
        static func stage(_ text: String, _ name: String, in directory: String, serial: Int) throws -> StagedFile {
            let hex = String(serial, radix: 16)
            let temporary = directory + "/." + name + ".tmp-" + String(repeating: "0", count: 16 - hex.count) + hex
            try put(text, at: temporary)
            return StagedFile(temporaryPath: temporary, targetPath: directory + "/" + name, displayPath: name)
        }
    }

    /// What every complete commit of the fixture leaves: the new files, the manifest, nothing else.
    static func committed(_ count: Int = 3) -> [String: String] {
        var expected = ["manifest.json": "{\"files\": \(count)}"]
        for index in 1...count { expected["part-\(index).csv"] = "new \(index)" }
        return expected
    }

    @Test func applyRenamesEveryFileThenTheManifestAndRemovesTheRecord() throws {
        try Fixture.with { fixture in
            try RunCommit.write(fixture.record, outputDirectory: fixture.directory)
            let written = try Data(contentsOf: URL(fileURLWithPath: fixture.directory + "/.nowetl/commit.json"))
            #expect(try JSONDecoder().decode(CommitRecord.self, from: written) == fixture.record)
            #expect(try SinkTestSupport.listing(fixture.directory + "/.nowetl") == ["commit.json"], "no temporary left")
            #expect(try fixture.snapshot()["part-1.csv"] == "old 1", "writing the record changes nothing visible")

            try RunCommit.apply(fixture.record, outputDirectory: fixture.directory)
            #expect(try fixture.snapshot() == Self.committed(), "no temporary files, no record, no state directory")
        }
    }

    @Test func theManifestComesAfterEveryFile() throws {
        try Fixture.with { fixture in
            // The second file's staged copy vanished: the first is renamed, the manifest must not appear.
            try FileManager.default.removeItem(atPath: fixture.files[1].temporaryPath)
            try FileManager.default.removeItem(atPath: fixture.files[1].targetPath)
            try RunCommit.write(fixture.record, outputDirectory: fixture.directory)
            let error = try #require(throws: NowETLError.self) {
                try RunCommit.apply(fixture.record, outputDirectory: fixture.directory)
            }
            #expect(error.code == .missingStagedFile)
            #expect(error.context.path == fixture.files[1].targetPath)
            #expect(error.description.contains("part-2.csv") && error.description.contains(".part-2.csv.tmp-"))
            #expect(error.exitCode == 1)
            let after = try fixture.snapshot()
            #expect(after["part-1.csv"] == "new 1")
            #expect(after["manifest.json"] == nil)
            #expect(after["part-3.csv"] == "old 3")
            #expect(after[".nowetl/commit.json"] != nil, "the record stays for the next start")
        }
    }

    @Test func applyingTwiceChangesNothingTheSecondTime() throws {
        try Fixture.with { fixture in
            try RunCommit.write(fixture.record, outputDirectory: fixture.directory)
            try RunCommit.apply(fixture.record, outputDirectory: fixture.directory)
            let once = try fixture.snapshot()
            try RunCommit.apply(fixture.record, outputDirectory: fixture.directory)
            #expect(try fixture.snapshot() == once)
            #expect(once == Self.committed())
        }
    }

    /// A crash after `renamed` of the 3 files (3 + 1: the manifest too, the record not yet removed).
    @Test(arguments: 0...4) func aCommitInterruptedAfterSomeRenamesIsRolledForward(renamed: Int) throws {
        try Fixture.with { fixture in
            let stale = fixture.directory + "/part-4.csv"
            try Fixture.put("stale part of an earlier, longer run", at: stale)
            var record = fixture.record
            record.removals = [stale]
            try RunCommit.write(record, outputDirectory: fixture.directory)
            for file in (fixture.files + [fixture.manifest]).prefix(renamed) {
                #expect(rename(file.temporaryPath, file.targetPath) == 0)
            }
            let recovered = try RunCommit.recover(outputDirectory: fixture.directory)
            #expect(recovered == record)
            #expect(try fixture.snapshot() == Self.committed())
            #expect(try RunCommit.recover(outputDirectory: fixture.directory) == nil, "the record is gone")
        }
    }

    @Test func recoveringWithoutARecordDoesNothing() throws {
        try Fixture.with { fixture in
            let before = try fixture.snapshot()
            #expect(try RunCommit.recover(outputDirectory: fixture.directory) == nil)
            #expect(try fixture.snapshot() == before, "no state directory created, staged files untouched")
        }
    }

    @Test(arguments: ["{ not json", "{\"version\": 1}", "", "[\"files\", 1]"])
    func anUnreadableRecordIsAnErrorAndStaysInPlace(text: String) throws {
        try Fixture.with { fixture in
            try FileManager.default.createDirectory(
                atPath: fixture.directory + "/.nowetl", withIntermediateDirectories: false)
            let path = fixture.directory + "/.nowetl/commit.json"
            try Fixture.put(text, at: path)
            let before = try fixture.snapshot()
            let error = try #require(throws: NowETLError.self) {
                _ = try RunCommit.recover(outputDirectory: fixture.directory)
            }
            #expect(error.code == .unreadableCommitRecord)
            #expect(error.context.path == path && error.description.hasPrefix(path + ": "))
            #expect(try fixture.snapshot() == before, "neither the record nor any staged file was touched")
        }
    }

    @Test func aRecordOfAnotherVersionIsNotApplied() throws {
        try Fixture.with { fixture in
            var record = fixture.record
            record.version = 2
            try FileManager.default.createDirectory(
                atPath: fixture.directory + "/.nowetl", withIntermediateDirectories: false)
            try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: fixture.directory + "/.nowetl/commit.json"))
            let before = try fixture.snapshot()
            let error = try #require(throws: NowETLError.self) {
                _ = try RunCommit.recover(outputDirectory: fixture.directory)
            }
            #expect(error.code == .unreadableCommitRecord && error.description.contains("version 2"))
            #expect(try fixture.snapshot() == before)
        }
    }

    @Test func stateDirectoriesInsideNowetlAreClearedAfterTheManifest() throws {
        try Fixture.with { fixture in
            let journal = fixture.directory + "/.nowetl/journal/run-2"
            try FileManager.default.createDirectory(atPath: journal + "/incident", withIntermediateDirectories: true)
            try Fixture.put("{}", at: journal + "/incident/table.json")
            var record = fixture.record
            record.clearedStateDirectories = [journal, fixture.directory + "/.nowetl/journal/never-created"]
            try RunCommit.write(record, outputDirectory: fixture.directory)
            try RunCommit.apply(record, outputDirectory: fixture.directory)
            var expected = Self.committed()
            expected[".nowetl"] = "<dir>"
            expected[".nowetl/journal"] = "<dir>"
            #expect(try fixture.snapshot() == expected)
        }
    }

    /// Directories a record may not clear: the output directory, its data, the state directory itself,
    /// look-alikes and anything elsewhere.
    @Test(arguments: ["", "/data", "/.nowetl", "/.nowetl/", "/.nowetl/../data", "/.nowetlx/journal", "/../elsewhere"])
    func clearedDirectoriesOutsideTheStateDirectoryAreRefused(suffix: String) throws {
        try Fixture.with { fixture in
            try FileManager.default.createDirectory(
                atPath: fixture.directory + "/data", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: fixture.directory + "/.nowetl/journal", withIntermediateDirectories: true)
            var record = fixture.record
            record.clearedStateDirectories = [fixture.directory + "/.nowetl/journal", fixture.directory + suffix]
            let before = try fixture.snapshot()
            let written = try #require(throws: NowETLError.self) {
                try RunCommit.write(record, outputDirectory: fixture.directory)
            }
            #expect(written.code == .pathRefused && written.context.path == fixture.directory + suffix)
            let applied = try #require(throws: NowETLError.self) {
                try RunCommit.apply(record, outputDirectory: fixture.directory)
            }
            #expect(applied.code == .pathRefused)
            #expect(applied.description.contains(fixture.directory + "/.nowetl"))
            #expect(try fixture.snapshot() == before, "a refused record changes nothing")
        }
    }

    @Test(arguments: [
        StagedFile(temporaryPath: "/tmp/.x.tmp-0000000000000001", targetPath: "{dir}/x", displayPath: "x"),
        StagedFile(temporaryPath: "{dir}/.x.tmp-0000000000000001", targetPath: "/tmp/x", displayPath: "x"),
        StagedFile(temporaryPath: "{dir}/x.new", targetPath: "{dir}/x", displayPath: "x"),
        StagedFile(temporaryPath: "{dir}/sub/.x.tmp-0000000000000001", targetPath: "{dir}/x", displayPath: "x"),
    ])
    func filesOutsideTheOutputDirectoryOrNotStagedBesideTheirTargetAreRefused(file: StagedFile) throws {
        try Fixture.with { fixture in
            let resolved = StagedFile(
                temporaryPath: file.temporaryPath.replacingOccurrences(of: "{dir}", with: fixture.directory),
                targetPath: file.targetPath.replacingOccurrences(of: "{dir}", with: fixture.directory), displayPath: "x"
            )
            var record = fixture.record
            record.files.append(resolved)
            let before = try fixture.snapshot()
            let error = try #require(throws: NowETLError.self) {
                try RunCommit.apply(record, outputDirectory: fixture.directory)
            }
            #expect(error.code == .pathRefused)
            #expect(try fixture.snapshot() == before, "refused before the first rename")
        }
    }

    @Test func staleSplitPartsAreRemovedAndMissingOnesAreFine() throws {
        try Fixture.with(count: 2) { fixture in
            let stale = [fixture.directory + "/part-3.csv", fixture.directory + "/part-4.csv"]
            for path in stale { try Fixture.put("stale", at: path) }
            var record = fixture.record
            record.removals = stale + [fixture.directory + "/part-5.csv"]
            try RunCommit.write(record, outputDirectory: fixture.directory)
            try RunCommit.apply(record, outputDirectory: fixture.directory)
            #expect(try fixture.snapshot() == Self.committed(2))

            let outside = try #require(throws: NowETLError.self) {
                try RunCommit.apply(
                    CommitRecord(runID: "run-3", removals: ["/etc/hostname"]), outputDirectory: fixture.directory)
            }
            #expect(outside.code == .pathRefused)
        }
    }

    @Test func aPendingRecordIsNotOverwritten() throws {
        try Fixture.with { fixture in
            try RunCommit.write(fixture.record, outputDirectory: fixture.directory)
            let error = try #require(throws: NowETLError.self) {
                try RunCommit.write(CommitRecord(runID: "run-3"), outputDirectory: fixture.directory)
            }
            #expect(error.code == .pendingCommitRecord)
            #expect(error.context.path == fixture.directory + "/.nowetl/commit.json")
            #expect(try RunCommit.recover(outputDirectory: fixture.directory) == fixture.record)
        }
    }

    @Test func aRelativeOutputDirectoryIsResolvedAgainstTheCurrentDirectory() throws {
        try Fixture.with { fixture in
            let current = FileManager.default.currentDirectoryPath
            let relative =
                String(repeating: "../", count: current.split(separator: "/").count) + fixture.directory.dropFirst()
            #expect(RunCommit.absolute(relative) == fixture.directory)
            #expect(RunCommit.absolute(fixture.directory + "/./a//b/../c") == fixture.directory + "/a/c")
            #expect(RunCommit.isInside(fixture.directory + "/a", relative))
            #expect(!RunCommit.isInside(fixture.directory, relative))
            #expect(!RunCommit.isInside(fixture.directory + "x/a", fixture.directory))
        }
    }
}
