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
                return await runWritingMetrics(
                    options, environment: environment, streams: streams, makeTableRunner: makeTableRunner,
                    stopSignals: stopSignals)
            case .preview(let options):
                return try await preview(options, environment: environment, streams: streams)
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
            }
        } catch {
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
    ) async -> Int32? {
        let problems: [DictionaryNameProblem]
        do {
            problems = try await runner.checkNames(in: located.configuration, tables: tables)
        } catch {
            return fail(error, logger: logger, streams: streams)
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

    /// Errors before the run starts are plain `nowetl: …` lines, like usage and configuration errors.
    static func fail(_ message: String, code: Int32, streams: CommandStreams) -> Int32 {
        streams.standardError.writeLine("nowetl: \(message)")
        return code
    }

    /// A command's early end: its exit code, after its message went to standard error.
    struct Exit: Error {
        let code: Int32
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
            throw Exit(code: fail(logger.redact(error.description), code: error.exitCode, streams: streams))
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
            throw Exit(
                code: fail(
                    logger.redact(NowETLError.text(of: error, after: "cannot complete an interrupted commit")),
                    code: NowETLExitCode.failed,
                    streams: streams))
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
        guard let located = loadLocated(pipeline, overrides: overrides, environment: environment, streams: streams)
        else {
            throw Exit(code: NowETLExitCode.configuration)
        }
        let selected: [TableConfiguration]
        do {
            selected = try PipelineRun.selectTables(tables, from: located.configuration)
        } catch {
            throw Exit(code: fail(error.description, code: error.exitCode, streams: streams))
        }
        let logger = RunLogger(
            format: logFormat, minimumLevel: logLevel, secrets: located.configuration.secretValues,
            console: streams.standardError)
        return Prologue(located: located, tables: selected, logger: logger)
    }

    /// Ends a command on `error` before its run started: a `nowetl: …` line, redacted by `logger`, and the
    /// error's exit code.
    static func fail(_ error: any Error, logger: RunLogger, streams: CommandStreams) -> Int32 {
        fail(logger.redact(NowETLError.text(of: error)), code: NowETLExitCode.code(for: error), streams: streams)
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
