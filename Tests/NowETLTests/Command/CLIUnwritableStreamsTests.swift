import Foundation
import NowETL
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and standard error on a full disk (`/dev/full`), on a pipe whose reader is gone and
/// on a closed descriptor: the lines are dropped and counted, the command does what it would have done.
@Suite(.timeLimit(.minutes(3))) struct CLIUnwritableStreamsTests {
    /// A descriptor every write to which fails, and how it fails.
    enum Broken: String, CaseIterable, Sendable {
        case fullDisk, pipeWithoutReader, closed

        /// Opens the descriptor; the caller closes it with ``close(_:)``.
        func open() throws -> Int32 {
            switch self {
            case .fullDisk:
                let descriptor = Glibc.open("/dev/full", O_WRONLY)
                guard descriptor >= 0 else { throw CocoaError(.fileNoSuchFile) }
                return descriptor
            case .pipeWithoutReader:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw CocoaError(.fileWriteUnknown) }
                Glibc.close(ends[0])
                return ends[1]
            case .closed:
                // Never open in this process (above any RLIMIT_NOFILE): EBADF. Closing a real descriptor
                // instead would let a test running beside this one reuse its number.
                return 1 << 30
            }
        }

        func close(_ descriptor: Int32) {
            if self != .closed { Glibc.close(descriptor) }
        }
    }

    /// Standard output and standard error both on `descriptor`.
    static func streams(on descriptor: Int32) -> CommandStreams {
        let stream = StandardStream(fileDescriptor: descriptor)
        return CommandStreams.writing(to: stream, errorsTo: stream)
    }

    @Test(arguments: Broken.allCases) func aFailedWriteIsDroppedAndCounted(_ broken: Broken) throws {
        let descriptor = try broken.open()
        defer { broken.close(descriptor) }
        let stream = StandardStream(fileDescriptor: descriptor)
        #expect(stream.write("one line\n") == false)
        #expect(stream.write("") == true, "nothing to write cannot fail")
        #expect(stream.write("another line\n") == false)
        #expect(stream.droppedWrites == 2)
    }

    @Test func aWorkingDescriptorGetsEveryByte() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let stream = StandardStream(fileDescriptor: ends[1])
        let text = String(repeating: "zwölf Zeichen ", count: 1_000) + "\n"
        #expect(stream.write(text))
        close(ends[1])
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == text)
        #expect(stream.droppedWrites == 0)
    }

    @Test(arguments: Broken.allCases) func validateSucceedsWithNowhereToWrite(_ broken: Broken) async throws {
        try await RunFixture.with { fixture in
            let descriptor = try broken.open()
            defer { broken.close(descriptor) }
            let streams = Self.streams(on: descriptor)
            let code = await NowETLCommand.main(
                ["validate", fixture.pipelinePath], environment: RunFixture.environment, streams: streams)
            #expect(code == 0)
            #expect(streams.droppedWrites() == 1, "the verdict line")
        }
    }

    @Test(arguments: Broken.allCases) func runExportsAndCountsTheLostLines(_ broken: Broken) async throws {
        try await RunFixture.with { fixture in
            let descriptor = try broken.open()
            defer { broken.close(descriptor) }
            let streams = Self.streams(on: descriptor)
            let summaryPath = fixture.directory.appendingPathComponent("summary.json").path
            let runner = FakeTableRunner(["incident": .rows(7, sourceCount: 7)])
            let code = await NowETLCommand.main(
                ["run", fixture.pipelinePath, "--summary-json", summaryPath, "--progress", "off"],
                environment: RunFixture.environment, streams: streams, makeTableRunner: { _ in runner })
            #expect(code == 0)
            let manifest = try #require(try fixture.manifest(), "the run committed its outputs")
            #expect((manifest["files"] as? [Any])?.isEmpty == false)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath)))
                    as? [String: Any])
            #expect(report["status"] as? String == "ok")
            let dropped = try #require(report["log_writes_dropped"] as? Int)
            #expect(dropped >= 3, "the info lines of the run before the summary was written")
            #expect(streams.droppedWrites() > dropped, "the summary table came after the report")
        }
    }
}
