import Foundation

/// One run of a pipeline: the selected tables in pipeline order through a ``TableRunning``, then the
/// manifest, the outcome of every table and the exit code.
///
/// It loads nothing and parses nothing: the command gives it a checked configuration, the runner,
/// the run's identity and where to log. So the whole flow — table selection, the stop rule, the
/// manifest, exit codes — runs in tests with a fake runner.
///
/// Rules:
/// * **Stop at the first failed table** (the default): later tables are not started (``TableOutcome/Status/notRun``),
///   so a broken night does not hammer the instance for hours. ``continueAfterFailure`` (`--keep-going`)
///   runs them anyway; the exit code is still the first failure's.
/// * **The manifest is written once, last, atomically, and only when every selected table ran**
///   (exit 0 or 2). A failed run leaves the previous `manifest.json` as it was, so a consumer that
///   finds a manifest with the expected `run_id` knows the run completed; files of tables that did
///   commit in a failed run are listed in the summary (and `--summary-json`) only.
/// * **Exit code**: the first failed table's (``NowETLExitCode/code(for:)``: the error's
///   ``ExitCodeProviding/exitCode``, or 1); else 2 when a table rejected more than its `reject.max`;
///   else 0. A manifest that cannot be written is 1.
public struct PipelineRun: Sendable {
    /// The pipeline.
    public let configuration: PipelineConfiguration
    /// The tables to run, in pipeline order.
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

    /// Prepares a run.
    ///
    /// - Parameters:
    ///   - tableFilter: `--table` names; empty for every table. The run keeps the pipeline's order.
    /// - Throws: ``PipelineRunError`` (exit 64) when a name is not a table of the pipeline.
    public init(
        configuration: PipelineConfiguration, runner: any TableRunning, runID: String, runStarted: Date,
        tableFilter: [String] = [], logger: RunLogger, progress: ProgressReporter? = nil,
        continueAfterFailure: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(PipelineRunError) {
        self.configuration = configuration
        self.tables = try Self.selectTables(tableFilter, from: configuration)
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
    /// - Throws: ``PipelineRunError`` (exit 64) naming the first unknown name and listing the tables.
    public static func selectTables(_ names: [String], from configuration: PipelineConfiguration)
        throws(PipelineRunError) -> [TableConfiguration]
    {
        guard !names.isEmpty else { return configuration.tables }
        let known = configuration.tables.map(\.table)
        for name in names where !known.contains(name) {
            throw PipelineRunError(
                "--table \(name): the pipeline has no table '\(name)'; its tables are \(known.joined(separator: ", "))")
        }
        return configuration.tables.filter { names.contains($0.table) }
    }

    /// Runs the selected tables, writes the manifest and says how it went; never throws (every failure
    /// is an outcome and an exit code, and is logged).
    public func run() async -> PipelineRunResult {
        let started = now()
        let specs = configuration.outputs.map { $0.fileSinkSpec(outputDirectory: configuration.outputDirectory) }
        logger.info(
            "run started",
            [
                ("run_id", runID), ("tables", tables.map(\.table).joined(separator: ",")),
                ("outputs", String(specs.count)), ("output_dir", configuration.outputDirectory),
            ])
        var outcomes: [TableOutcome] = []
        var stopped = false
        for table in tables {
            if stopped {
                outcomes.append(TableOutcome(table: table.table, status: .notRun))
                continue
            }
            let outcome = await run(table, specs: specs)
            outcomes.append(outcome)
            if outcome.status == .failed, !continueAfterFailure { stopped = true }
        }

        var exitCode = Self.exitCode(of: outcomes)
        var manifestPath: String?
        var runError: String?
        if outcomes.contains(where: { $0.status == .failed }) {
            logger.warning("manifest not written: the run failed; the previous manifest is untouched")
        } else {
            let manifest = Manifest(
                runID: runID, runStarted: runStarted, files: outcomes.flatMap { $0.summary?.files ?? [] })
            do {
                manifestPath = try manifest.write(toDirectory: configuration.outputDirectory)
                logger.info("manifest written", [("path", manifestPath!), ("files", String(manifest.files.count))])
            } catch {
                runError = logger.redact("cannot write the manifest: \(error)")
                logger.error(runError!)
                exitCode = NowETLExitCode.failed
            }
        }
        let seconds = now().timeIntervalSince(started)
        let rows = outcomes.reduce(0) { $0 + ($1.summary?.rows ?? 0) }
        logger.info(
            "run finished",
            [
                ("run_id", runID), ("exit_code", String(exitCode)), ("rows", String(rows)),
                ("seconds", RunSummaryTable.seconds(seconds)),
            ])
        return PipelineRunResult(
            runID: runID, runStarted: runStarted, seconds: seconds, tables: outcomes, manifestPath: manifestPath,
            runError: runError, exitCode: exitCode)
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

    private func run(_ table: TableConfiguration, specs: [FileSinkSpec]) async -> TableOutcome {
        let name = table.table
        let started = now()
        if Task.isCancelled {
            logger.error("table failed", [("table", name), ("exit_code", "1"), ("error", "cancelled")])
            return TableOutcome(table: name, status: .failed, error: "cancelled", exitCode: NowETLExitCode.failed)
        }
        logger.info("table started", [("table", name)])
        progress?.begin(table: name)
        let progress = self.progress
        do {
            let summary = try await runner.run(
                table, outputs: specs, context: SinkContext(table: name, runID: runID, runStarted: runStarted),
                progress: { event in progress?.handle(event) })
            progress?.end()
            let over = Self.rejectsOverThreshold(summary, table: table)
            var fields: [(String, String)] = [
                ("table", name), ("rows", String(summary.rows)), ("pages", String(summary.pages)),
                ("requests", String(summary.requests)), ("retries", String(summary.retries)),
                ("rejects", String(summary.rejects)),
            ]
            if let count = summary.sourceCount { fields.append(("source_count", String(count))) }
            fields += [("seconds", RunSummaryTable.seconds(summary.seconds)), ("files", String(summary.files.count))]
            logger.info("table finished", fields)
            if let count = summary.sourceCount, count != summary.rows {
                logger.warning(
                    "rows differ from the instance's count (records changed during the export, or rejects)",
                    [("table", name), ("rows", String(summary.rows)), ("source_count", String(count))])
            }
            if over {
                logger.warning(
                    "rejects over the threshold",
                    [("table", name), ("rejects", String(summary.rejects)), ("max", String(table.reject.maximum ?? 0))])
            }
            return TableOutcome(
                table: name, status: over ? .rejectsOverThreshold : .ok, summary: summary, seconds: summary.seconds)
        } catch {
            progress?.end()
            let code = NowETLExitCode.code(for: error)
            let message = logger.redact(String(describing: error))
            logger.error("table failed", [("table", name), ("exit_code", String(code)), ("error", message)])
            return TableOutcome(
                table: name, status: .failed, error: message, exitCode: code,
                seconds: now().timeIntervalSince(started))
        }
    }
}
