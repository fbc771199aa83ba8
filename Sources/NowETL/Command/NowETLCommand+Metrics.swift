import Foundation
import Synchronization

extension NowETLCommand {
    /// The run that finished within ``runWritingMetrics(_:environment:streams:makeTableRunner:stopSignals:)``,
    /// as ``PipelineRunResult/report(summaryJSON:logger:streams:)`` saw it.
    final class FinishedRun: Sendable {
        private let state = Mutex<(result: PipelineRunResult, logger: RunLogger)?>(nil)

        /// The run being reported, set where every run, shard and merge ends; a task-local value rather
        /// than a parameter, so the many early returns of `run` need not carry it.
        @TaskLocal static var current: FinishedRun?

        /// Keeps `result` and the logger it was reported with.
        func record(_ result: PipelineRunResult, logger: RunLogger) {
            state.withLock { $0 = (result, logger) }
        }

        /// What ``record(_:logger:)`` kept, if the run got that far.
        var value: (result: PipelineRunResult, logger: RunLogger)? { state.withLock { $0 } }
    }

    /// `nowetl run`, then, with `--metrics-file PATH`, its metrics (``RunMetrics``) whatever its outcome —
    /// a run that stopped before its tables (a configuration error, an unknown name, an unreachable
    /// instance) writes its exit code too, and keeps the previous file's last success.
    ///
    /// - Returns: The run's exit code, or 1 when the metrics could not be written after a run that was ok.
    /// - Throws: The run's ``Exit`` when it stopped early, after the metrics, for `main` to write the
    ///   failed summary.
    static func runWritingMetrics(
        _ options: NowETLArguments.RunOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async throws(Exit) -> Int32 {
        let started = Date()
        let finished = FinishedRun()
        let outcome: Result<Int32, Exit> = await FinishedRun.$current.withValue(finished) {
            do throws(Exit) {
                return .success(
                    try await run(
                        options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                        stopSignals: stopSignals))
            } catch {
                return .failure(error)
            }
        }
        // An early end is thrown on to `main` after the metrics: it writes the failed summary.
        var code: Int32
        switch outcome {
        case .success(let value): code = value
        case .failure(let exit): code = exit.code
        }
        guard let path = options.metricsFile else {
            if case .failure(let exit) = outcome { throw exit }
            return code
        }
        let reported = finished.value
        let now = Date()
        // A failed run carries the previous file's last success over; the first run has none.
        let lastSuccess =
            code == NowETLExitCode.ok
            ? now.timeIntervalSince1970
            : (try? String(contentsOfFile: path, encoding: .utf8)).flatMap(RunMetrics.lastSuccess(in:))
        let text = RunMetrics.text(
            pipeline: RunMetrics.pipelineLabel(options.pipeline), exitCode: code,
            seconds: reported?.result.seconds ?? now.timeIntervalSince(started), finished: now.timeIntervalSince1970,
            lastSuccess: lastSuccess, tables: reported.map { RunReport($0.result).tables } ?? [])
        do {
            try ReportFile.write(Data(text.utf8), toFile: path)
            reported?.logger.info("metrics written", [("path", path)])
        } catch {
            let message = NowETLError.text(of: error)
            if let logger = reported?.logger {
                logger.error("cannot write the metrics file", [("path", path), ("error", message)])
            } else {
                streams.standardError.writeLine("nowetl: cannot write the metrics file \(path): \(message)")
            }
            if code == NowETLExitCode.ok { code = NowETLExitCode.failed }
        }
        if case .failure(let exit) = outcome { throw exit }
        return code
    }
}
