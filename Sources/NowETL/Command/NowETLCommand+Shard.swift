import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `nowetl run --shard I/N` and `nowetl merge`: a run cut into shards that run on many machines over one
/// shared `output_dir`, then published by one merge (``ShardExtraction``, ``ShardSet``, ``ShardMergeRunner``).
extension NowETLCommand {
    /// `nowetl run PIPELINE --shard I/N`: the shard's slice of every selected table into the shard's
    /// journals and manifest, under the shard's lock (a second process of the same shard is exit 75).
    static func runShard(
        _ options: NowETLArguments.RunOptions, shard: Shard, start: Prologue, streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async -> Int32 {
        let (located, configuration, tables, logger) = (start.located, start.configuration, start.tables, start.logger)
        if let refusal = ShardExtraction.refusal(configuration, tables: tables) {
            return fail(refusal.description, code: refusal.exitCode, streams: streams)
        }
        guard let digest = pipelineDigest(options.pipeline, streams: streams) else { return NowETLExitCode.failed }
        guard let runner = makeShardRunner(configuration, makeTableRunner: makeTableRunner, logger: logger) else {
            return NowETLExitCode.failed
        }
        if let code = await checkNames(
            located, runner: runner, tables: options.tables, logger: logger, streams: streams)
        {
            return code
        }
        let started = Date()
        let runID = RunID(started: started).text
        let lock: OutputDirectoryLock
        do {
            lock = try OutputDirectoryLock.acquire(
                directory: ShardLayout.lockDirectory(
                    outputDirectory: configuration.outputDirectory, index: shard.index),
                runID: runID, started: started, pipeline: OutputDirectoryLock.pipelineIdentity(of: options.pipeline),
                directoryMode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        } catch {
            return fail(
                logger.redact(NowETLError.text(of: error, after: "shard \(shard) is already running elsewhere")),
                code: error.exitCode, streams: streams)
        }
        defer { lock.release() }
        var shardRun: PipelineRun
        do {
            shardRun = try PipelineRun(
                configuration: configuration,
                runner: ShardExtraction(base: runner, shard: shard, runKey: options.runKey), runID: runID,
                runStarted: started, tableFilter: tables.map(\.table), logger: logger,
                progress: ProgressReporter(
                    style: ProgressReporter.style(
                        for: options.progress, standardErrorIsTerminal: streams.standardErrorIsTerminal),
                    logger: logger))
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        shardRun.restart = options.restart
        shardRun.finish = .shardManifest(
            ShardManifest(
                pipelineSHA256: digest, index: shard.index, count: shard.count, runID: runID,
                runStarted: RunTimestamp(started), runKey: options.runKey, status: .ok, tables: []),
            path: ShardLayout.manifestPath(outputDirectory: configuration.outputDirectory, index: shard.index))
        logger.info("shard started", [("run_id", runID), ("shard", shard.description)])
        let prepared = shardRun
        let result = await StopSignals.runStoppable({ await prepared.run() }, logger: logger, stopSignals: stopSignals)
        return result.report(summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }

    /// SHA-256 of the pipeline file's bytes, or `nil` (after an error line) when it cannot be read.
    static func pipelineDigest(_ path: String, streams: CommandStreams) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            _ = fail("cannot read the pipeline file \(path)", code: NowETLExitCode.failed, streams: streams)
            return nil
        }
        return SHA256.hash(Array(data)).hexString
    }

    /// The instance's ``TableRunner`` from `makeTableRunner`, or `nil` after an error line.
    static func makeShardRunner(
        _ configuration: PipelineConfiguration, makeTableRunner: TableRunnerFactory, logger: RunLogger
    ) -> TableRunner? {
        do {
            if let runner = try makeTableRunner(configuration) as? TableRunner { return runner }
            logger.error("shards need the instance's table runner")
        } catch {
            logger.error(logger.redact(NowETLError.text(of: error)))
        }
        return nil
    }
}
