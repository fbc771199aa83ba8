import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The gzip engines behind `compression:` and `level:`: ISA-L's chunks make the same one-member stream
/// zlib's do (every reader reads it whole, the same bytes whatever the chunking), and a real export with
/// each `compression:` value — and `level:` — to CSV, JSON Lines and XML records, split into parts, reads back
/// with `gzip -t`, Python's `gzip` and `xmllint`, writes the same bytes twice, and `level: 6` still writes
/// zlib's bytes.
@Suite(.timeLimit(.minutes(10))) struct SinkGzipEngineTests {
    /// Compresses `input` with `compression` through a writer fed `step` bytes at a time.
    static func compress(
        _ input: [UInt8], _ compression: Compression, chunkSize: Int = GzipWriter.defaultChunkSize, step: Int
    ) throws -> [UInt8] {
        let collector = ByteCollector()
        let writer = try GzipWriter(
            compression: compression, downstream: collector, displayPath: "x.gz", chunkSize: chunkSize)
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + step)
            try input[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
        }
        try writer.finish()
        #expect(writer.bytesOut == collector.bytes.count)
        return collector.bytes
    }

    /// The uncompressed size of each gzip member of the bytes on standard input, as JSON (Python's `zlib`).
    static func memberSizes(_ bytes: [UInt8]) async throws -> [Int] {
        try JSONDecoder().decode(
            [Int].self,
            from: try await SinkTestSupport.output(
                "python3", ["-c", SinkGzipChunkTests.pythonMembers], stdin: Data(bytes)))
    }

    @Test(arguments: IgzipCompressor.levels)
    func isalChunksMakeOneMemberThatEveryReaderReadsWhole(level: Int) async throws {
        let input = GzipSample.bytes(600_000)
        let bytes = try Self.compress(input, .igzip(level: level), chunkSize: 64 * 1024, step: 10_007)
        #expect(try await Self.memberSizes(bytes) == [input.count], "one member")
        #expect(try GzipReader.decompress(bytes) == input)
        #expect(try await SinkTestSupport.output("gzip", ["-dc"], stdin: Data(bytes)) == Data(input))
        #expect(bytes.count < input.count / 2, "text compresses at level \(level)")
    }

    @Test func isalBytesAreTheSameWhateverTheChunkingAndTheTiming() async throws {
        let input = GzipSample.bytes(500_000)
        let reference = try Self.compress(input, .gzipDefault, chunkSize: 48 * 1024, step: input.count)
        let outputs = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for step in [1, 4_099, 65_536, 100_003] {
                group.addTask { try Self.compress(input, .gzipDefault, chunkSize: 48 * 1024, step: step) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.allSatisfy { $0 == reference })
        // An empty stream is a valid one too.
        let empty = try Self.compress([], .gzipDefault, step: 1)
        #expect(try GzipReader.decompress(empty) == [])
    }

    /// libxml2 reads only the first member: an ISA-L file of many chunks it reads whole.
    @Test func xmllintReadsAnISALChunkedXMLFileWhole() async throws {
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<unload>\n"
        for index in 0..<20_000 { document += "<r n=\"\(index)\"><a>\(index * 2_654_435_761 % 1_000_003)</a></r>\n" }
        document += "</unload>\n"
        let bytes = try Self.compress(Array(document.utf8), .igzip(level: 1), chunkSize: 64 * 1024, step: 10_000)
        try await withScratchDirectory { (directory: String) in
            let path = directory + "/chunked.xml.gz"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let count = try await SinkTestSupport.output("xmllint", ["--xpath", "count(/unload/r)", path])
            #expect(String(decoding: count, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "20000")
        }
    }

    @Test func aLevelTheEngineDoesNotHaveIsAnErrorNamingThePath() {
        for compression in [Compression.igzip(level: 4), .igzip(level: -1), .gzip(level: 10)] {
            #expect {
                _ = try GzipWriter(compression: compression, downstream: ByteCollector(), displayPath: "out/x.csv.gz")
            } throws: { error in
                (error as? NowETLError)?.context.path == "out/x.csv.gz"
            }
        }
    }

    /// `compression:` names an engine and level; `level:` stays zlib's; neither gives the default.
    @Test func theKeysDecodeToTheirEngines() throws {
        let outputs = """
            outputs:
              - csv: { path: "a.csv.gz", compression: fast }
              - csv: { path: "b.csv.gz", compression: balanced }
              - csv: { path: "c.csv.gz", compression: small }
              - csv: { path: "d.csv.gz", level: 6 }
              - csv: { path: "e.csv.gz" }
              - csv: { path: "f.csv" }
            """
        let pipeline = try PipelineLoader.load(
            text:
                "version: 1\nsource:\n  instance: https://a.example.com\n  auth: { basic: { user: u, password: p } }\n"
                + "tables:\n  - table: incident\n" + outputs + "\n",
            file: "p.yaml", environment: [:])
        #expect(
            pipeline.outputs.map(\.file.compression) == [
                .igzip(level: 1), .igzip(level: 3), .gzip(level: 9), .gzip(level: 6), .igzip(level: 3), .none,
            ])
        #expect(Compression.gzipDefault == Compression.Preset.balanced.compression)
    }

    /// The outputs of the end-to-end export: a plain reference per format, then each gzip setting
    /// (`nil` for none given) split by compressed bytes into parts of several chunks.
    static let settings: [(name: String, key: String, compression: Compression)] = [
        ("fast", "compression: fast, ", .igzip(level: 1)),
        ("balanced", "compression: balanced, ", .igzip(level: 3)),
        ("small", "compression: small, ", .gzip(level: 9)),
        ("level6", "level: 6, ", .gzip(level: 6)),
        ("default", "", .gzipDefault),
    ]
    static let formats = [("csv", "csv"), ("json", "jsonl"), ("xml", "xml")]
    static let splitBytes = 300_000

    static var outputs: String {
        var lines: [String] = []
        for (format, ext) in formats {
            // XML as records: an unload carries the run's start time, which differs between two runs.
            let options = format == "xml" ? ", format: records" : ""
            lines.append("  - \(format): { path: \"plain/{table}.\(ext)\"\(options) }")
            for setting in settings {
                lines.append(
                    "  - \(format): { path: \"\(setting.name)/{table}.\(ext).gz\", \(setting.key)"
                        + "split: { bytes: \(splitBytes) }\(options) }")
            }
        }
        return lines.joined(separator: "\n")
    }

    @Test func everyCompressionRoundTripsForEveryFormatAndTwoRunsWriteTheSameBytes() async throws {
        try await withNowSim(arguments: seededNowSim("incident=1500", value: 11)) { sim in
            var runs: [[String: Data]] = []
            for concurrency in [1, 4] {
                try await withScratchDirectory { (directory: URL) in
                    try PipelineYAML(
                        sim, source: ["concurrency: \(concurrency)", "page_size: 200"], outputs: Self.outputs
                    )
                    .write("p.yaml", in: directory)
                    let result = try await NowETLProcess.run(
                        ["run", "p.yaml", "--progress", "off"], in: directory)
                    try #require(result.status == 0, "nowetl run: \(result.stderrText)")
                    runs.append(try await Self.checkFiles(in: directory.appendingPathComponent("out").path))
                }
            }
            #expect(runs[0].keys.sorted() == runs[1].keys.sorted())
            for (name, bytes) in runs[0] {
                #expect(runs[1][name] == bytes, "\(name) differs between concurrency 1 and 4")
            }
        }
    }

    /// Checks every file of the export in `directory` and returns them by relative path.
    static func checkFiles(in directory: String) async throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory).sorted()
        where name.contains(".") && !name.hasPrefix(".") && name != "manifest.json" {
            files[name] = try SinkTestSupport.read(directory + "/" + name)
        }
        for (format, ext) in formats {
            let plain = files["plain/incident.\(ext)"] ?? Data()
            #expect(plain.count > splitBytes, "\(format): enough bytes for several parts")
            for setting in settings {
                let parts = files.keys.filter { $0.hasPrefix("\(setting.name)/") && $0.hasSuffix(".\(ext).gz") }
                    .sorted()
                #expect(parts.count > 1, "\(setting.name) \(format) is split")
                var joined = Data()
                for part in parts {
                    let path = directory + "/" + part
                    let bytes = files[part] ?? Data()
                    let gzipTest = try await SinkTestSupport.run("gzip", ["-t", path])
                    #expect(gzipTest.status == 0, "gzip -t \(part): \(gzipTest.stderr)")
                    let content = try await SinkTestSupport.output(
                        "python3",
                        ["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())", path])
                    #expect(try await Self.memberSizes(Array(bytes)) == [content.count], "\(part): one member")
                    if format == "xml" {
                        let lint = try await SinkTestSupport.run("xmllint", ["--noout", path])
                        #expect(lint.status == 0, "xmllint \(part): \(lint.stderr)")
                    }
                    // The file is exactly what the configured engine writes for its content: for
                    // `level: 6`, zlib's bytes as before `compression:` existed.
                    let again = try Self.compress(
                        Array(content), setting.compression,
                        chunkSize: GzipWriter.chunkSize(splittingAt: splitBytes), step: 65_536)
                    #expect(Data(again) == bytes, "\(part) is \(setting.compression)'s bytes")
                    joined += content
                }
                // Each CSV part has its header and each XML part its document; JSON Lines parts join as they are.
                if format == "json" {
                    #expect(joined == plain, "\(setting.name) \(format) parts join to the plain file")
                }
            }
        }
        return files
    }
}
