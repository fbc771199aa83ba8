import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `nowetl run --shard I/N` and `nowetl merge`: a run cut into shards that run on many machines over one
/// shared `output_dir`, then published by one merge (``ShardRun``, ``ShardSet``, ``ShardMergeRunner``).
extension NowETLCommand {
    /// `nowetl run PIPELINE --shard I/N`: the shard's slice of every selected table into the shard's
    /// journals and manifest, under the shard's lock (a second process of the same shard is exit 75).
    static func runShard(
        _ options: NowETLArguments.RunOptions, shard: Shard, located: LocatedPipeline,
        environment: [String: String], streams: CommandStreams, makeTableRunner: TableRunnerFactory,
        stopSignals: StopSignals?
    ) async -> Int32 {
        let configuration = located.configuration
        let tables: [TableConfiguration]
        do {
            tables = try PipelineRun.selectTables(options.tables, from: configuration)
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        if let refusal = ShardRun.refusal(configuration, tables: tables) {
            return fail(refusal.description, code: refusal.exitCode, streams: streams)
        }
        guard let digest = pipelineDigest(options.pipeline, streams: streams) else { return NowETLExitCode.failed }
        let logger = RunLogger(
            format: options.logFormat, minimumLevel: options.logLevel, secrets: configuration.secretValues,
            console: streams.standardError)
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
                logger.redact("shard \(shard) is already running elsewhere: \(error.description)"),
                code: error.exitCode, streams: streams)
        }
        defer { lock.release() }
        var shardRun = ShardRun(
            configuration: configuration, runner: runner, shard: shard, pipelineSHA256: digest, tables: tables,
            runID: runID, runStarted: started, logger: logger,
            progress: ProgressReporter(
                style: ProgressReporter.style(
                    for: options.progress, standardErrorIsTerminal: streams.standardErrorIsTerminal),
                logger: logger))
        shardRun.restart = options.restart
        shardRun.runKey = options.runKey
        let prepared = shardRun
        let result = await runStoppable({ await prepared.run() }, logger: logger, stopSignals: stopSignals)
        return report(result, summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }

