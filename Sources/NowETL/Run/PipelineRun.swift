import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a pipeline: the selected tables in their ``TableOrder`` (pipeline order unless the run is
/// given another) through a ``TableRunning``, then the manifest, the outcome of every table and the
/// exit code.
///
/// It loads nothing and parses nothing: the command gives it a checked configuration, the runner,
/// the run's identity and where to log. So the whole flow — table selection, the stop rule, the
/// manifest, exit codes — runs in tests with a fake runner.
///
/// Rules:
/// * **Stop at the first failed table** (the default): later tables are not started (``TableOutcome/Status/notRun``),
///   so a broken night does not hammer the instance for hours. ``continueAfterFailure`` (`--keep-going`)
///   runs them anyway; the exit code is still the first failure's.
/// * **A run commits as one unit.** Tables are extracted and their outputs prepared (staged beside
///   their targets) one after another; nothing visible changes until the end. Then, when every table
///   succeeded — or with `--keep-going`, for the tables that did — the run commits in two phases: a
///   commit record listing every staged file and the new manifest is written (``RunCommit``), then the
///   files are renamed into place, the manifest last, and the committed tables' journals removed. A
///   crash after the record is rolled forward by the next start, one before it rolled back, so the
///   output_dir holds the whole previous run or the whole new one.
/// * **Otherwise nothing is committed**: a failed table (without `--keep-going`) or a stop leaves the
///   previous files and manifest as they were; the tables that did succeed are ``TableOutcome/Status/notCommitted``
///   and their journals let the next run reuse what they fetched.
/// * **The manifest matches the files.** A full run's manifest lists its files; a `--keep-going`
///   commit with failed tables lists the committed tables' new files and carries the previous
///   manifest's entries of the others (whose files were left in place), naming the failed tables in
///   `failed_tables`.
/// * **Exit code**: the first failed table's (``NowETLExitCode/code(for:)``: the error's
///   ``ExitCodeProviding/exitCode``, or 1); else 2 when a table rejected more than its `reject.max`;
///   else 0. A commit that fails is 1.
public struct PipelineRun: Sendable {
    /// The pipeline.
    public let configuration: PipelineConfiguration
    /// The tables to run, in the order given to ``init(configuration:runner:runID:runStarted:tableFilter:order:logger:progress:continueAfterFailure:now:)``
    /// (pipeline order by default).
    public let tables: [TableConfiguration]
    /// Exports one table.
    public let runner: any TableRunning
    /// The run's identifier (`{run_id}`, the manifest's `run_id`).
    public let runID: String
    /// When the run started (`{run_date}`, the XML `unload_date`).
    public let runStarted: Date
    /// Where log lines go.
    public var logger: RunLogger
    /// Shows progress, when set.
    public var progress: ProgressReporter?
    /// Whether to run the remaining tables after one failed (default `false`: stop).
    public var continueAfterFailure: Bool
    /// The clock that times tables the runner could not time (failures) and the whole run.
    public var now: @Sendable () -> Date
    /// Whether to discard the run journal (`--restart`) instead of resuming from it.
    public var restart: Bool = false
    /// Whether incremental tables read everything again (`--full-refresh`) instead of what changed
    /// since their saved state.
    public var fullRefresh: Bool = false
    /// Whether database outputs prune this run whatever their `prune:` (`--prune`).
    public var prune: Bool = false
    /// How the run ends once its tables are prepared: the only difference between a run (and a merge)
    /// and a shard of a sharded run.
    var finish: Finish = .commit

    /// How a run ends once its tables are prepared.
    enum Finish: Sendable {
        /// Commit the prepared tables (commit record, renames, manifest last; see the type's rules).
        case commit
        /// A shard (`--shard I/N`, ``ShardExtraction``): nothing in `output_dir` changes; the shard's
        /// manifest — this one, with the tables its runner extracted — is written at `path`, its old one
        /// removed first so a shard that dies leaves none. Rejects over `reject.max` are the merge's to
        /// judge, over all shards.
        case shardManifest(ShardManifest, path: String)
    }

    /// Prepares a run.
    ///
    /// - Parameters:
    ///   - tableFilter: `--table` names; empty for every table.
    ///   - order: The order to run the selected tables in (``tableOrder(for:tables:runner:)``); `nil`
    ///     for pipeline order. A selected table it does not name runs after those it does, in pipeline
    ///     order.
    /// - Throws: ``NowETLError`` (``NowETLError/Code/usage``, exit 64) when a name is not a table of the pipeline.
    public init(
        configuration: PipelineConfiguration, runner: any TableRunning, runID: String, runStarted: Date,
        tableFilter: [String] = [], order: TableOrder? = nil, logger: RunLogger, progress: ProgressReporter? = nil,
        continueAfterFailure: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(NowETLError) {
        self.configuration = configuration
        let selected = try Self.selectTables(tableFilter, from: configuration)
        if let order {
            let ordered = order.tables.compactMap { name in selected.first { $0.table == name } }
            self.tables = ordered + selected.filter { table in !ordered.contains { $0.table == table.table } }
        } else {
            self.tables = selected
        }
        self.runner = runner
        self.runID = runID
        self.runStarted = runStarted
        self.logger = logger
        self.progress = progress
        self.continueAfterFailure = continueAfterFailure
        self.now = now
    }

    /// The tables `names` selects, in pipeline order; every table for no names.
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/usage``, exit 64) naming the first unknown name and listing the tables.
    public static func selectTables(_ names: [String], from configuration: PipelineConfiguration)
        throws(NowETLError) -> [TableConfiguration]
    {
        guard !names.isEmpty else { return configuration.tables }
        let known = configuration.tables.map(\.table)
        for name in names where !known.contains(name) {
            throw NowETLError(
                .usage,
                "--table \(name): the pipeline has no table '\(name)'; its tables are \(known.joined(separator: ", "))")
        }
        return configuration.tables.filter { names.contains($0.table) }
    }

    /// Runs the selected tables, commits them (or not) and says how it went; never throws (every
    /// failure is an outcome and an exit code, and is logged).
    public func run() async -> PipelineRunResult {
        let started = now()
        if case .shardManifest(_, let path) = finish, unlink(path) != 0 && errno != ENOENT {
            let message = "cannot remove the shard's previous manifest \(path)"
            logger.error(message)
            return PipelineRunResult(
                runID: runID, runStarted: runStarted, seconds: now().timeIntervalSince(started),
                tables: tables.map { TableOutcome(table: $0.table, status: .notRun) }, manifestPath: nil,
                runError: message, exitCode: NowETLExitCode.failed)
        }
        let filesDirectory: String
        do {
            filesDirectory = try self.filesDirectory()
        } catch {
            let message = logger.redact(NowETLError.text(of: error, after: "cannot create the run's directory"))
            logger.error(message)
            return PipelineRunResult(
                runID: runID, runStarted: runStarted, seconds: now().timeIntervalSince(started),
                tables: tables.map { TableOutcome(table: $0.table, status: .notRun) }, manifestPath: nil,
                runError: message, exitCode: NowETLExitCode.failed)
        }
        var state = IncrementalState()
        if tables.contains(where: { $0.incremental != nil }) {
            do {
                state = try IncrementalState.read(outputDirectory: configuration.outputDirectory)
            } catch {
                let message = logger.redact(error.description)
                logger.error(message)
                return PipelineRunResult(
                    runID: runID, runStarted: runStarted, seconds: now().timeIntervalSince(started),
                    tables: tables.map { TableOutcome(table: $0.table, status: .notRun) }, manifestPath: nil,
                    runError: message, exitCode: error.exitCode)
            }
        }
        // A database stays in output_dir in publish mode too: it is one database for every run; an instance
        // output keeps its progress record in output_dir's run journal.
        let specs = configuration.outputs.map {
            $0.fileSinkSpec(
                outputDirectory: $0.writesFiles ? filesDirectory : configuration.outputDirectory,
                fileMode: configuration.fileMode)
        }
        logger.info(
            "run started",
            [
                ("run_id", runID), ("tables", tables.map(\.table).joined(separator: ",")),
                ("outputs", specs.count), ("output_dir", filesDirectory),
            ])
        var outcomes: [TableOutcome] = []
        var prepared: [(index: Int, table: PreparedTable)] = []
        var stopped = false
        for table in tables {
            if stopped {
                outcomes.append(TableOutcome(table: table.table, status: .notRun))
                continue
            }
            let (outcome, preparedTable) = await run(table, specs: specs, saved: state.tables[table.table])
            if let preparedTable { prepared.append((outcomes.count, preparedTable)) }
            outcomes.append(outcome)
            if outcome.status == .failed, !continueAfterFailure { stopped = true }
        }

        if case .shardManifest(let manifest, let path) = finish {
            return finishShard(
                manifest, path: path, outcomes: outcomes, prepared: prepared.map(\.table), started: started)
        }
        var exitCode = Self.exitCode(of: outcomes)
        var manifestPath: String?
        var runError: String?
        let failed = outcomes.filter { $0.status == .failed }.map(\.table)
        let stoppedBySignal = Task.isCancelled
        if stoppedBySignal || (!failed.isEmpty && !continueAfterFailure) {
            for (index, table) in prepared {
                await table.abort()
                outcomes[index].status = .notCommitted
                outcomes[index].summary?.files = []
                outcomes[index].summary?.databaseTables = []
            }
            logger.warning(
                "nothing committed: the previous files and manifest are untouched; the next run reuses what was fetched",
                [("reason", stoppedBySignal ? "stopped" : "table \(failed.joined(separator: ",")) failed")])
        } else if prepared.isEmpty && !failed.isEmpty {
            logger.warning("nothing committed: no table succeeded; the previous files and manifest are untouched")
        } else {
            do {
                manifestPath = try await commit(prepared.map(\.table), failedTables: failed, state: state)
                logger.info(
                    "run committed",
                    [
                        ("tables", prepared.map(\.table.summary.table).joined(separator: ",")),
                        ("files", prepared.reduce(0) { $0 + $1.table.files.count }),
                        ("manifest", manifestPath ?? ""),
                    ])
                for (index, table) in prepared { outcomes[index].summary = table.summary }
                logDatabaseLoads(prepared.map(\.table))
                logInstanceLoads(prepared.map(\.table))
            } catch {
                for (index, _) in prepared {
                    outcomes[index].summary?.files = []
                    outcomes[index].summary?.databaseTables = []
                }
                runError = logger.redact(NowETLError.text(of: error, after: "cannot commit the run"))
                logger.error(runError ?? "cannot commit the run")
                exitCode = NowETLExitCode.failed
            }
        }
        let seconds = now().timeIntervalSince(started)
        let rows = outcomes.reduce(0) { $0 + ($1.summary?.rows ?? 0) }
        logger.info(
            "run finished",
            [
                ("run_id", runID), ("exit_code", exitCode), ("rows", rows),
                ("seconds", LogValue.seconds(seconds)),
            ])
        return PipelineRunResult(
            runID: runID, runStarted: runStarted, seconds: seconds, tables: outcomes, manifestPath: manifestPath,
            runError: runError, exitCode: exitCode)
    }

    /// One line per database table the run loaded (or found already loaded, or recreated).
    private func logDatabaseLoads(_ tables: [PreparedTable]) {
        for load in tables.flatMap(\.databaseTables) {
            var fields: [(String, any LogFieldValue)] = [
                ("table", load.sourceTable), ("database", load.database), ("database_table", load.table),
                ("mode", load.mode.rawValue), ("rows", load.rows), ("deleted", load.deleted),
                ("load_id", load.loadID),
            ]
            if load.pruned > 0 { fields.append(("pruned", load.pruned)) }
            if load.backfilled > 0 { fields.append(("backfilled", load.backfilled)) }
            if let choices = load.choiceLabels { fields.append(("choice_labels", choices)) }
            if load.skipped {
                logger.info("database table already had this load (a rerun after a crash): skipped", fields)
            } else if load.recreated {
                logger.warning(
                    "database table dropped and recreated (on_type_change: recreate): it holds this run's rows only",
                    fields)
            } else {
                logger.info("database table loaded", fields)
            }
        }
    }

    /// One line per table the run wrote into another instance.
    private func logInstanceLoads(_ tables: [PreparedTable]) {
        for load in tables.flatMap({ $0.outputs.flatMap(\.artifacts) }).compactMap(\.instanceTable) {
            logger.info(
                "instance table written",
                [
                    ("table", load.table), ("instance", load.instance), ("mode", load.mode.rawValue),
                    ("inserted", load.inserted), ("updated", load.updated),
                    ("skipped_existing", load.skippedExisting), ("kept", load.kept),
                    ("skipped_unmatched", load.skippedUnmatched), ("deleted", load.deleted),
                    ("deletions_ignored", load.deletionsIgnored),
                    ("already_written", load.alreadyWritten), ("requests", load.requests),
                    ("load_id", load.loadID),
                ])
            for (field, references) in load.unresolved.sorted(by: { $0.key < $1.key }) {
                logger.warning(
                    "unresolved references",
                    [
                        ("table", load.table), ("field", field), ("count", references.count),
                        ("sample", references.sample),
                    ])
            }
        }
    }

    /// Commits `tables` with a manifest of their files (``RunCommit/commit(_:runID:outputDirectory:manifest:published:state:fileMode:)``);
    /// returns the manifest's path.
    private func commit(_ tables: [PreparedTable], failedTables: [String], state: IncrementalState) async throws
        -> String
    {
        let directory = configuration.outputDirectory
        let published = configuration.publish.mode == .directories ? PublishedRuns(outputDirectory: directory) : nil
        var files = tables.flatMap(\.files)
        if !failedTables.isEmpty {
            // The tables not committed keep their previous files: their previous manifest entries stay.
            let committed = Set(tables.map(\.summary.table))
            let previousDirectory = published?.currentLink ?? directory
            let carried = ((try? Manifest.read(fromDirectory: previousDirectory))?.files ?? []).filter {
                !committed.contains($0.table)
            }
            if let published {
                // A published run directory is complete on its own: the previous files are linked in.
                let runDirectory = try published.runDirectory(for: runID)
                for file in carried { try Self.link(file.path, from: previousDirectory, into: runDirectory) }
                files += carried.map { OutputFile($0, directory: runDirectory) }
            } else {
                files += carried.map { OutputFile($0, directory: directory) }
            }
        }
        var manifest = Manifest(runID: runID, runStarted: runStarted, files: files)
        manifest.failedTables = failedTables.isEmpty ? nil : failedTables
        let retention = RunRetention(configuration: configuration)
        let previous = retention?.previousManifest()
        // The committed incremental tables' new states; the other tables keep theirs.
        var nextState = state
        for table in tables {
            if let tableState = table.incrementalState { nextState.tables[table.summary.table] = tableState }
        }
        let path = try await RunCommit.commit(
            tables, runID: runID, outputDirectory: directory, manifest: manifest, published: published,
            state: nextState == state ? nil : nextState, fileMode: configuration.fileMode)
        retention?.apply(committed: manifest, runStarted: runStarted, previous: previous, logger: logger)
        if let published {
            do {
                for removed in try published.pruneOldRuns(keep: configuration.publish.keep) {
                    logger.info("removed an old published run", [("path", removed)])
                }
            } catch {
                logger.warning(
                    "cannot remove old published runs", [("error", logger.redact(NowETLError.text(of: error)))])
            }
        }
        return path
    }

    /// The shard's finish: its manifest lists what the prepared tables extracted, `failed` with the
    /// failed table's error (the merge refuses it, naming the shard); a stopped shard is not complete and
    /// leaves no manifest (the merge reports it missing). Exit code: the failed table's, 1 when the manifest cannot be
    /// written, else 0.
    private func finishShard(
        _ template: ShardManifest, path: String, outcomes: [TableOutcome], prepared: [PreparedTable], started: Date
    ) -> PipelineRunResult {
        var manifest = template
        manifest.tables = prepared.compactMap(\.shardEntry)
        var exitCode = Self.exitCode(of: outcomes)
        var manifestPath: String?
        var runError: String?
        if let failed = outcomes.first(where: { $0.status == .failed }) {
            manifest.status = .failed
            manifest.error = "table \(failed.table): \(failed.error ?? "failed")"
        }
        if Task.isCancelled {
            // Stopped (a table cut short reads as failed): not a shard's result, so no manifest at all.
            logger.warning("shard stopped: no manifest written; the next run resumes from its journals")
            exitCode = NowETLExitCode.failed
        } else {
            do {
                try manifest.write(to: path)
                manifestPath = path
                logger.info(
                    manifest.status == .ok
                        ? "shard finished: merge when every shard has" : "shard failed: run it again",
                    [("shard", "\(manifest.index)/\(manifest.count)"), ("manifest", path), ("exit_code", exitCode)])
            } catch {
                runError = logger.redact(NowETLError.text(of: error, after: "cannot write the shard manifest \(path)"))
                logger.error(runError ?? "cannot write the shard manifest")
                exitCode = NowETLExitCode.failed
            }
        }
        return PipelineRunResult(
            runID: runID, runStarted: runStarted, seconds: now().timeIntervalSince(started), tables: outcomes,
            manifestPath: manifestPath, runError: runError, exitCode: exitCode)
    }

    /// Where this run's files go: `output_dir`, or in publish mode `output_dir/runs/<run_id>` (created).
    private func filesDirectory() throws -> String {
        // A shard writes no file of the run: its journals are under output_dir.
        if case .shardManifest = finish { return configuration.outputDirectory }
        guard configuration.publish.mode == .directories else { return configuration.outputDirectory }
        let directory = try PublishedRuns(outputDirectory: configuration.outputDirectory).runDirectory(for: runID)
        try OwnFiles.makeDirectories(directory, mode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        return directory
    }

    /// Hard-links (or copies, across file systems) `path` of `source` into `target`.
    private static func link(_ path: String, from source: String, into target: String) throws {
        let from = source + "/" + path
        let to = target + "/" + path
        try FileManager.default.createDirectory(
            atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if Glibc.link(from, to) == 0 || errno == EEXIST { return }
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    /// The exit code of a run with these outcomes, before the manifest (see the type's rules).
    public static func exitCode(of outcomes: [TableOutcome]) -> Int32 {
        if let failed = outcomes.first(where: { $0.status == .failed }) {
            return failed.exitCode ?? NowETLExitCode.failed
        }
        if outcomes.contains(where: { $0.status == .rejectsOverThreshold }) {
            return NowETLExitCode.rejectsOverThreshold
        }
        return NowETLExitCode.ok
    }

    /// Whether `summary` rejected more records than `table`'s `reject.max` allows.
    public static func rejectsOverThreshold(_ summary: TableSummary, table: TableConfiguration) -> Bool {
        guard let maximum = table.reject.maximum else { return false }
        return summary.rejects > maximum
    }

    /// The sinks' context of table `name` in this run.
    private func context(for name: String) -> SinkContext {
        var context = SinkContext(table: name, runID: runID, runStarted: runStarted)
        context.forcePrune = prune
        if let progress { context.outputProgress = OutputProgress.Report { progress.handle(.output(table: name, $0)) } }
        return context
    }

    private func run(_ table: TableConfiguration, specs: [FileSinkSpec], saved: IncrementalTableState?) async -> (
        TableOutcome, PreparedTable?
    ) {
        let name = table.table
        let started = now()
        if Task.isCancelled {
            logger.error("table failed", [("table", name), ("exit_code", 1), ("error", "cancelled")])
            return (
                TableOutcome(table: name, status: .failed, error: "cancelled", exitCode: NowETLExitCode.failed), nil
            )
        }
        logger.info("table started", [("table", name)])
        if let saved, table.incremental != nil, !fullRefresh, saved.filter != table.filter {
            logger.warning(
                "the table's filter changed since its incremental state was kept: records that match only the new "
                    + "filter are read when they next change; run once with --full-refresh to read them all now",
                [("table", name), ("kept_filter", saved.filter), ("filter", table.filter)])
        }
        progress?.begin(table: name)
        let progress = self.progress
        let logger = self.logger
        do {
            let prepared = try await runner.run(
                table, outputs: specs, context: context(for: name),
                restart: restart,
                incremental: table.incremental.map { _ in
                    IncrementalRequest(saved: saved, fullRefresh: fullRefresh, runStarted: runStarted)
                },
                progress: { event in
                    switch event {
                    case .journal(let table, let state): Self.log(state, table: table, logger: logger)
                    case .transport(let table, let transportEvent): logger.log(transportEvent, table: table)
                    case .window(let table, let window, let deletes):
                        var fields = [
                            ("table", table), ("cursor", window.field), ("lower", window.lowerDescription),
                            ("signpost", window.signpost),
                        ]
                        if let deletes { fields.append(("deletions", deletes.lowerDescription)) }
                        logger.info("incremental window", fields)
                    case .clockSkew(let table, let seconds):
                        logger.warning(
                            "nowetl's clock differs from the instance's (by its Date header); the signpost follows "
                                + "the earlier one: keep both in sync (NTP)",
                            [("table", table), ("ahead_seconds", seconds)])
                    default: break
                    }
                    progress?.handle(event)
                })
            let summary = prepared.summary
            progress?.end()
            // A shard extracts a share of the table: its rejects are judged by the merge, over all shards.
            let over: Bool
            if case .commit = finish { over = Self.rejectsOverThreshold(summary, table: table) } else { over = false }
            var fields: [(String, any LogFieldValue)] = [("table", name), ("rows", summary.rows)]
            fields += summary.counts.logFields
            fields.append(("rejects", summary.rejects))
            if let count = summary.sourceCount { fields.append(("source_count", count)) }
            if let lowest = summary.lowestConcurrency { fields.append(("lowest_concurrency", lowest)) }
            if summary.hiddenRows > 0 { fields.append(("hidden_rows", summary.hiddenRows)) }
            if table.incremental?.deletes == true { fields.append(("deleted", summary.deleted)) }
            fields += [
                ("seconds", LogValue.seconds(summary.seconds)), ("files", summary.files.count),
            ]
            logger.info("table finished", fields)
            if let count = summary.sourceCount, count != summary.rows - summary.deleted + summary.hiddenRows {
                logger.warning(
                    "rows differ from the instance's count (records changed during the export, or rejects)",
                    [
                        ("table", name), ("rows", summary.rows - summary.deleted),
                        ("hidden_rows", summary.hiddenRows), ("source_count", count),
                    ])
            }
            if over {
                logger.warning(
                    "rejects over the threshold",
                    [("table", name), ("rejects", summary.rejects), ("max", table.reject.maximum ?? 0)])
                if prepared.incrementalState != nil {
                    // Not past a failure: the next run reads this window again (the rows it delivers twice
                    // are harmless, the last write wins), so the rejected records get another chance.
                    prepared.incrementalState = nil
                    logger.warning(
                        "incremental state kept: the table is over its reject threshold, so the next run reads "
                            + "this run's window again", [("table", name)])
                }
            }
            let outcome = TableOutcome(
                table: name, status: over ? .rejectsOverThreshold : .ok, summary: summary, seconds: summary.seconds)
            return (outcome, prepared)
        } catch {
            progress?.end()
            let code = NowETLExitCode.code(for: error)
            let message = logger.redact(NowETLError.text(of: error))
            if let url = NowETLError.requestURL(in: error) {
                logger.debug("the failed request", [("table", name), ("url", url)])
            }
            logger.error("table failed", [("table", name), ("exit_code", code), ("error", message)])
            return (
                TableOutcome(
                    table: name, status: .failed, error: message, exitCode: code,
                    errorKind: RunFailure.kind(of: error), seconds: now().timeIntervalSince(started)), nil
            )
        }
    }

    private static func log(_ state: ResumeState, table: String, logger: RunLogger) {
        switch state {
        case .fresh:
            break
        case .resumed(let pages, let rows, let restarted):
            // A journal that holds nothing yet (killed before the first page) is a fresh start.
            guard pages > 0 || restarted > 0 else { return }
            logger.info(
                "resuming from the run journal",
                [
                    ("table", table), ("pages", pages), ("rows", rows),
                    ("parts_refetched", restarted),
                ])
        case .discarded(let reason):
            logger.warning("run journal discarded; the table starts over", [("table", table), ("reason", reason)])
        }
    }
}
