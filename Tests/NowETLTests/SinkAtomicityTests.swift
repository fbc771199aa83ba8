import Foundation
import Testing

@testable import NowETL

/// Files appear under their names only on commit; abort, failures and crashes leave previous files alone.
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

    @Test func nothingAppearsUntilCommitThenOnlyTheTarget() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (index, sink) in try Self.sinks(directory, "out/{table}.dat.gz").enumerated() {
            let previous = index == 0 ? nil : try SinkTestSupport.read(directory + "/out/incident.dat.gz")
            try sink.open(schema: Self.schema, context: SinkTestSupport.context())
            try sink.write(Self.batch(5))
            try sink.write(Self.batch(5))
            let during = try SinkTestSupport.listing(directory + "/out")
            let temporary = during.filter { $0.hasPrefix(".incident.dat.gz.tmp-") }
            #expect(temporary.count == 1 && during.count == (index == 0 ? 1 : 2), "\(during)")
            if let previous {
                #expect(try SinkTestSupport.read(directory + "/out/incident.dat.gz") == previous)
            }
            let files = try sink.commit()
            #expect(try SinkTestSupport.listing(directory + "/out") == ["incident.dat.gz"])
            #expect(files.first?.rows == 10)
            #expect(files.first?.absolutePath == directory + "/out/incident.dat.gz")
            #expect(try SinkTestSupport.read(directory + "/out/incident.dat.gz") != previous)
        }
    }

    @Test func abortLeavesThePreviousFileUntouched() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for sink in try Self.sinks(directory, "{table}.out") {
            try SinkTestSupport.export([Row(values: [.string("OLD"), nil])], schema: Self.schema, into: sink)
            let previous = try SinkTestSupport.read(directory + "/incident.out")

            try sink.open(schema: Self.schema, context: SinkTestSupport.context())
            try sink.write(Self.batch(5_000, prefix: "NEW"))  // more than one 64 KiB buffer reaches the temporary file
            sink.abort()
            sink.abort()  // twice is harmless
            #expect(try SinkTestSupport.read(directory + "/incident.out") == previous)
            #expect(try SinkTestSupport.listing(directory) == ["incident.out"])
        }
    }

    @Test func aCrashBeforeCommitLeavesNoTargetFile() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
            try sink.open(schema: Self.schema, context: SinkTestSupport.context())
            try sink.write(Self.batch(5_000))
            // The process "dies" here: no commit. Only a hidden temporary file exists.
            let listing = try SinkTestSupport.listing(directory)
            #expect(listing.count == 1 && listing[0].hasPrefix(".incident.csv.tmp-"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/incident.csv"))
        }
        // A sink dropped without commit or abort cleans up after itself.
        #expect(try SinkTestSupport.listing(directory).isEmpty)
    }

    @Test func aFailedWriteCannotBeCommitted() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = JSONSink(options: try SinkTestSupport.options(directory, "{table}.jsonl"))
        try SinkTestSupport.export([Row(values: [.string("OLD"), nil])], schema: Self.schema, into: sink)
        let previous = try SinkTestSupport.read(directory + "/incident.jsonl")

        try sink.open(schema: Self.schema, context: SinkTestSupport.context())
        try sink.write(Self.batch(3))
        var wrong = RowBatch(columnCount: 3)
        wrong.appendRow()
        #expect(throws: SinkError.self) { try sink.write(wrong) }
        #expect {
            _ = try sink.commit()
        } throws: { error in
            (error as? SinkError)?.code == .misuse
        }
        sink.abort()
        #expect(try SinkTestSupport.read(directory + "/incident.jsonl") == previous)
        #expect(try SinkTestSupport.listing(directory) == ["incident.jsonl"])
    }

    @Test func ioErrorsNameTheFile() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A regular file where a directory should be.
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/blocked"))
        let sink = CSVSink(options: try SinkTestSupport.options(directory, "blocked/{table}.csv"))
        try sink.open(schema: Self.schema, context: SinkTestSupport.context())
        #expect {
            try sink.write(Self.batch(1))
        } throws: { error in
            guard let error = error as? SinkError else { return false }
            return error.code == .io && error.path == "blocked/incident.csv"
                && error.description.contains("blocked/incident.csv")
        }
        sink.abort()
    }

    @Test func misuseIsReported() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
        #expect(throws: SinkError.self) { try sink.write(Self.batch(1)) }
        #expect(throws: SinkError.self) { _ = try sink.commit() }
        try sink.open(schema: Self.schema, context: SinkTestSupport.context())
        #expect(throws: SinkError.self) { try sink.open(schema: Self.schema, context: SinkTestSupport.context("x")) }
        _ = try sink.commit()
        // Reusable for the next table.
        try SinkTestSupport.export([], schema: Self.schema, into: sink, context: SinkTestSupport.context("problem"))
        #expect(try SinkTestSupport.listing(directory) == ["incident.csv", "problem.csv"])
    }

    @Test func atomicFileHashesWhatItWrites() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try AtomicFile(targetPath: directory + "/a.bin", displayPath: "a.bin")
        let data = Array(repeating: UInt8(7), count: 100_000)
        try data.withUnsafeBytes { try file.write($0) }
        try file.commit()
        #expect(file.digest == SHA256.hash(data))
        #expect(file.byteCount == 100_000)
        #expect(try SinkTestSupport.read(directory + "/a.bin") == Data(data))
    }
}
