import Foundation

/// One shard of a sharded run (`nowetl run PIPELINE --shard I/N`): the shard's key range of every
/// selected table extracted into the shard's run journals, then the shard's manifest
/// (``ShardManifest``). Nothing in `output_dir` changes: `nowetl merge` publishes.
///
/// Rules:
/// * The shard's old manifest is removed first, so a shard that dies leaves none and the merge reports it
///   missing instead of merging an older extraction.
/// * Tables run in pipeline order; the first failed table stops the shard, and the manifest says
///   ``ShardManifest/Status/failed`` with the error (the merge refuses it, naming the shard).
/// * A rerun resumes from the shard's journals (a finished table fetches nothing again); `restart`
///   (`--restart`) discards them. So rerunning a shard is idempotent.
/// * Exit code: the failed table's (``NowETLExitCode/code(for:)``), 1 when the manifest cannot be
///   written, else 0. Rejects over `reject.max` are judged by the merge, over all shards.
struct ShardRun: Sendable {
    var configuration: PipelineConfiguration
    var runner: TableRunner
    var shard: Shard
    /// SHA-256 of the pipeline file's bytes.
    var pipelineSHA256: String
    var tables: [TableConfiguration]
    var runID: String
    var runStarted: Date
    /// `--run-key`: recorded in the manifest; the shard's journals resume only under the same key.
    var runKey: String?
    var logger: RunLogger
    var progress: ProgressReporter?
    var restart = false
    var now: @Sendable () -> Date = { Date() }

    /// Why `tables` of `configuration` cannot be sharded, or `nil`.
    ///
    /// Incremental tables cannot: their window's signpost is the run's start, and shards start at
    /// different times, so their windows would not fit together into one state. Instance outputs
    /// cannot: a migration writes record by record and keeps its own progress record. Both exit 78.
    static func refusal(_ configuration: PipelineConfiguration, tables: [TableConfiguration]) -> NowETLError? {
        if let table = tables.first(where: { $0.incremental != nil }) {
            return .shardsMismatch(
                "table \(table.table) is incremental (mode: incremental): shards export full tables only; run it "
                    + "without --shard (select the full tables of a sharded run with --table)")
        }
        if configuration.outputs.contains(where: \.isInstance) {
            return .shardsMismatch(
                "the pipeline has an instance output: shards and merge support file and database outputs only; "
                    + "run it without --shard")
        }
        return nil
    }

    /// Extracts the tables and writes the manifest; never throws (failures are outcomes and exit codes).
    func run() async -> PipelineRunResult {
        let started = now()
        let outputDirectory = configuration.outputDirectory
        let manifestPath = ShardLayout.manifestPath(outputDirectory: outputDirectory, index: shard.index)
        var manifest = ShardManifest(
            pipelineSHA256: pipelineSHA256, index: shard.index, count: shard.count, runID: runID,
            runStarted: RunTimestamp(runStarted), runKey: runKey, status: .ok, tables: [])
        func result(_ outcomes: [TableOutcome], code: Int32, error: String? = nil, path: String? = nil)
            -> PipelineRunResult
        {
            PipelineRunResult(
                runID: runID, runStarted: runStarted, seconds: now().timeIntervalSince(started), tables: outcomes,
                manifestPath: path, runError: error, exitCode: code)
        }
        if unlink(manifestPath) != 0 && errno != ENOENT {
            let message = "cannot remove the shard's previous manifest \(manifestPath)"
            logger.error(message)
            return result(
                tables.map { TableOutcome(table: $0.table, status: .notRun) }, code: NowETLExitCode.failed,
                error: message)
        }
        let specs = configuration.outputs.map {
            $0.fileSinkSpec(outputDirectory: outputDirectory, fileMode: configuration.fileMode)
        }
        logger.info(
            "shard started",
            [
                ("run_id", runID), ("shard", shard.description), ("tables", tables.map(\.table).joined(separator: ",")),
                ("output_dir", outputDirectory),
            ])
        var outcomes: [TableOutcome] = []
        var exitCode = NowETLExitCode.ok
        for table in tables {
            if manifest.status == .failed || Task.isCancelled {
                outcomes.append(TableOutcome(table: table.table, status: .notRun))
                continue
            }
            let name = table.table
            let tableStarted = now()
            logger.info("table started", [("table", name), ("shard", shard.description)])
            progress?.begin(table: name)
            let progress = self.progress
            let logger = self.logger
            do {
                let entry = try await runner.extractShard(
                    table, outputs: specs, shard: shard, runKey: runKey, restart: restart,
                    progress: { event in
                        if case .transport(let table, let transportEvent) = event {
                            logger.log(transportEvent, table: table)
                        }
                        progress?.handle(event)
                    })
                progress?.end()
                manifest.tables.append(entry)
                var summary = entry.summary
                summary.concurrency = configuration.source.concurrency
                logger.info(
                    "table extracted",
                    [
                        ("table", name), ("shard", shard.description), ("rows", summary.rows),
                        ("pages", summary.pages), ("parts", entry.parts.count),
                        ("seconds", LogValue.seconds(summary.seconds)),
                    ])
                outcomes.append(TableOutcome(table: name, status: .ok, summary: summary, seconds: summary.seconds))
            } catch {
                progress?.end()
                let code = Task.isCancelled ? NowETLExitCode.failed : NowETLExitCode.code(for: error)
                let message = logger.redact(NowETLError.text(of: error))
                logger.error(
                    "table failed",
                    [("table", name), ("shard", shard.description), ("exit_code", code), ("error", message)])
                manifest.status = .failed
                manifest.error = "table \(name): \(message)"
                exitCode = code
                outcomes.append(
                    TableOutcome(
                        table: name, status: .failed, error: message, exitCode: code,
                        seconds: now().timeIntervalSince(tableStarted)))
            }
        }
        if Task.isCancelled && manifest.status == .ok {
            // Stopped between tables: the shard is not complete, so it leaves no manifest to merge.
            logger.warning("shard stopped: no manifest written; the next run resumes from its journals")
            return result(outcomes, code: NowETLExitCode.failed)
        }
        do {
            try manifest.write(to: manifestPath)
        } catch {
            let message = logger.redact(
                NowETLError.text(of: error, after: "cannot write the shard manifest \(manifestPath)"))
            logger.error(message)
            return result(outcomes, code: NowETLExitCode.failed, error: message)
        }
        logger.info(
            manifest.status == .ok ? "shard finished: merge when every shard has" : "shard failed: run it again",
            [("shard", shard.description), ("manifest", manifestPath), ("exit_code", exitCode)])
        return result(outcomes, code: exitCode, path: manifestPath)
    }
}
