import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The gzip stream of the file sinks: one member whose DEFLATE chunks, at fixed uncompressed offsets,
/// are compressed on workers, read back whole by independent readers (`gzip`, `zcat`, Python's `gzip`
/// and `zlib`, `xmllint`), the same bytes whatever the chunking, the timing or the concurrency of a real
/// export.
@Suite(.timeLimit(.minutes(5))) struct SinkGzipChunkTests {
    /// Python's `zlib`, one member at a time: the uncompressed size of each member, as JSON.
    static let pythonMembers = """
        import sys, zlib, json
        data = sys.stdin.buffer.read()
        sizes = []
        while data:
            d = zlib.decompressobj(31)
            sizes.append(len(d.decompress(data)))
            if not d.eof: sys.exit("truncated member")
            data = d.unused_data
        print(json.dumps(sizes))
        """

    /// Compresses `input` through a writer fed in chunks of `step` bytes (growing when `growing`).
    static func compress(
        _ input: [UInt8], level: Int = 6, chunkSize: Int, step: Int, growing: Bool = false
    ) throws -> [UInt8] {
        let collector = ByteCollector()
        let writer = try GzipWriter(level: level, downstream: collector, displayPath: "x.gz", chunkSize: chunkSize)
        var offset = 0
        var size = step
        while offset < input.count {
            let end = min(input.count, offset + size)
            try input[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
            if growing { size = size * 3 + 1 }
        }
        try writer.finish()
        #expect(writer.bytesIn == input.count)
        #expect(writer.bytesOut == collector.bytes.count)
        return collector.bytes
    }

    @Test func chunksMakeOneMemberReadBackWholeByIndependentReaders() async throws {
        let input = GzipSample.bytes(1_000_000)
        let bytes = try Self.compress(input, chunkSize: 96 * 1024, step: 1, growing: true)
        let sizes = try JSONDecoder().decode(
            [Int].self,
            from: try await SinkTestSupport.output("python3", ["-c", Self.pythonMembers], stdin: Data(bytes)))
        #expect(sizes == [input.count], "one member")
        // Chunks primed with the 32 KiB before them compress about as well as one pass.
        let onePass = try await SinkTestSupport.output("gzip", ["-6", "-n", "-c"], stdin: Data(input))
        #expect(Double(bytes.count) < Double(onePass.count) * 1.01)

        try await withScratchDirectory { (directory: String) in
            let path = directory + "/members.gz"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try await SinkTestSupport.gunzip(path) == Data(input))  // gzip -t, then gzip -dc
            #expect(try await SinkTestSupport.output("zcat", [path]) == Data(input))
            let python = try await SinkTestSupport.output(
                "python3", ["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())", path])
            #expect(python == Data(input))
            #expect(try GzipReader.decompress(bytes) == input)
        }
    }

    /// libxml2's gzip reader stops after the first member; one member of many chunks it reads whole.
    @Test func xmllintReadsAChunkedXMLFileWhole() async throws {
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<unload>\n"
        for index in 0..<20_000 { document += "<r n=\"\(index)\"><a>\(index * 2_654_435_761 % 1_000_003)</a></r>\n" }
        document += "</unload>\n"
        let bytes = try Self.compress(Array(document.utf8), chunkSize: 64 * 1024, step: 10_000)
        try await withScratchDirectory { (directory: String) in
            let path = directory + "/chunked.xml.gz"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let lint = try await SinkTestSupport.run("xmllint", ["--noout", path])
            #expect(lint.status == 0, "\(lint.stderr)")
            let count = try await SinkTestSupport.output("xmllint", ["--xpath", "count(/unload/r)", path])
            #expect(String(decoding: count, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "20000")
        }
    }

    @Test func theSameBytesWhateverTheChunkingAndTheTiming() async throws {
        let input = GzipSample.bytes(700_000)
        let reference = try Self.compress(input, chunkSize: 64 * 1024, step: input.count)
        #expect(try Self.compress(input, chunkSize: 64 * 1024, step: 1, growing: true) == reference)
        #expect(try Self.compress(input, chunkSize: 64 * 1024, step: 4_099) == reference)
        // Several writers at once on the workers: each still gets its own chunks, in order.
        let outputs = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for step in [1_000, 65_536, 100_003, 7] {
                group.addTask { try Self.compress(input, chunkSize: 64 * 1024, step: step) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.allSatisfy { $0 == reference })
    }

    @Test func anEmptyStreamAndAnExactMultipleOfTheChunkAreValid() async throws {
        let empty = try Self.compress([], chunkSize: 1024, step: 1)
        #expect(try GzipReader.decompress(empty) == [])
        #expect(try await SinkTestSupport.output("gzip", ["-dc"], stdin: Data(empty)).isEmpty)
        let input = GzipSample.bytes(4 * 1024)
        let bytes = try Self.compress(input, chunkSize: 1024, step: 1000)
        let sizes = try JSONDecoder().decode(
            [Int].self,
            from: try await SinkTestSupport.output("python3", ["-c", Self.pythonMembers], stdin: Data(bytes)))
        #expect(sizes == [4 * 1024])
        #expect(try await SinkTestSupport.output("gzip", ["-dc"], stdin: Data(bytes)) == Data(input))
    }

    /// Chunked streams at every level decompress with zlib (``GzipReader``) and the `gzip` tool, and
    /// higher levels are no larger on text.
    @Test func chunkedStreamsRoundTripAtEveryLevel() async throws {
        let input = GzipSample.bytes(300_000)
        var sizes: [Int] = []
        for level in 0...9 {
            let bytes = try Self.compress(input, level: level, chunkSize: 100_000, step: 65_536)
            #expect(try GzipReader.decompress(bytes) == input, "level \(level)")
            #expect(
                try await SinkTestSupport.output("gzip", ["-dc"], stdin: Data(bytes)) == Data(input), "level \(level)")
            sizes.append(bytes.count)
        }
        #expect(sizes[0] > input.count)  // stored
        #expect(sizes[1] < input.count / 2)
        #expect(sizes[9] <= sizes[6] && sizes[6] <= sizes[1])
    }

    /// The split check's answer is the exact one — the compressed size of every started chunk — at
    /// every point, whether the chunks in flight were done yet or not.
    @Test func theSizeCheckAnswersAsIfEveryStartedChunkWereDone() throws {
        let input = GzipSample.bytes(600_000)
        let chunkSize = 20_000
        let compressor = try DeflateCompressor(level: 6, displayPath: "x.gz")
        var chunkSizes: [Int] = []
        var output = [UInt8](repeating: 0, count: compressor.bound(chunkSize))
        for start in stride(from: 0, to: input.count, by: chunkSize) {
            let dictionary = Array(input[max(0, start - 32_768)..<start])
            let size = input[start..<min(input.count, start + chunkSize)].withUnsafeBytes { raw in
                dictionary.withUnsafeBytes { dictionary in
                    output.withUnsafeMutableBytes { compressor.compress(raw, dictionary: dictionary, into: $0) }
                }
            }
            chunkSizes.append(size)
        }
        for limit in [1, 5_000, 40_000, 150_000] {
            let writer = try GzipWriter(
                level: 6, downstream: ByteCollector(), displayPath: "x.gz", chunkSize: chunkSize)
            var written = 0
            while written < input.count {
                let end = min(input.count, written + 7_001)
                try input[written..<end].withUnsafeBytes { try writer.write($0) }
                written = end
                let started = written / chunkSize
                let exact = started == 0 ? 0 : 10 + chunkSizes.prefix(started).reduce(0, +)  // header + chunks
                #expect(try writer.compressedSize(reaches: limit) == (exact >= limit), "limit \(limit) at \(written)")
            }
            try writer.finish()
        }
    }

    @Test func writesLeaveAsTheWindowFillsSoMemoryStaysBounded() throws {
        let input = GzipSample.bytes(2_000_000)
        let collector = ByteCollector()
        let chunkSize = 50_000
        let writer = try GzipWriter(level: 1, downstream: collector, displayPath: "x.gz", chunkSize: chunkSize)
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + 10_000)
            try input[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
            // At most `window` chunks are held: every older one has been passed on already.
            #expect(collector.writes >= offset / chunkSize - GzipWriter.window)
        }
        try writer.finish()
        #expect(collector.writes == 1 + input.count / chunkSize + 1)  // header, chunks, trailer
        #expect(try GzipReader.decompress(collector.bytes) == input)
    }

    @Test func writingAfterTheEndIsAnErrorNamingThePath() throws {
        let writer = try GzipWriter(level: 6, downstream: ByteCollector(), displayPath: "out/x.jsonl.gz")
        try writer.finish()
        try writer.finish()  // idempotent
        #expect {
            try [1, 2, 3].withUnsafeBytes { try writer.write($0) }
        } throws: { error in
            (error as? NowETLError)?.context.path == "out/x.jsonl.gz"
        }
    }

    /// A real export (nowsim, all its incidents with display values) to JSON Lines, gzipped whole and
    /// split by bytes (small chunks): at concurrency 1 and 4 the same bytes, each part one member, and
    /// they decompress (Python's `gzip`, the `gzip` tool) to exactly the plain file of the same run.
    @Test func aRealExportIsTheSameBytesAtConcurrencyOneAndFour() async throws {
        let server = try await ETLServers.get()
        let table = try TableConfiguration(
            table: "incident", fields: TableRunnerSupport.fields, displayValue: .all,
            columns: TableRunnerSupport.columns)
        var runs: [[String: Data]] = []
        for concurrency in [1, 4] {
            try await withScratchDirectory { (directory: String) in
                let outputs = [
                    try TableRunnerSupport.spec(.json(JSONSinkOptions()), "incident.jsonl", directory: directory),
                    try TableRunnerSupport.spec(
                        .json(JSONSinkOptions()), "whole/incident.jsonl.gz", directory: directory),
                    FileSinkSpec(
                        format: .json(JSONSinkOptions()),
                        options: try SinkTestSupport.options(
                            directory, "split/incident.jsonl.gz", split: .bytes(400_000))),
                ]
                let (summary, _) = try await TableRunnerSupport.run(
                    table, server, directory: directory, concurrency: concurrency, outputs: outputs)
                #expect(summary.rows == 1200)
                var files: [String: Data] = [:]
                for name in try FileManager.default.subpathsOfDirectory(atPath: directory)
                where name.hasSuffix(".jsonl") || name.hasSuffix(".gz") {
                    files[name] = try SinkTestSupport.read(directory + "/" + name)
                }
                let plain = files["incident.jsonl"] ?? Data()
                #expect(plain.count > 300_000, "enough bytes for several chunks of the split output")
                let whole = try await SinkTestSupport.output(
                    "python3",
                    [
                        "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())",
                        directory + "/whole/incident.jsonl.gz",
                    ])
                #expect(whole == plain)
                let parts = files.keys.filter { $0.hasPrefix("split/") }.sorted()
                var joined = Data()
                for part in parts {
                    joined += try await SinkTestSupport.gunzip(directory + "/" + part)
                    let members = try JSONDecoder().decode(
                        [Int].self,
                        from: try await SinkTestSupport.output(
                            "python3", ["-c", Self.pythonMembers], stdin: files[part] ?? Data()))
                    #expect(members.count == 1, "\(part)")
                }
                #expect(joined == plain)
                runs.append(files)
            }
        }
        #expect(runs[0] == runs[1], "the same export at concurrency 1 and 4 must write the same bytes")
    }
}
