import Foundation
import NowETL
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT during `run`, delivered in-process through ``StopSignals/deliver(_:)``: the run is
/// cancelled, nothing is committed (no temporary file stays, no new file or manifest), the summary
/// says `interrupted`, the exit code is 143 or 130; a second signal exits at once.
@Suite(.timeLimit(.minutes(3))) struct RunStopSignalTests {
    /// Exits that ``StopSignals`` asked for instead of ending the test process.
    final class ExitRecorder: Sendable {
        private let signals = Mutex<[Int32]>([])
        var recorded: [Int32] { signals.withLock { $0 } }
        func record(_ signal: Int32) { signals.withLock { $0.append(signal) } }
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aSignalStopsTheRunCleanly(signal: Int32, expectedCode: Int32) async throws {
        try await RunFixture.with { fixture in
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let runner = FakeTableRunner([
                "incident": .rows(7, sourceCount: 7),
                "problem": .rowsThenWaitForCancellation(5, started: { startedContinuation.yield() }),
            ])
            let exits = ExitRecorder()
            let signals = StopSignals(exitAtOnce: { exits.record($0) })
            let captured = CapturedStreams()
            let summaryPath = fixture.directory.appendingPathComponent("summary.json").path
            async let code = InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--progress", "off", "--summary-json", summaryPath],
                environment: RunFixture.environment, streams: captured, makeTableRunner: { _ in runner },
                stopSignals: signals
            ).code
            for await _ in started { break }
            signals.deliver(signal)
            #expect(await code == expectedCode, "\(captured.standardError)")
            #expect(exits.recorded.isEmpty, "the first signal stops cleanly")

            let interrupted = try #require(captured.errorLines.first { $0.contains("interrupted") })
            #expect(interrupted.contains("committed=none"), "\(interrupted)")
            #expect(interrupted.contains("exit_code=\(expectedCode)"), "\(interrupted)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath)))
                    as? [String: Any])
            #expect(report["status"] as? String == "interrupted")
            #expect(report["exit_code"] as? Int == Int(expectedCode))
            #expect(try fixture.manifest() == nil, "an interrupted run writes no manifest")
            let written = try FileManager.default.contentsOfDirectory(atPath: fixture.outputDirectory).sorted()
            #expect(!written.contains { $0.contains(".tmp-") }, "\(written)")
            #expect(!written.contains("incident.csv"), "a run commits all its tables or none: \(written)")
            #expect(!written.contains("problem.csv"), "\(written)")

            // The second signal does not wait for anything.
            signals.deliver(signal)
            #expect(exits.recorded == [signal])
        }
    }

    @Test func withoutAStopHandlerASignalExitsAtOnce() async throws {
        let exits = ExitRecorder()
        let signals = StopSignals(exitAtOnce: { exits.record($0) })
        try await RunFixture.with { fixture in
            let code = await InProcessNowETL.run(
                ["validate", fixture.pipelinePath], environment: RunFixture.environment, stopSignals: signals
            ).code
            #expect(code == 0)
            signals.deliver(SIGTERM)
            #expect(exits.recorded == [SIGTERM])
            #expect(signals.received == SIGTERM)
        }
    }

    @Test func aSignalAfterEveryTableCommittedChangesNothing() async throws {
        try await RunFixture.with { fixture async throws in
            let signals = StopSignals(exitAtOnce: { _ in Issue.record("no exit expected") })
            let runner = FakeTableRunner(["incident": .rows(2, sourceCount: 2)])
            let captured = CapturedStreams()
            signals.onStop { _ in }
            signals.deliver(SIGTERM)
            let code = await InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--progress", "off"], environment: RunFixture.environment,
                streams: captured, makeTableRunner: { _ in runner }, stopSignals: signals
            ).code
            #expect(code == 0, "\(captured.standardError)")
            #expect(try fixture.manifest() != nil)
        }
    }
}
