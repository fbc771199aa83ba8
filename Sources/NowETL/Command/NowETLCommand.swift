import Foundation
import NowData

/// Runs `nowetl` commands; the executable only passes `CommandLine.arguments` and exits with the code.
///
/// The flow of every command is here, so tests run it in-process with captured streams, their own
/// environment and a fake extractor (``TableRunnerFactory``).
public enum NowETLCommand {
    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    ///
    /// - Parameters:
    ///   - environment: The variables for `${VAR}` in pipeline files.
    ///   - streams: Where results, logs and progress go.
    ///   - makeTableRunner: Makes the extractor for `run` (``makeDefaultTableRunner`` in the executable).
    ///   - stopSignals: SIGTERM/SIGINT (``StopSignals/install()`` in the executable): `run` stops cleanly
    ///     on the first one; `nil` for none.
    public static func main(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        streams: CommandStreams = .process(), makeTableRunner: TableRunnerFactory = makeDefaultTableRunner,
        stopSignals: StopSignals? = nil
    ) async -> Int32 {
        let parsed: NowETLArguments
        do {
            parsed = try NowETLArguments.parse(arguments)
        } catch {
            streams.standardError.writeLine(error.text)
            return error.exitCode
        }
        switch parsed {
        case .help:
            streams.standardOutput(NowETLArguments.usage + "\n")
            return NowETLExitCode.ok
        case .commandHelp(let command):
            streams.standardOutput(NowETLArguments.help(for: command) + "\n")
            return NowETLExitCode.ok
        case .version:
            streams.standardOutput("nowetl \(nowetlVersion)\n")
            return NowETLExitCode.ok
        case .validate(let pipeline, let online, let overrides):
            return await validate(
                pipeline, online: online, overrides: overrides, environment: environment, streams: streams,
                makeTableRunner: makeTableRunner)
        case .run(let options):
            return await run(
                options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                stopSignals: stopSignals)
        case .preview(let options):
            return await preview(options, environment: environment, streams: streams)
        case .discover(let options):
            return await discover(options, environment: environment, streams: streams)
        case .state(let options):
            return state(options, environment: environment, streams: streams)
        case .reconcile(let options):
            return await reconcile(options, environment: environment, streams: streams)
        case .merge(let options):
            return await merge(
                options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                stopSignals: stopSignals)
        case .initPipeline(let options):
            return await initPipeline(options, environment: environment, streams: streams)
        case .completion(let shell):
            return completion(shell, streams: streams)
        case .manpage:
            return manpage(streams: streams)
        }
    }

