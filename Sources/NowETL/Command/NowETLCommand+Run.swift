import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

extension NowETLCommand {
    /// `nowetl run PIPELINE`: the prologue (load, select, logger, runner, name check, order, lock), then
    /// the tables through ``PipelineRun``, stoppable, and the report; `--shard` runs ``runShard(_:shard:start:streams:makeTableRunner:stopSignals:)``.
    /// An early end throws ``Exit`` with its failure (``NowETLCommand/main(_:environment:streams:makeTableRunner:stopSignals:)``
    /// writes it to `--summary-json`).
    static func run(
        _ options: NowETLArguments.RunOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async throws(Exit) -> Int32 {
        let start = try prologue(
            options.pipeline, overrides: options.overrides, tables: options.tables, logFormat: options.logFormat,
            logLevel: options.logLevel, environment: environment, streams: streams)
        if let shard = options.shard {
            return try await runShard(
                options, shard: shard, start: start, streams: streams, makeTableRunner: makeTableRunner,
                stopSignals: stopSignals)
        }
        let runner = try makeRunner(
            start.configuration, makeTableRunner: makeTableRunner, logger: start.logger, streams: streams)
        let (located, configuration, logger) = (start.located, start.configuration, start.logger)
        // Before the lock, the journals and the first page: a misspelt name touches no file.
        if let exit = await checkNames(
            located, runner: runner, tables: options.tables, logger: logger, streams: streams)
        {
            throw exit
        }
        let order: TableOrder
        do {
            order = try await PipelineRun.tableOrder(
                for: configuration, tables: start.tables.map(\.table), runner: runner)
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        if order.basis != .pipeline {
            logger.info(
                "table order", [("basis", order.basis.rawValue), ("tables", order.tables.joined(separator: ","))])
            for dependency in order.dependencies {
                logger.info(
                    "table after referenced table",
                    [
                        ("table", dependency.table), ("after", dependency.after),
                        ("fields", dependency.fields.map(\.name).joined(separator: ",")),
                    ])
            }
        }
        // Before the lock too: a target that does not fit, or would mail people, gets no write.
        let preflight = await checkTargets(
            configuration, runner: runner, tables: options.tables, logger: logger, streams: streams)
        if let exit = preflight.exit { throw exit }
        for (target, line) in preflight.findings {
            logger.warning("pre-flight against the target", [("target", target), ("finding", line)])
        }
        let started = Date()
        let progress = ProgressReporter(
            style: ProgressReporter.style(
                for: options.progress, standardErrorIsTerminal: streams.standardErrorIsTerminal),
            logger: logger)
        var pipelineRun: PipelineRun
        do {
            pipelineRun = try PipelineRun(
                configuration: configuration, runner: runner, runID: RunID(started: started).text,
                runStarted: started, tableFilter: options.tables, order: order, logger: logger, progress: progress,
                continueAfterFailure: options.keepGoing)
            pipelineRun.restart = options.restart
            pipelineRun.fullRefresh = options.fullRefresh
            pipelineRun.prune = options.prune
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        logger.info(
            "pipeline loaded",
            [
                ("pipeline", options.pipeline), ("instance", configuration.source.instance.absoluteString),
                ("auth", configuration.source.auth.description),
            ])
        let lock = try lockOutputDirectory(
            configuration, pipeline: options.pipeline, runID: pipelineRun.runID, started: started, logger: logger,
            streams: streams
        ).lock
        defer { lock.release() }
        for path in TableJournal.removeJournals(
            outputDirectory: configuration.outputDirectory, except: configuration.tables.map(\.table))
        {
            logger.info("removed the run journal of a table the pipeline no longer has", [("path", path)])
        }
        // Not the shards' files: a shard running now (it holds its own lock, not this one) is writing them.
        for path in lock.removeStaleTemporaryFiles(excluding: [ShardLayout.relativeRoot]) {
            logger.info("removed a temporary file of an interrupted run", [("path", path)])
        }
        let prepared = pipelineRun
        let result = await StopSignals.runStoppable(
            { await prepared.run() }, logger: logger, stopSignals: stopSignals,
            journals: configuration.outputDirectory)
        return result.report(summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }
}
