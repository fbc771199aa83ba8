import Foundation

@testable import NowETL

/// `nowetl` in-process: the tests' one way to call ``NowETLCommand/main(_:environment:streams:makeTableRunner:stopSignals:)``
/// with captured streams (the child-process way is `NowETLProcess` in NowSimTesting).
enum InProcessNowETL {
    /// Runs the command line `arguments` (without the program name) and returns the exit code with
    /// what it printed.
    ///
    /// - Parameters:
    ///   - environment: the variables for `${VAR}` in pipeline files (the test process's by default, as
    ///     the command's own default).
    ///   - streams: where the output goes (a fresh capture by default; pass one to capture as a terminal).
    ///   - makeTableRunner: the extractor (the real one by default; a ``FakeTableRunner`` for runs that make
    ///     no requests).
    ///   - stopSignals: where SIGINT/SIGTERM come from (`nil`: the process's own, as the command's default).
    static func run(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        streams: CapturedStreams = CapturedStreams(),
        makeTableRunner: NowETLCommand.TableRunnerFactory = NowETLCommand.makeDefaultTableRunner,
        stopSignals: StopSignals? = nil
    ) async -> (code: Int32, streams: CapturedStreams) {
        let code = await NowETLCommand.main(
            arguments, environment: environment, streams: streams.streams, makeTableRunner: makeTableRunner,
            stopSignals: stopSignals)
        return (code, streams)
    }
}