    /// `nowetl merge PIPELINE`: checks every shard's manifest (``ShardSet``), holds every shard's lock and
    /// the `output_dir` lock, and runs the pipeline through ``ShardMergeRunner`` — so the commit, the
    /// manifest, publish mode and the exit codes are a run's.
    static func merge(
        _ options: NowETLArguments.MergeOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async -> Int32 {
        guard
            let located = loadLocated(
                options.pipeline, overrides: options.overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let configuration = located.configuration
        // The shards may have run only the full tables (`--table`) of a pipeline that also has incremental
        // ones, which an ordinary run exports: only the tables the shards ran are judged (below), and a
        // pipeline with no table a shard can run is refused here.
        let shardable = configuration.tables.filter { $0.incremental == nil }
        if let refusal = ShardRun.refusal(configuration, tables: shardable.isEmpty ? configuration.tables : []) {
            return fail(refusal.description, code: refusal.exitCode, streams: streams)
        }
        guard let digest = pipelineDigest(options.pipeline, streams: streams) else { return NowETLExitCode.failed }
        let logger = RunLogger(
            format: options.logFormat, minimumLevel: options.logLevel, secrets: configuration.secretValues,
            console: streams.standardError)
        guard let base = makeShardRunner(configuration, makeTableRunner: makeTableRunner, logger: logger) else {
            return NowETLExitCode.failed
        }
        let directory = configuration.outputDirectory
        let first: ShardSet
        do {
            first = try ShardSet.load(outputDirectory: directory, pipelineSHA256: digest, runKey: options.runKey)
        } catch {
            return fail(logger.redact(error.description), code: error.exitCode, streams: streams)
        }
        if let refusal = ShardRun.refusal(
            configuration, tables: configuration.tables.filter { first.tables.contains($0.table) })
        {
            return fail(refusal.description, code: refusal.exitCode, streams: streams)
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
                return fail(
                    logger.redact("shard \(index) is still running: \(error.description)"), code: error.exitCode,
                    streams: streams)
            }
        }
        let outputLock: OutputDirectoryLock
        do {
            outputLock = try OutputDirectoryLock.acquire(
                directory: directory, runID: first.runID, started: started,
                pipeline: OutputDirectoryLock.pipelineIdentity(of: options.pipeline),
                directoryMode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        } catch {
            return fail(logger.redact(error.description), code: error.exitCode, streams: streams)
        }
        defer { outputLock.release() }
        do {
            if let record = try RunCommit.recover(outputDirectory: directory) {
                logger.warning(
                    "completed the commit of a run that was interrupted while committing",
                    [("run_id", record.runID), ("files", record.files.count)])
                // This very merge, killed while committing: now complete (and its shard state gone).
                if record.runID == first.runID {
                    logger.info("merge finished: its interrupted commit is complete", [("run_id", record.runID)])
                    return NowETLExitCode.ok
                }
            }
        } catch {
            return fail(
                logger.redact("cannot complete an interrupted commit: \(error)"), code: NowETLExitCode.failed,
                streams: streams)
        }
        // Read again under the locks (a shard may have finished in between); a rolled-forward merge has
        // removed them, and there is nothing left to merge.
        let shards: ShardSet
        do {
            shards = try ShardSet.load(outputDirectory: directory, pipelineSHA256: digest, runKey: options.runKey)
        } catch {
            return fail(logger.redact(error.description), code: error.exitCode, streams: streams)
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
            return fail(
                logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
        }
        logger.info(
            "merging shards",
            [
                ("shards", shards.manifests.count), ("run_id", shards.runID),
                ("tables", shards.tables.joined(separator: ",")),
            ])
        let result = await runStoppable({ await pipelineRun.run() }, logger: logger, stopSignals: stopSignals)
        return report(result, summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }

    /// SHA-256 of the pipeline file's bytes, or `nil` (after an error line) when it cannot be read.
    private static func pipelineDigest(_ path: String, streams: CommandStreams) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            _ = fail("cannot read the pipeline file \(path)", code: NowETLExitCode.failed, streams: streams)
            return nil
        }
        return SHA256.hash(Array(data)).hexString
    }

    /// The instance's ``TableRunner`` from `makeTableRunner`, or `nil` after an error line.
    private static func makeShardRunner(
        _ configuration: PipelineConfiguration, makeTableRunner: TableRunnerFactory, logger: RunLogger
    ) -> TableRunner? {
        do {
            if let runner = try makeTableRunner(configuration) as? TableRunner { return runner }
            logger.error("shards need the instance's table runner")
        } catch {
            logger.error(logger.redact(String(describing: error)))
        }
        return nil
    }

    /// Runs `body` in a task the first stop signal cancels; the exit code is then 130 or 143.
    private static func runStoppable(
        _ body: @escaping @Sendable () async -> PipelineRunResult, logger: RunLogger, stopSignals: StopSignals?
    ) async -> PipelineRunResult {
        let task = Task { await body() }
        stopSignals?.onStop { signal in
            logger.warning("stop requested: cancelling", [("signal", StopSignals.name(of: signal))])
            task.cancel()
        }
        var result = await task.value
        if let signal = stopSignals?.received, result.manifestPath == nil || result.exitCode != NowETLExitCode.ok {
            result.exitCode = signal == SIGINT ? NowETLExitCode.interrupted : NowETLExitCode.terminated
        }
        return result
    }

    /// Prints the summary (and writes `--summary-json`); returns the exit code.
    static func report(
        _ result: PipelineRunResult, summaryJSON: String?, logger: RunLogger, streams: CommandStreams
    ) -> Int32 {
        streams.standardOutput(RunSummaryTable.render(result))
        var exitCode = result.exitCode
        if let path = summaryJSON {
            do {
                try RunReport(result, logWritesDropped: streams.droppedWrites()).write(toFile: path)
                logger.info("summary written", [("path", path)])
            } catch {
                logger.error("cannot write the summary JSON", [("path", path), ("error", "\(error)")])
                if exitCode == NowETLExitCode.ok { exitCode = NowETLExitCode.failed }
            }
        }
        return exitCode
    }
}