    /// `nowetl validate`: exactly the load step of `run`; with `--online` also its name check against the
    /// instance's dictionary (every table) and its table order, still without fetching a page or writing
    /// a file. An order other than the pipeline's is printed after the `ok:` line, with the reasons of a
    /// computed one (`  incident after sys_user (caller_id)`); a pipeline's `order:` offline too.
    private static func validate(
        _ pipeline: String, online: Bool, overrides: PipelineOverrides, environment: [String: String],
        streams: CommandStreams, makeTableRunner: TableRunnerFactory
    ) async -> Int32 {
        guard let located = loadLocated(pipeline, overrides: overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let configuration = located.configuration
        var checked = ""
        var order: TableOrder?
        if online {
            let logger = RunLogger(
                format: .text, minimumLevel: .error, secrets: configuration.secretValues,
                console: streams.standardError)
            let runner: any TableRunning
            do {
                runner = try makeTableRunner(configuration)
            } catch {
                return fail(
                    logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
            }
            if let code = await checkNames(located, runner: runner, tables: [], logger: logger, streams: streams) {
                return code
            }
            checked = "; names checked against the dictionary of \(configuration.source.instance.absoluteString)"
            do {
                order = try await PipelineRun.tableOrder(
                    for: configuration, tables: configuration.tables.map(\.table), runner: runner)
            } catch {
                return fail(
                    logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
            }
        } else if let explicit = configuration.order {
            order = .explicit(explicit, selecting: configuration.tables.map(\.table))
        }
        let tables = configuration.tables.count
        let outputs = configuration.outputs.count
        streams.standardOutput(
            "ok: \(tables) table\(tables == 1 ? "" : "s"), \(outputs) output\(outputs == 1 ? "" : "s")\(checked)\n")
        // The order matters only when it is not the pipeline's: say which, and why.
        if let order, order.basis != .pipeline {
            streams.standardOutput(order.explanation.joined(separator: "\n") + "\n")
        }
        return NowETLExitCode.ok
    }

    /// Checks the names of `tables` (every table for none) against the instance's dictionary
    /// (``TableRunning/checkNames(in:tables:)``) and prints every problem as `file:line:col: error: …`, in file order.
    ///
    /// - Returns: The exit code to stop with — 78 for unknown names, the error's code when the check
    ///   could not run (77 when the user may not read the dictionary) — or `nil` when every name is known.
    static func checkNames(
        _ located: LocatedPipeline, runner: any TableRunning, tables: [String], logger: RunLogger,
        streams: CommandStreams
    ) async -> Int32? {
        let problems: [DictionaryNameProblem]
        do {
            problems = try await runner.checkNames(in: located.configuration, tables: tables)
        } catch {
            return fail(
                logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
        }
        guard !problems.isEmpty else { return nil }
        let errors = problems.map(located.configError(for:)).enumerated().sorted { first, second in
            let (a, b) = (first.element, second.element)
            return (a.line ?? 0, a.column ?? 0, first.offset) < (b.line ?? 0, b.column ?? 0, second.offset)
        }
        for error in errors { streams.standardError.writeLine(error.element.description) }
        let count = problems.count
        streams.standardError.writeLine(
            "nowetl: \(count) name\(count == 1 ? " is" : "s are") not in the instance's dictionary; "
                + "nothing was fetched or written")
        return NowETLExitCode.configuration
    }

    /// Loads a pipeline with the command line's `overrides`, printing the gcc-style error on failure.
    static func load(
        _ pipeline: String, overrides: PipelineOverrides, environment: [String: String], streams: CommandStreams
    ) -> PipelineConfiguration? {
        loadLocated(pipeline, overrides: overrides, environment: environment, streams: streams)?.configuration
    }

    /// Loads a pipeline with its file for later positions, printing the gcc-style error on failure.
    ///
    /// `overrides.variables` (`--var NAME=VALUE`) win over the environment's values for `${NAME}`, which
    /// win over the `.env` file beside the pipeline; `overrides.outputDirectory` (`--output-dir`, relative
    /// to the working directory) replaces the file's `output_dir`. The load's warnings go to standard
    /// error first.
    static func loadLocated(
        _ pipeline: String, overrides: PipelineOverrides, environment: [String: String], streams: CommandStreams
    ) -> LocatedPipeline? {
        var located: LocatedPipeline
        do {
            located = try PipelineLoader.loadLocated(
                path: pipeline, environment: environment, variables: overrides.variables)
        } catch {
            streams.standardError.writeLine(error.description)
            return nil
        }
        for warning in located.warnings { streams.standardError.writeLine(warning.description) }
        if let directory = overrides.outputDirectory { located.configuration.outputDirectory = directory }
        return located
    }

    private static func fail(_ error: any Error, streams: CommandStreams) -> Int32 {
        fail(String(describing: error), code: NowETLExitCode.code(for: error), streams: streams)
    }

    /// Errors before the run starts are plain `nowetl: …` lines, like usage and configuration errors.
    static func fail(_ message: String, code: Int32, streams: CommandStreams) -> Int32 {
        streams.standardError.writeLine("nowetl: \(message)")
        return code
    }

    private static func run(
        _ options: NowETLArguments.RunOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory, stopSignals: StopSignals?
    ) async -> Int32 {
        guard
            let located = loadLocated(
                options.pipeline, overrides: options.overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let configuration = located.configuration
        do {
            _ = try PipelineRun.selectTables(options.tables, from: configuration)
        } catch {
            streams.standardError.writeLine("nowetl: \(error.description)")
            return error.exitCode
        }
        if let shard = options.shard {
            return await runShard(
                options, shard: shard, located: located, environment: environment, streams: streams,
                makeTableRunner: makeTableRunner, stopSignals: stopSignals)
        }
        let logger = RunLogger(
            format: options.logFormat, minimumLevel: options.logLevel,
            secrets: configuration.secretValues, console: streams.standardError)
        let runner: any TableRunning
        do {
            runner = try makeTableRunner(configuration)
        } catch {
            return fail(
                logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
        }
        // Before the lock, the journals and the first page: a misspelt name touches no file.
        if let code = await checkNames(
            located, runner: runner, tables: options.tables, logger: logger, streams: streams)
        {
            return code
        }
        let order: TableOrder
        do {
            order = try await PipelineRun.tableOrder(
                for: configuration,
                tables: PipelineRun.selectTables(options.tables, from: configuration).map(\.table), runner: runner)
        } catch {
            return fail(
                logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
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
        } catch {
            streams.standardError.writeLine("nowetl: \(error.description)")
            return error.exitCode
        }
        logger.info(
            "pipeline loaded",
            [
                ("pipeline", options.pipeline), ("instance", configuration.source.instance.absoluteString),
                ("auth", configuration.source.auth.description),
            ])
        let lock: OutputDirectoryLock
        do {
            lock = try OutputDirectoryLock.acquire(
                directory: configuration.outputDirectory, runID: pipelineRun.runID, started: started,
                pipeline: OutputDirectoryLock.pipelineIdentity(of: options.pipeline),
                directoryMode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        } catch {
            return fail(logger.redact(error.description), code: error.exitCode, streams: streams)
        }
        defer { lock.release() }
        if let holder = lock.previousHolder {
            logger.warning("took over the output_dir lock of a run that did not finish", [("previous", holder)])
        }
        // Roll forward a commit that a crash interrupted, before anything else touches the directory:
        // the temporary-file cleanup below would otherwise delete the staged files it still renames.
        do {
            if let record = try RunCommit.recover(outputDirectory: configuration.outputDirectory) {
                logger.warning(
                    "completed the commit of a run that was interrupted while committing",
                    [("run_id", record.runID), ("files", record.files.count)])
            }
        } catch {
            return fail(
                logger.redact("cannot complete an interrupted commit: \(error)"), code: NowETLExitCode.failed,
                streams: streams)
        }
        for path in TableJournal.removeJournals(
            outputDirectory: configuration.outputDirectory, except: configuration.tables.map(\.table))
        {
            logger.info("removed the run journal of a table the pipeline no longer has", [("path", path)])
        }
        // Not the shards' files: a shard running now (it holds its own lock, not this one) is writing them.
        for path in lock.removeStaleTemporaryFiles(excluding: [ShardLayout.relativeRoot]) {
            logger.info("removed a temporary file of an interrupted run", [("path", path)])
        }
        let runTask = Task { await pipelineRun.run() }
        stopSignals?.onStop { signal in
            logger.warning(
                "stop requested: cancelling the run; unfinished outputs are aborted",
                [("signal", StopSignals.name(of: signal))])
            runTask.cancel()
        }
        var result = await runTask.value
        // A signal that came after every table had committed changed nothing: the run's own code stands.
        if let signal = stopSignals?.received,
            result.tables.contains(where: { $0.status == .failed || $0.status == .notRun || $0.status == .notCommitted }
            )
        {
            result.exitCode = signal == SIGINT ? NowETLExitCode.interrupted : NowETLExitCode.terminated
            let journals = TableJournal.summaries(outputDirectory: configuration.outputDirectory)
            logger.warning(
                "interrupted",
                [
                    ("signal", StopSignals.name(of: signal)), ("exit_code", result.exitCode),
                    ("committed", "none"), ("journal_tables", journals.map(\.table).joined(separator: ",")),
                    ("journal_pages", journals.reduce(0) { $0 + $1.pages }),
                    ("journal_rows", journals.reduce(0) { $0 + $1.rows }),
                    ("resume", "the next run continues from the journal (--restart discards it)"),
                ])
        }
        return report(result, summaryJSON: options.summaryJSON, logger: logger, streams: streams)
    }

    /// `nowetl preview`: the first rows of one table, extracted as `run` would, printed as a text table.
    private static func preview(
        _ options: NowETLArguments.PreviewOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        guard
            let configuration = load(
                options.pipeline, overrides: options.overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let table: TableConfiguration
        do {
            let selected = try PipelineRun.selectTables(options.table.map { [$0] } ?? [], from: configuration)
            guard let first = selected.first else { return NowETLExitCode.configuration }
            table = first
        } catch {
            streams.standardError.writeLine("nowetl: \(error.description)")
            return error.exitCode
        }
        let secrets = configuration.secretValues
        let logger = RunLogger(secrets: secrets, console: streams.standardError)
        let name = table.table
        do {
            let preview = TablePreview(
                configuration: configuration, transportEvents: { logger.log($0, table: name) })
            let result = try await preview.rows(of: table, limit: options.rows)
            streams.standardOutput(PreviewTable.render(schema: result.schema, rows: result.rows))
            let rows = result.rows.count
            var note = "\(table.table): \(rows) row\(rows == 1 ? "" : "s")"
            if result.rejects > 0 { note += ", \(result.rejects) rejected and left out" }
            streams.standardError.writeLine(note)
            return NowETLExitCode.ok
        } catch {
            return fail(
                logger.redact(String(describing: error)), code: NowETLExitCode.code(for: error), streams: streams)
        }
    }

    /// `nowetl discover`: a table's dictionary fields as pipeline YAML; credentials from `SN_USER` and
    /// `SN_PASSWORD`.
    private static func discover(
        _ options: NowETLArguments.DiscoverOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        let connection: DictionaryConnection
        switch dictionaryConnection(instance: options.instance, command: "discover", environment: environment) {
        case .success(let value): connection = value
        case .failure(let message): return fail(message.description, code: NowETLExitCode.usage, streams: streams)
        }
        do {
            let fields = try await FieldDiscovery(service: connection.service).fields(of: options.table)
            guard !fields.isEmpty else {
                return fail(
                    "sys_dictionary lists no fields for '\(options.table)'", code: NowETLExitCode.failed,
                    streams: streams)
            }
            streams.standardOutput(DiscoveredTableYAML.render(table: options.table, fields: fields))
            return NowETLExitCode.ok
        } catch {
            return fail(connection.redact(error), code: NowETLExitCode.code(for: error), streams: streams)
        }
    }
}
