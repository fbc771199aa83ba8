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
        // A pipeline command that stops early throws ``Exit`` after its error line.
        do {
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
                return try await validate(
                    pipeline, online: online, overrides: overrides, environment: environment, streams: streams,
                    makeTableRunner: makeTableRunner)
            case .run(let options):
                return try await runWritingMetrics(
                    options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                    stopSignals: stopSignals)
            case .preview(let options):
                return try await preview(
                    options, environment: environment, streams: streams, makeTableRunner: makeTableRunner)
            case .discover(let options):
                return await discover(options, environment: environment, streams: streams)
            case .state(let options):
                return state(options, environment: environment, streams: streams)
            case .reconcile(let options):
                return try await reconcile(options, environment: environment, streams: streams)
            case .merge(let options):
                return try await merge(
                    options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                    stopSignals: stopSignals)
            case .initPipeline(let options):
                return await initPipeline(options, environment: environment, streams: streams)
            case .completion(let shell):
                return completion(shell, streams: streams)
            case .manpage:
                return manpage(streams: streams)
            case .schema(let format):
                return schema(format, streams: streams)
            }
        } catch {
            // An early end of run or merge writes the summary too: never last night's success.
            switch parsed {
            case .run(let options):
                writeFailedSummary(error, (options.summaryJSON, options.logFormat, options.logLevel), streams: streams)
            case .merge(let options):
                writeFailedSummary(error, (options.summaryJSON, options.logFormat, options.logLevel), streams: streams)
            default: break
            }
            return error.code
        }
    }

    /// Checks the names of `tables` (every table for none) against the instance's dictionary
    /// (``TableRunning/checkNames(in:tables:)``) and prints every problem as `file:line:col: error: …`, in file order.
    ///
    /// - Returns: The exit code to stop with — 78 for unknown names, the error's code when the check
    ///   could not run (77 when the user may not read the dictionary) — or `nil` when every name is known.
    static func checkNames(
        _ located: LocatedPipeline, runner: any TableRunning, tables: [String], logger: RunLogger,
        streams: CommandStreams
    ) async -> Exit? {
        let problems: [DictionaryNameProblem]
        do {
            problems = try await runner.checkNames(in: located.configuration, tables: tables)
        } catch {
            return failure(error, logger: logger, streams: streams)
        }
        guard !problems.isEmpty else { return nil }
        let errors = problems.map(located.configError(for:)).enumerated().sorted { first, second in
            let (a, b) = (first.element, second.element)
            return (a.line ?? 0, a.column ?? 0, first.offset) < (b.line ?? 0, b.column ?? 0, second.offset)
        }
        for error in errors {
            if logger.format == .json {
                logger.error(error.element.description, [("kind", RunFailure.kind(of: error.element))])
            } else {
                streams.standardError.writeLine(error.element.description)
            }
        }
        let count = problems.count
        let message =
            "\(count) name\(count == 1 ? " is" : "s are") not in the instance's dictionary; "
            + "nothing was fetched or written"
        let kind = errors.first.map { RunFailure.kind(of: $0.element) } ?? NowETLError.Code.configuration.rawValue
        let exit = failure(message, kind: kind, code: NowETLExitCode.configuration, logger: logger, streams: streams)
        // The summary names the problems too: a monitor that reads only the file learns which names.
        let names = errors.map(\.element.description).joined(separator: "; ")
        return Exit(code: exit.code, failure: RunFailure(kind: kind, message: message + ": " + names))
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
        try? loadLocated(
            pipeline, overrides: overrides, environment: environment, logger: RunLogger(console: streams.standardError),
            streams: streams)
    }

    /// ``loadLocated(_:overrides:environment:streams:)`` with the command's log format: under
    /// `--log-format json` the error and the warnings are `logger`'s JSON lines.
    ///
    /// - Throws: ``Exit`` (78) with the failure, after the error line.
    static func loadLocated(
        _ pipeline: String, overrides: PipelineOverrides, environment: [String: String], logger: RunLogger,
        streams: CommandStreams
    ) throws(Exit) -> LocatedPipeline {
        var located: LocatedPipeline
        do {
            located = try PipelineLoader.loadLocated(
                path: pipeline, environment: environment, variables: overrides.variables)
        } catch {
            // A configuration error names no secret value (ConfigError's promise): nothing to redact.
            throw failure(
                error.description, kind: RunFailure.kind(of: error), code: error.exitCode, logger: logger,
                streams: streams, textLine: error.description)
        }
        for warning in located.warnings {
            if logger.format == .json {
                logger.warning(warning.description)
            } else {
                streams.standardError.writeLine(warning.description)
            }
        }
        if let directory = overrides.outputDirectory { located.configuration.outputDirectory = directory }
        return located
    }

    /// Errors before the run starts are plain `nowetl: …` lines, like usage and configuration errors.
    static func fail(_ message: String, code: Int32, streams: CommandStreams) -> Int32 {
        streams.standardError.writeLine("nowetl: \(message)")
        return code
    }

    /// A command's early end: its exit code, after its message went to standard error.
    struct Exit: Error {
        let code: Int32
        /// Why, for the `--summary-json` of an early end (``writeFailedSummary(_:_:streams:)``);
        /// `nil` where the command said it without one.
        var failure: RunFailure? = nil
    }

    /// The output directory's part of the prologue of `run` and `merge`: its lock (a second run on it is
    /// exit 75; a lock left by a run that did not finish is taken over, with a warning), then a commit
    /// that a crash interrupted rolled forward — before anything else touches the directory, since a
    /// clean-up of temporary files would delete the staged files it still renames. Returns the lock
    /// (the caller releases it) and the record rolled forward, if any.
    static func lockOutputDirectory(
        _ configuration: PipelineConfiguration, pipeline: String, runID: String, started: Date, logger: RunLogger,
        streams: CommandStreams
    ) throws(Exit) -> (lock: OutputDirectoryLock, recovered: CommitRecord?) {
        let directory = configuration.outputDirectory
        let lock: OutputDirectoryLock
        do {
            lock = try OutputDirectoryLock.acquire(
                directory: directory, runID: runID, started: started,
                pipeline: OutputDirectoryLock.pipelineIdentity(of: pipeline),
                directoryMode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        } catch {
            throw failure(error, logger: logger, streams: streams)
        }
        if let holder = lock.previousHolder {
            logger.warning("took over the output_dir lock of a run that did not finish", [("previous", holder)])
        }
        do {
            let record = try RunCommit.recover(outputDirectory: directory)
            if let record {
                logger.warning(
                    "completed the commit of a run that was interrupted while committing",
                    [("run_id", record.runID), ("files", record.files.count)])
            }
            return (lock, record)
        } catch {
            lock.release()
            let message = logger.redact(NowETLError.text(of: error, after: "cannot complete an interrupted commit"))
            throw failure(
                message, kind: RunFailure.kind(of: error), code: NowETLExitCode.failed, logger: logger, streams: streams
            )
        }
    }

    /// What a pipeline command starts with: the pipeline loaded with the command line's overrides, the
    /// tables selected, a logger that redacts the pipeline's secrets.
    struct Prologue {
        /// The pipeline and its file, for positions.
        let located: LocatedPipeline
        /// The tables the command line selects (every table for none), in pipeline order.
        let tables: [TableConfiguration]
        /// The command's logger.
        let logger: RunLogger

        /// The pipeline.
        var configuration: PipelineConfiguration { located.configuration }
    }

    /// The prologue of `run`, `merge`, `preview`, `reconcile` and `validate`: loads `pipeline`
    /// (``loadLocated(_:overrides:environment:streams:)``), selects `tables` and makes the logger.
    ///
    /// - Throws: ``Exit`` after the error line: 78 for a pipeline that does not load, 64 for an unknown
    ///   table.
    static func prologue(
        _ pipeline: String, overrides: PipelineOverrides, tables: [String], logFormat: LogFormat = .text,
        logLevel: LogLevel = .info, environment: [String: String], streams: CommandStreams
    ) throws(Exit) -> Prologue {
        // Before the pipeline (and its secrets) is known, for its own errors: they name no secret.
        let early = RunLogger(format: logFormat, minimumLevel: logLevel, console: streams.standardError)
        let located = try loadLocated(
            pipeline, overrides: overrides, environment: environment, logger: early, streams: streams)
        let selected: [TableConfiguration]
        do {
            selected = try PipelineRun.selectTables(tables, from: located.configuration)
        } catch {
            throw failure(error, logger: early, streams: streams)
        }
        let logger = RunLogger(
            format: logFormat, minimumLevel: logLevel, secrets: located.configuration.secretValues,
            console: streams.standardError)
        return Prologue(located: located, tables: selected, logger: logger)
    }

    /// Ends a command on `error` before its run started: a `nowetl: …` line, redacted by `logger`, and the
    /// error's exit code.
    static func fail(_ error: any Error, logger: RunLogger, streams: CommandStreams) -> Int32 {
        failure(error, logger: logger, streams: streams).code
    }

    /// Ends a command on `error` before its run started: the error line, redacted by `logger` — a
    /// `nowetl: …` line, or under `--log-format json` the logger's line with `kind` and `exit_code` —
    /// and the ``Exit`` with the error's code and ``RunFailure``.
    static func failure(_ error: any Error, logger: RunLogger, streams: CommandStreams) -> Exit {
        if let url = NowETLError.requestURL(in: error) { logger.debug("the failed request", [("url", url)]) }
        return failure(
            logger.redact(NowETLError.text(of: error)), kind: RunFailure.kind(of: error),
            code: NowETLExitCode.code(for: error), logger: logger, streams: streams)
    }

    /// Ends a command with `message` (redacted already) of `kind`: `textLine` (`nowetl: message` for
    /// none) on standard error, or under `--log-format json` the logger's error line.
    static func failure(
        _ message: String, kind: String, code: Int32, logger: RunLogger, streams: CommandStreams,
        textLine: String? = nil
    ) -> Exit {
        if logger.format == .json {
            logger.error(message, [("kind", kind), ("exit_code", code)])
        } else {
            streams.standardError.writeLine(textLine ?? "nowetl: \(message)")
        }
        return Exit(code: code, failure: RunFailure(kind: kind, message: message))
    }

    /// Writes the `--summary-json` file of `summary` (nothing without one) for `exit`, the early end of
    /// `run` or `merge`: a ``RunReport`` with `status` `failed`, the exit code, the failure and no
    /// tables, atomically in place of the last run's, so a monitor never reads an old success.
    static func writeFailedSummary(
        _ exit: Exit, _ summary: (json: String?, format: LogFormat, level: LogLevel), streams: CommandStreams
    ) {
        guard let path = summary.json else { return }
        // The message was redacted where it was printed; this logger only says where the file went.
        let logger = RunLogger(format: summary.format, minimumLevel: summary.level, console: streams.standardError)
        let now = Date()
        let report = RunReport(
            runID: RunID(started: now).text, started: now, seconds: 0, exitCode: exit.code,
            failure: exit.failure
                ?? RunFailure(kind: NowETLError.Code.failed.rawValue, message: "stopped before the run started"),
            logWritesDropped: streams.droppedWrites())
        do {
            try report.write(toFile: path)
            logger.info("summary written", [("path", path)])
        } catch {
            logger.error("cannot write the summary JSON", [("path", path), ("error", NowETLError.text(of: error))])
        }
    }

    /// The extractor of `configuration` (``TableRunnerFactory``).
    ///
    /// - Throws: ``Exit`` after the error line when it cannot be made.
    static func makeRunner(
        _ configuration: PipelineConfiguration, makeTableRunner: TableRunnerFactory, logger: RunLogger,
        streams: CommandStreams
    ) throws(Exit) -> any TableRunning {
        do {
            return try makeTableRunner(configuration)
        } catch {
            throw Exit(code: fail(error, logger: logger, streams: streams))
        }
    }
}
