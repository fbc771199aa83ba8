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
    ) async throws(Exit) -> Int32 {
        let (located, configuration, tables, logger) = (start.located, start.configuration, start.tables, start.logger)
        if let refusal = ShardExtraction.refusal(configuration, tables: tables) {
            throw failure(refusal, logger: logger, streams: streams)
        }
        let digest = try pipelineDigest(options.pipeline, logger: logger, streams: streams)
        let runner = try makeShardRunner(
            configuration, makeTableRunner: makeTableRunner, logger: logger, streams: streams)
        if let exit = await checkNames(
            located, runner: runner, tables: options.tables, logger: logger, streams: streams)
        {
            throw exit
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
            throw failure(
                logger.redact(NowETLError.text(of: error, after: "shard \(shard) is already running elsewhere")),
                kind: RunFailure.kind(of: error), code: error.exitCode, logger: logger, streams: streams)
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
            throw failure(error, logger: logger, streams: streams)
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

    /// SHA-256 of the pipeline file's bytes.
    ///
    /// - Throws: ``Exit`` (1) after the error line when it cannot be read.
    static func pipelineDigest(_ path: String, logger: RunLogger, streams: CommandStreams) throws(Exit) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw failure(
                "cannot read the pipeline file \(path)", kind: NowETLError.Code.io.rawValue,
                code: NowETLExitCode.failed,
                logger: logger, streams: streams)
        }
        return SHA256.hash(Array(data)).hexString
    }

    /// The instance's ``TableRunner`` from `makeTableRunner`.
    ///
    /// - Throws: ``Exit`` (1) after the error line when there is none.
    static func makeShardRunner(
        _ configuration: PipelineConfiguration, makeTableRunner: TableRunnerFactory, logger: RunLogger,
        streams: CommandStreams
    ) throws(Exit) -> TableRunner {
        let message: String
        let kind: String
        do {
            if let runner = try makeTableRunner(configuration) as? TableRunner { return runner }
            (message, kind) = ("shards need the instance's table runner", NowETLError.Code.failed.rawValue)
        } catch {
            (message, kind) = (logger.redact(NowETLError.text(of: error)), RunFailure.kind(of: error))
        }
        // A log line as before, in either format; the summary gets the failure.
        logger.error(message)
        throw Exit(code: NowETLExitCode.failed, failure: RunFailure(kind: kind, message: message))
    }
}
