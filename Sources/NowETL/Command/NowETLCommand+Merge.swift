import Foundation

extension NowETLCommand {
    /// `nowetl merge PIPELINE`: checks every shard's manifest (``ShardSet``), holds every shard's lock and
    /// the `output_dir` lock, and runs the pipeline through ``ShardMergeRunner`` — so the commit, the
    /// manifest, publish mode and the exit codes are a run's; an early end throws ``Exit`` with its
    /// failure (`main` writes it to `--summary-json`).
    static func merge(
        _ options: NowETLArguments.MergeOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async throws(Exit) -> Int32 {
        let start = try prologue(
            options.pipeline, overrides: options.overrides, tables: [], logFormat: options.logFormat,
            logLevel: options.logLevel, environment: environment, streams: streams)
        let (configuration, logger) = (start.configuration, start.logger)
        // The shards may have run only the full tables (`--table`) of a pipeline that also has incremental
        // ones, which an ordinary run exports: only the tables the shards ran are judged (below), and a
        // pipeline with no table a shard can run is refused here.
        let shardable = configuration.tables.filter { $0.incremental == nil }
        if let refusal = ShardExtraction.refusal(configuration, tables: shardable.isEmpty ? configuration.tables : []) {
            throw failure(refusal, logger: logger, streams: streams)
        }
        let digest = try pipelineDigest(options.pipeline, logger: logger, streams: streams)
        let base = try makeShardRunner(
            configuration, makeTableRunner: makeTableRunner, logger: logger, streams: streams)
        let directory = configuration.outputDirectory
        let first: ShardSet
        do {
            first = try ShardSet.load(outputDirectory: directory, pipelineSHA256: digest, runKey: options.runKey)
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        if let refusal = ShardExtraction.refusal(
            configuration, tables: configuration.tables.filter { first.tables.contains($0.table) })
        {
            throw failure(refusal, logger: logger, streams: streams)
        }
        let started = Date()
        // Every shard's lock: a shard still running (or started now) cannot change what is merged.
        var locks: [OutputDirectoryLock] = []
        defer { for lock in locks { lock.release() } }
        for index in 0..<(first.manifests.first?.count ?? 0) {
            do {
                locks.append(
                    try OutputDirectoryLock.acquire(
                        directory: ShardLayout.lockDirectory(outputDirectory: directory, index: index),
                        runID: first.runID, started: started))
            } catch {
                throw failure(
                    logger.redact(NowETLError.text(of: error, after: "shard \(index) is still running")),
                    kind: RunFailure.kind(of: error), code: error.exitCode, logger: logger, streams: streams)
            }
        }
        let locked = try lockOutputDirectory(
            configuration, pipeline: options.pipeline, runID: first.runID, started: started, logger: logger,
            streams: streams)
        let outputLock = locked.lock
        // This very merge, killed while committing: now complete (and its shard state gone).
        if let record = locked.recovered, record.runID == first.runID {
            outputLock.release()
            logger.info("merge finished: its interrupted commit is complete", [("run_id", record.runID)])
            return NowETLExitCode.ok
        }
        defer { outputLock.release() }
        // Read again under the locks (a shard may have finished in between); a rolled-forward merge has
        // removed them, and there is nothing left to merge.
        let shards: ShardSet
        do {
            shards = try ShardSet.load(outputDirectory: directory, pipelineSHA256: digest, runKey: options.runKey)
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        for path in outputLock.removeStaleTemporaryFiles() {
            logger.info("removed a temporary file of an interrupted run", [("path", path)])
        }
        let runner = ShardMergeRunner(base: base, shards: shards)
        let pipelineRun: PipelineRun
        do {
            let order = try await PipelineRun.tableOrder(for: configuration, tables: shards.tables, runner: runner)
            pipelineRun = try PipelineRun(
                configuration: configuration, runner: runner, runID: shards.runID, runStarted: shards.runStarted,
                tableFilter: shards.tables, order: order, logger: logger,
                progress: ProgressReporter(
                    style: ProgressReporter.style(
                        for: options.progress, standardErrorIsTerminal: streams.standardErrorIsTerminal),
                    logger: logger))
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        logger.info(
            "merging shards",
            [
                ("shards", shards.manifests.count), ("run_id", shards.runID),
                ("tables", shards.tables.joined(separator: ",")),
            ])
        let result = await StopSignals.runStoppable(
            { await pipelineRun.run() }, logger: logger, stopSignals: stopSignals)
        return result.report(summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }
}
