import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// Files appear under their names only when the run commits (prepare stages them, the commit record
/// renames them, the sink's commit hands them over); abort, failures and crashes leave previous files
/// alone.
@Suite(.timeLimit(.minutes(5))) struct SinkAtomicityTests {
    static let schema = RowSchema(names: ["number", "short_description"])

    static func batch(_ count: Int, prefix: String = "INC") -> RowBatch {
        var batch = RowBatch(schema: schema, capacity: count)
        for index in 0..<count {
            batch.append(Row(values: [.string("\(prefix)\(index)"), .string("text \(index)")]))
        }
        return batch
    }

    /// Makes every kind of sink writing `path` in `directory`.
    static func sinks(_ directory: String, _ path: String) throws -> [any RecordSink] {
        let options = try SinkTestSupport.options(directory, path)
        let formats: [FileSinkSpec.Format] = [.csv(CSVSinkOptions()), .json(JSONSinkOptions()), .xml(XMLSinkOptions())]
        return formats.map { FileSinkSpec(format: $0, options: options).makeSink() }
    }

    @Test func nothingAppearsUntilTheRunCommitsThenOnlyTheTarget() async throws {
        try await withScratchDirectory { (directory: String) in
            for (index, sink) in try Self.sinks(directory, "out/{table}.dat.gz").enumerated() {
                let previous = index == 0 ? nil : try SinkTestSupport.read(directory + "/out/incident.dat.gz")
                try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
                try await sink.write(Self.batch(5))
                try await sink.write(Self.batch(5))
                let during = try SinkTestSupport.listing(directory + "/out")
                let temporary = during.filter { $0.hasPrefix(".incident.dat.gz.tmp-") }
                #expect(temporary.count == 1 && during.count == (index == 0 ? 1 : 2), "\(during)")
                if let previous {
                    #expect(try SinkTestSupport.read(directory + "/out/incident.dat.gz") == previous)
                }

                // Prepared: complete and synced under the temporary name, described, still invisible.
                let prepared = try await sink.prepare()
                #expect(try SinkTestSupport.listing(directory + "/out") == during)
                let staged = try #require(prepared.staged.first)
                #expect(prepared.staged.count == 1 && prepared.removals.isEmpty)
                #expect(staged.temporaryPath == directory + "/out/" + temporary[0])
                #expect(
                    staged.targetPath == directory + "/out/incident.dat.gz"
                        && staged.displayPath == "out/incident.dat.gz")
                let described = try #require(prepared.artifacts.first?.outputFile)
                let bytes = try SinkTestSupport.read(staged.temporaryPath)
                #expect(described.rows == 10 && described.bytes == bytes.count)
                #expect(described.sha256 == SHA256.hash(Array(bytes)).hexString)
                #expect(described.absolutePath == staged.targetPath)

                // The run decides and renames; the sink only lets go of its temporary file.
                let record = CommitRecord(runID: "run-1", outputs: [prepared])
                try RunCommit.write(record, outputDirectory: directory)
                let artifacts = try await sink.commit()
                #expect(artifacts == prepared.artifacts)
                await sink.abort()  // after the hand-over: removes nothing the record needs
                #expect(FileManager.default.fileExists(atPath: staged.temporaryPath))
                try RunCommit.apply(record, outputDirectory: directory)
                #expect(try SinkTestSupport.listing(directory + "/out") == ["incident.dat.gz"])
                #expect(try SinkTestSupport.read(directory + "/out/incident.dat.gz") == bytes)
                #expect(try SinkTestSupport.read(directory + "/out/incident.dat.gz") != previous)
            }
            #expect(try SinkTestSupport.listing(directory) == ["out"])
        }
    }

    @Test func abortLeavesThePreviousFileUntouched() async throws {
        try await withScratchDirectory { (directory: String) in
            for sink in try Self.sinks(directory, "{table}.out") {
                try await SinkTestSupport.export([Row(values: [.string("OLD"), nil])], schema: Self.schema, into: sink)
                let previous = try SinkTestSupport.read(directory + "/incident.out")

                try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
                // More than one 64 KiB buffer reaches the temporary file.
                try await sink.write(Self.batch(5_000, prefix: "NEW"))
                await sink.abort()
                await sink.abort()  // twice is harmless
                #expect(try SinkTestSupport.read(directory + "/incident.out") == previous)
                #expect(try SinkTestSupport.listing(directory) == ["incident.out"])

                // Aborting a prepared sink removes its staged file too.
                try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
                try await sink.write(Self.batch(3, prefix: "NEW"))
                let prepared = try await sink.prepare()
                await sink.abort()
                #expect(!FileManager.default.fileExists(atPath: prepared.staged[0].temporaryPath))
                #expect(try SinkTestSupport.read(directory + "/incident.out") == previous)
                #expect(try SinkTestSupport.listing(directory) == ["incident.out"])
            }
        }
    }

    @Test func aCrashBeforeCommitLeavesNoTargetFile() async throws {
        try await withScratchDirectory { (directory: String) in
            do {
                let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
                try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
                try await sink.write(Self.batch(5_000))
                _ = try await sink.prepare()
                // The process "dies" here: no commit. Only a hidden temporary file exists.
                let listing = try SinkTestSupport.listing(directory)
                #expect(listing.count == 1 && listing[0].hasPrefix(".incident.csv.tmp-"))
                #expect(!FileManager.default.fileExists(atPath: directory + "/incident.csv"))
            }
            // A sink dropped without commit or abort cleans up after itself.
            #expect(try SinkTestSupport.listing(directory).isEmpty)
        }
    }

    @Test func aCommittedSinkLeavesItsStagedFileToTheRunsCommit() async throws {
        try await withScratchDirectory { (directory: String) in
            var staged: StagedFile?
            do {
                let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
                try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
                try await sink.write(Self.batch(3))
                staged = try await sink.prepare().staged.first
                _ = try await sink.commit()
            }
            // Dropped after the hand-over: the staged file stays for the commit record, nothing is renamed.
            let file = try #require(staged)
            #expect(try SinkTestSupport.listing(directory) == [(file.temporaryPath as NSString).lastPathComponent])
        }
    }

    @Test func aFailedWriteCannotBeCommitted() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = JSONSink(options: try SinkTestSupport.options(directory, "{table}.jsonl"))
            try await SinkTestSupport.export([Row(values: [.string("OLD"), nil])], schema: Self.schema, into: sink)
            let previous = try SinkTestSupport.read(directory + "/incident.jsonl")

            try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
            try await sink.write(Self.batch(3))
            var wrong = RowBatch(columnCount: 3)
            wrong.appendRow()
            await #expect(throws: NowETLError.self) { try await sink.write(wrong) }
            await #expect {
                _ = try await sink.prepare()
            } throws: { error in
                (error as? NowETLError)?.code == .misuse
            }
            await #expect {
                _ = try await sink.commit()
            } throws: { error in
                (error as? NowETLError)?.code == .misuse
            }
            await sink.abort()
            #expect(try SinkTestSupport.read(directory + "/incident.jsonl") == previous)
            #expect(try SinkTestSupport.listing(directory) == ["incident.jsonl"])
        }
    }

    @Test func ioErrorsNameTheFile() async throws {
        try await withScratchDirectory { (directory: String) in
            // A regular file where a directory should be.
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/blocked"))
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "blocked/{table}.csv"))
            try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
            await #expect {
                try await sink.write(Self.batch(1))
            } throws: { error in
                guard let error = error as? NowETLError else { return false }
                return error.code == .io && error.context.path == "blocked/incident.csv"
                    && error.description.contains("blocked/incident.csv")
            }
            await sink.abort()
        }
    }

    @Test func misuseIsReported() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
            await #expect(throws: NowETLError.self) { try await sink.write(Self.batch(1)) }
            await #expect(throws: NowETLError.self) { _ = try await sink.prepare() }
            await #expect(throws: NowETLError.self) { _ = try await sink.commit() }
            try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
            await #expect(throws: NowETLError.self) {
                try await sink.open(schema: Self.schema, context: SinkTestSupport.context("x"))
            }
            await #expect(throws: NowETLError.self) { _ = try await sink.commit() }  // commit before prepare
            let prepared = try await sink.prepare()
            await #expect(throws: NowETLError.self) { try await sink.write(Self.batch(1)) }  // write after prepare
            await #expect(throws: NowETLError.self) { _ = try await sink.prepare() }  // prepare twice
            _ = try await sink.commit()
            try RunCommit.apply(CommitRecord(runID: "run-1", outputs: [prepared]), outputDirectory: directory)
            // Reusable for the next table.
            try await SinkTestSupport.export(
                [], schema: Self.schema, into: sink, context: SinkTestSupport.context("problem"))
            #expect(try SinkTestSupport.listing(directory) == ["incident.csv", "problem.csv"])
        }
    }

    @Test func atomicFileIsReleasedOnlyWhenFinishedAndThenKeepsItsTemporaryFile() throws {
        try withScratchDirectory { (directory: String) in
            var temporary = ""
            do {
                let file = try AtomicFile(targetPath: directory + "/a.bin", displayPath: "a.bin", mode: 0o640)
                temporary = file.temporaryPath
                try Data("abc".utf8).withUnsafeBytes { try file.write($0) }
                #expect(throws: NowETLError.self) { try file.release() }  // not finished yet
                try file.finish()
                try file.release()
                try file.release()  // twice is harmless
                #expect(
                    file.stagedFile
                        == StagedFile(temporaryPath: temporary, targetPath: directory + "/a.bin", displayPath: "a.bin"))
                #expect(throws: NowETLError.self) { try file.commit() }  // the run's commit renames it, not the file
                #expect(throws: NowETLError.self) { try Data("d".utf8).withUnsafeBytes { try file.write($0) } }
                file.abort()
            }
            #expect(try SinkTestSupport.read(temporary) == Data("abc".utf8), "neither abort nor deinit removed it")
            #expect(!FileManager.default.fileExists(atPath: directory + "/a.bin"))

            let aborted = try AtomicFile(targetPath: directory + "/b.bin", displayPath: "b.bin", mode: 0o640)
            try aborted.finish()
            aborted.abort()
            #expect(throws: NowETLError.self) { try aborted.release() }
            #expect(!FileManager.default.fileExists(atPath: aborted.temporaryPath))
        }
    }

    @Test func theDeadLetterFileIsStagedCommittedOrAbortedLikeASink() throws {
        try withScratchDirectory { (directory: String) in
            let none = DeadLetterFile(outputDirectory: directory, table: "incident")
            #expect(try none.prepare() == PreparedOutput(removals: [directory + "/incident.rejects.jsonl"]))
            #expect(try none.commit() == false)

            let rejection = Rejection(
                sysID: "1", column: "opened_at", type: .dateTime, value: "yesterday",
                record: Data("{\"sys_id\":\"1\"}".utf8))
            let aborted = DeadLetterFile(outputDirectory: directory, table: "problem")
            try aborted.append(rejection)
            _ = try aborted.prepare()
            aborted.abort()
            #expect(try SinkTestSupport.listing(directory).isEmpty)

            let letters = DeadLetterFile(outputDirectory: directory, table: "incident")
            try letters.append(rejection)
            try letters.append(rejection)
            let prepared = try letters.prepare()
            #expect(prepared.removals.isEmpty)
            // Listed in the manifest like an output: its rows are the rejected records.
            guard case .file(let listed)? = prepared.artifacts.first else {
                Issue.record("no manifest entry: \(prepared.artifacts)")
                return
            }
            #expect(listed.path == "incident.rejects.jsonl" && listed.format == "rejects-jsonl" && listed.rows == 2)
            #expect(listed.sha256.count == 64 && listed.bytes > 0)
            let staged = try #require(prepared.staged.first)
            #expect(staged.targetPath == directory + "/incident.rejects.jsonl")
            #expect(!FileManager.default.fileExists(atPath: staged.targetPath))
            #expect(try letters.commit())
            letters.abort()
            try RunCommit.apply(CommitRecord(runID: "run-1", outputs: [prepared]), outputDirectory: directory)
            #expect(try SinkTestSupport.listing(directory) == ["incident.rejects.jsonl"])
            #expect(try SinkTestSupport.read(staged.targetPath).count == 2 * 15)

            // A later run without rejects removes the old dead letters with its commit.
            let withoutRejects = try DeadLetterFile(outputDirectory: directory, table: "incident").prepare()
            #expect(withoutRejects.staged.isEmpty && withoutRejects.removals == [staged.targetPath])
            #expect(FileManager.default.fileExists(atPath: staged.targetPath), "nothing changes before the commit")
            try RunCommit.apply(CommitRecord(runID: "run-2", outputs: [withoutRejects]), outputDirectory: directory)
            #expect(try SinkTestSupport.listing(directory).isEmpty)
        }
    }

    @Test func atomicFileHashesWhatItWrites() throws {
        try withScratchDirectory { (directory: String) in
            let file = try AtomicFile(targetPath: directory + "/a.bin", displayPath: "a.bin", mode: 0o640)
            let data = Array(repeating: UInt8(7), count: 100_000)
            try data.withUnsafeBytes { try file.write($0) }
            try file.commit()
            #expect(file.digest == SHA256.hash(data))
            #expect(file.byteCount == 100_000)
            #expect(try SinkTestSupport.read(directory + "/a.bin") == Data(data))
        }
    }
}
