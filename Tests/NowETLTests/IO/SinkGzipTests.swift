import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The gzip writer against the `gzip` tool and the reader, at several levels and chunkings.
@Suite(.timeLimit(.minutes(5))) struct SinkGzipTests {
    @Test(arguments: [0, 1, 6, 9])
    func roundTripsThroughTheGzipTool(level: Int) async throws {
        let input = GzipSample.bytes(150_000)
        let collector = ByteCollector()
        let writer = try GzipWriter(level: level, downstream: collector, displayPath: "test.gz")
        var offset = 0
        var step = 1
        while offset < input.count {  // uneven chunks, from 1 byte to 100 KB
            let end = min(input.count, offset + step)
            try input[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
            step = step * 3 + 1
        }
        try writer.finish()
        #expect(collector.bytes.prefix(3) == [0x1F, 0x8B, 0x08])
        if level == 0 { #expect(collector.bytes.count > input.count) }
        if level == 9 { #expect(collector.bytes.count < input.count / 2) }

        try await withScratchDirectory { (directory: String) in
            let path = directory + "/sample.gz"
            try Data(collector.bytes).write(to: URL(fileURLWithPath: path))
            #expect(try await SinkTestSupport.gunzip(path) == Data(input))
            #expect(try GzipReader.decompress(collector.bytes) == input)
        }
    }

    @Test func emptyInputIsAValidEmptyGzipFile() async throws {
        let collector = ByteCollector()
        let writer = try GzipWriter(level: 6, downstream: collector, displayPath: "empty.gz")
        try writer.finish()
        try writer.finish()  // idempotent
        #expect(try GzipReader.decompress(collector.bytes) == [])
        let out = try await SinkTestSupport.output("gzip", ["-dc"], stdin: Data(collector.bytes))
        #expect(out.isEmpty)
    }

    @Test func sameInputGivesTheSameBytes() async throws {
        let input = GzipSample.bytes(50_000)
        var outputs: [[UInt8]] = []
        for _ in 0..<2 {
            let collector = ByteCollector()
            let writer = try GzipWriter(level: 6, downstream: collector, displayPath: "x.gz")
            try input.withUnsafeBytes { try writer.write($0) }
            try writer.finish()
            outputs.append(collector.bytes)
        }
        #expect(outputs[0] == outputs[1])
    }

    @Test func incompressibleInputStillFitsItsMembers() async throws {
        // Random bytes: every chunk is stored, a little larger than its input, and still fits.
        var generator = SystemRandomNumberGenerator()
        var input = [UInt8](repeating: 0, count: 3 << 20)
        input.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 8) {
                raw.storeBytes(of: generator.next(), toByteOffset: index, as: UInt64.self)
            }
        }
        let collector = ByteCollector()
        let writer = try GzipWriter(level: 1, downstream: collector, displayPath: "x.gz")
        try input.withUnsafeBytes { try writer.write($0) }
        try writer.finish()
        #expect(collector.writes == 1 + 3 + 1)  // header, three 1 MiB chunks, trailer
        #expect(collector.bytes.count > input.count)
        #expect(try GzipReader.decompress(collector.bytes) == input)
    }

    @Test func levelOutOfRangeIsAnErrorNamingThePath() {
        #expect {
            _ = try GzipWriter(level: 10, downstream: ByteCollector(), displayPath: "out/x.csv.gz")
        } throws: { error in
            (error as? NowETLError)?.context.path == "out/x.csv.gz"
        }
    }

    @Test func readerRejectsTruncatedAndCorruptData() async throws {
        let collector = ByteCollector()
        let writer = try GzipWriter(level: 6, downstream: collector, displayPath: "x.gz")
        try GzipSample.bytes(10_000).withUnsafeBytes { try writer.write($0) }
        try writer.finish()
        #expect(throws: NowETLError.self) { try GzipReader.decompress(Array(collector.bytes.dropLast(9))) }
        var corrupt = collector.bytes
        corrupt[corrupt.count / 2] ^= 0xFF
        #expect(throws: NowETLError.self) { try GzipReader.decompress(corrupt) }
        #expect(throws: NowETLError.self) { try GzipReader.decompress([]) }
        // Two members concatenated read as one stream, as gzip -d does.
        #expect(try GzipReader.decompress(collector.bytes + collector.bytes).count == 20_000)
    }
}
