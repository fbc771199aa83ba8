import ArgumentKit
import NowData

/// The parsed command line of `nowetl`.
public enum NowETLArguments: CommandLineArguments, Equatable, Sendable {
    /// `nowetl run PIPELINE …`.
    case run(RunOptions)
    /// `nowetl validate PIPELINE [--online]`; `online` adds the dictionary checks against the instance.
    case validate(pipeline: String, online: Bool = false, overrides: PipelineOverrides = PipelineOverrides())
    /// `nowetl preview PIPELINE …`.
    case preview(PreviewOptions)
    /// `nowetl discover --instance URL --table T`.
    case discover(DiscoverOptions)
    /// `nowetl state show|set|reset PIPELINE …`: the incremental tables' saved state.
    case state(StateOptions)
    /// `nowetl reconcile PIPELINE …`: compare the pipeline's `instance` output with its source.
    case reconcile(ReconcileOptions)
    /// `nowetl merge PIPELINE …`: publish the outputs of a sharded run (`run --shard I/N`).
    case merge(MergeOptions)
    /// `nowetl init --instance URL --table T…`: a starter pipeline from the tables' dictionary.
    case initPipeline(InitOptions)
    /// `nowetl completion bash|zsh|fish`: the shell completion script, on stdout.
    case completion(CompletionShell)
    /// `nowetl manpage`: the man page nowetl(1) in roff, on stdout.
    case manpage
    /// `nowetl schema [--format json|markdown]`: the pipeline file's JSON Schema, or its reference in
    /// Markdown, on stdout (``PipelineSchema``).
    case schema(SchemaFormat)
    /// `nowetl --help`, `nowetl help`: the overview of every command.
    case help
    /// `nowetl COMMAND --help`, `nowetl help COMMAND`: one command's help (`"run"`, `"state set"`).
    case commandHelp(String)
    /// `nowetl --version`.
    case version

    /// Options of `nowetl run`.
    public struct RunOptions: Equatable, Sendable {
        /// The pipeline file.
        public var pipeline: String
        /// `--table`: run only these tables (repeatable); empty for all.
        public var tables: [String] = []
        /// `--summary-json`: where to write the run's JSON report.
        public var summaryJSON: String?
        /// `--metrics-file`: where to write the run's metrics in the Prometheus text format.
        public var metricsFile: String?
        /// `--log-format`.
        public var logFormat = LogFormat.text
        /// `--log-level`.
        public var logLevel = LogLevel.info
        /// `--progress`.
        public var progress = ProgressMode.auto
        /// `--keep-going`: run the remaining tables after one failed.
        public var keepGoing = false
        /// `--restart`: discard the run journal of an interrupted run instead of resuming from it.
        public var restart = false
        /// `--full-refresh`: incremental tables read everything again (their saved state is replaced).
        public var fullRefresh = false
        /// `--prune`: database outputs prune this run, whatever their `prune:`.
        public var prune = false
        /// `--output-dir` and `--var`.
        public var overrides = PipelineOverrides()
        /// `--shard I/N`: extract only this shard's slice, for `nowetl merge` to publish.
        public var shard: Shard?
        /// `--run-key KEY` (with `--shard` only): the identity of the sharded run this shard belongs to
        /// (e.g. the night's date). A shard journal of another key is discarded, and the merge takes only
        /// shards of its own key.
        public var runKey: String?

        /// The defaults for `pipeline`.
        public init(pipeline: String) {
            self.pipeline = pipeline
        }
    }

    /// Options of `nowetl merge`.
    public struct MergeOptions: Equatable, Sendable {
        /// The pipeline file (byte for byte the one the shards ran).
        public var pipeline: String
        /// `--summary-json`: where to write the merged run's JSON report.
        public var summaryJSON: String?
        /// `--log-format`.
        public var logFormat = LogFormat.text
        /// `--log-level`.
        public var logLevel = LogLevel.info
        /// `--progress`.
        public var progress = ProgressMode.auto
        /// `--run-key KEY`: merge only shards run with this `--run-key` (shards without one when `nil`).
        public var runKey: String?
        /// `--output-dir` and `--var`.
        public var overrides = PipelineOverrides()

        /// The defaults for `pipeline`.
        public init(pipeline: String) {
            self.pipeline = pipeline
        }
    }

    /// Options of `nowetl preview`.
    public struct PreviewOptions: Equatable, Sendable {
        /// The pipeline file.
        public var pipeline: String
        /// `--table`: the table to preview (default: the first).
        public var table: String?
        /// `--rows`: how many rows (default 10).
        public var rows = 10
        /// `--output-dir` and `--var`.
        public var overrides = PipelineOverrides()

        /// The defaults for `pipeline`.
        public init(pipeline: String) {
            self.pipeline = pipeline
        }
    }

    /// Options of `nowetl discover`.
    public struct DiscoverOptions: Equatable, Sendable {
        /// `--instance`: the instance URL.
        public var instance: String
        /// `--table`: the table to describe.
        public var table: String
        /// `--user`, `--password-file`, `--client-id`, `--client-secret-file`.
        public var signIn = SignInOptions()

        /// Creates options.
        public init(instance: String, table: String, signIn: SignInOptions = SignInOptions()) {
            self.instance = instance
            self.table = table
            self.signIn = signIn
        }
    }

    /// How `discover` and `init` sign in when the command line says so, instead of the environment's
    /// `SN_USER`/`SN_PASSWORD` or `SN_CLIENT_ID`/`SN_CLIENT_SECRET`. Secrets come from files only: a
    /// value on the command line is visible to every user of the machine in `ps`.
    public struct SignInOptions: Equatable, Sendable {
        /// `--user`: the user of basic authentication.
        public var user: String?
        /// `--password-file`: a file holding the user's password.
        public var passwordFile: String?
        /// `--client-id`: an OAuth client of the instance's Application Registry (client credentials).
        public var clientID: String?
        /// `--client-secret-file`: a file holding the OAuth client's secret.
        public var clientSecretFile: String?

        /// Creates options; none given signs in from the environment.
        public init(
            user: String? = nil, passwordFile: String? = nil, clientID: String? = nil, clientSecretFile: String? = nil
        ) {
            self.user = user
            self.passwordFile = passwordFile
            self.clientID = clientID
            self.clientSecretFile = clientSecretFile
        }

        /// Whether an OAuth option is given.
        var isOAuth: Bool { clientID != nil || clientSecretFile != nil }
        /// Whether a basic-authentication option is given.
        var isBasic: Bool { user != nil || passwordFile != nil }
    }

    /// Options of `nowetl init`.
    public struct InitOptions: Equatable, Sendable {
        /// `--instance`: the instance URL.
        public var instance: String
        /// `--table` (repeatable, at least one): the tables of the starter pipeline.
        public var tables: [String]
        /// `--output`: the pipeline file to write; `nil` prints it on stdout.
        public var output: String?
        /// `--force`: replace an existing `--output` file.
        public var force = false
        /// `--user`, `--password-file`, `--client-id`, `--client-secret-file`.
        public var signIn = SignInOptions()

        /// Creates options.
        public init(instance: String, tables: [String], output: String? = nil, force: Bool = false) {
            self.instance = instance
            self.tables = tables
            self.output = output
            self.force = force
        }
    }

    /// What `nowetl schema` prints.
    public enum SchemaFormat: String, Equatable, Sendable, CaseIterable {
        /// The JSON Schema of the pipeline file (the default), for editors and validators.
        case json
        /// The pipeline-file reference, `docs/reference/pipeline.md`.
        case markdown
    }

    /// The shells `nowetl completion` writes a script for.
    public enum CompletionShell: String, Equatable, Sendable, CaseIterable {
        /// bash (`source <(nowetl completion bash)`).
        case bash
        /// zsh (`nowetl completion zsh > ~/.zfunc/_nowetl`).
        case zsh
        /// fish (`nowetl completion fish > ~/.config/fish/completions/nowetl.fish`).
        case fish
    }

    /// Options of `nowetl reconcile`.
    public struct ReconcileOptions: Equatable, Sendable {
        /// The pipeline file.
        public var pipeline: String
        /// `--table`: reconcile only these tables (repeatable); empty for all.
        public var tables: [String] = []
        /// `--report`: where to write the JSON report (atomically).
        public var report: String?
        /// `--output-dir` and `--var`.
        public var overrides = PipelineOverrides()

        /// The defaults for `pipeline`.
        public init(pipeline: String, tables: [String] = [], report: String? = nil) {
            self.pipeline = pipeline
            self.tables = tables
            self.report = report
        }
    }

    /// Options of `nowetl state`.
    public struct StateOptions: Equatable, Sendable {
        /// What `nowetl state` does.
        public enum Action: Equatable, Sendable {
            /// `show`: print the state of the incremental tables.
            case show
            /// `set --cursor C`: the next run of `table` reads from cursor `C` (the whole second).
            case set(cursor: String)
            /// `reset`: forget the state, so the next run reads the whole table.
            case reset
        }

        /// How `state show` prints.
        public enum Format: String, Equatable, Sendable, CaseIterable {
            /// A readable block per table (the default).
            case text
            /// One JSON object with every table's state, for scripts.
            case json
        }

        /// The subcommand.
        public var action: Action
        /// The pipeline file.
        public var pipeline: String
        /// `--table`: only this table; `nil` for every incremental table (required by `set`).
        public var table: String?
        /// `--format` of `show`.
        public var format = Format.text
        /// `--output-dir` and `--var`.
        public var overrides = PipelineOverrides()

        /// Creates options.
        public init(_ action: Action, pipeline: String, table: String? = nil, format: Format = .text) {
            self.action = action
            self.pipeline = pipeline
            self.table = table
            self.format = format
        }
    }

    /// `nowetl --help`: every command's usage and summary, and the exit codes.
    public static var usage: String { program.help(for: []) }

    /// The help of the command `command` (`"run"`, `"state set"`; empty for the program): `nowetl run --help`.
    public static func help(for command: String) -> String {
        program.help(for: command.split(separator: " ").map(String.init))
    }

    /// A command-line mistake: one line of why, printed with the command's short usage; exit code 64.
    public typealias UsageError = CommandLineUsageError<NowETLArguments>

    /// The arguments of a parsed command line: its values checked and converted.
    public static func converted(_ parsed: ParsedCommand) throws(UsageError) -> NowETLArguments {
        let pipeline = parsed.arguments.first ?? ""
        switch parsed.path.first ?? "" {
        case "run":
            var options = RunOptions(pipeline: pipeline)
            options.tables = parsed.values("--table")
            options.summaryJSON = parsed.value("--summary-json")
            options.metricsFile = parsed.value("--metrics-file")
            options.logFormat = try choice(parsed, "--log-format") ?? options.logFormat
            options.logLevel = try choice(parsed, "--log-level") ?? options.logLevel
            options.progress = try choice(parsed, "--progress") ?? options.progress
            options.keepGoing = parsed.isSet("--keep-going")
            options.restart = parsed.isSet("--restart")
            options.fullRefresh = parsed.isSet("--full-refresh")
            options.prune = parsed.isSet("--prune")
            options.shard = try parsed.value("--shard").map { text throws(UsageError) in try Shard.parse(text) }
            options.runKey = try parsed.value("--run-key").map { text throws(UsageError) in try runKey(text) }
            options.overrides = try overrides(parsed)
            if options.shard != nil, options.keepGoing {
                throw UsageError(description: "--shard and --keep-going do not go together: a shard is merged whole")
            }
            if options.runKey != nil, options.shard == nil {
                throw UsageError(description: "--run-key names a sharded run: use it with --shard I/N (and merge)")
            }
            return .run(options)
        case "merge":
            var options = MergeOptions(pipeline: pipeline)
            options.summaryJSON = parsed.value("--summary-json")
            options.logFormat = try choice(parsed, "--log-format") ?? options.logFormat
            options.logLevel = try choice(parsed, "--log-level") ?? options.logLevel
            options.progress = try choice(parsed, "--progress") ?? options.progress
            options.runKey = try parsed.value("--run-key").map { text throws(UsageError) in try runKey(text) }
            options.overrides = try overrides(parsed)
            return .merge(options)
        case "validate":
            return .validate(pipeline: pipeline, online: parsed.isSet("--online"), overrides: try overrides(parsed))
        case "preview":
            var options = PreviewOptions(pipeline: pipeline)
            options.table = parsed.value("--table")
            if let text = parsed.value("--rows") {
                guard let rows = Int(text), (1...100_000).contains(rows) else {
                    throw UsageError(description: "--rows needs a number in 1…100000, got '\(text)'")
                }
                options.rows = rows
            }
            options.overrides = try overrides(parsed)
            return .preview(options)
        case "discover":
            return .discover(
                DiscoverOptions(
                    instance: parsed.value("--instance") ?? "", table: parsed.value("--table") ?? "",
                    signIn: try signIn(parsed)))
        case "init":
            var options = InitOptions(
                instance: parsed.value("--instance") ?? "", tables: parsed.values("--table"),
                output: parsed.value("--output"), force: parsed.isSet("--force"))
            options.signIn = try signIn(parsed)
            return .initPipeline(options)
        case "state":
            return .state(try stateOptions(from: parsed))
        case "reconcile":
            var options = ReconcileOptions(
                pipeline: pipeline, tables: parsed.values("--table"), report: parsed.value("--report"))
            options.overrides = try overrides(parsed)
            return .reconcile(options)
        case "completion":
            guard let shell = CompletionShell(rawValue: pipeline) else {
                throw UsageError(description: "completion needs one shell: bash, zsh or fish")
            }
            return .completion(shell)
        case "manpage":
            return .manpage
        case "schema":
            return .schema(try choice(parsed, "--format") ?? .json)
        case "version":
            return .version
        default:
            // The program itself: only --version is an option of it (the parser wants a command otherwise).
            return parsed.isSet("--version") ? .version : .help
        }
    }

    /// `state show|set|reset PIPELINE …`.
    private static func stateOptions(from parsed: ParsedCommand) throws(UsageError) -> StateOptions {
        let pipeline = parsed.arguments.first ?? ""
        let table = parsed.value("--table")
        var options: StateOptions
        switch parsed.path.dropFirst().first {
        case "show":
            options = StateOptions(
                .show, pipeline: pipeline, table: table, format: try choice(parsed, "--format") ?? .text)
        case "reset":
            options = StateOptions(.reset, pipeline: pipeline, table: table)
        default:
            let text = parsed.value("--cursor") ?? ""
            guard TableAPIDateFormat.date(from: text) != nil else {
                throw UsageError(
                    description: "--cursor needs a UTC date-time YYYY-MM-DD HH:MM:SS (quoted), got '\(text)'")
            }
            options = StateOptions(.set(cursor: text), pipeline: pipeline, table: table)
        }
        options.overrides = try overrides(parsed)
        return options
    }

    /// `--user`, `--password-file`, `--client-id`, `--client-secret-file`: one way to sign in, not both.
    private static func signIn(_ parsed: ParsedCommand) throws(UsageError) -> SignInOptions {
        let options = SignInOptions(
            user: parsed.value("--user"), passwordFile: parsed.value("--password-file"),
            clientID: parsed.value("--client-id"), clientSecretFile: parsed.value("--client-secret-file"))
        if options.isOAuth, options.isBasic {
            throw UsageError(
                description: "give --user/--password-file (basic) or --client-id/--client-secret-file (OAuth), not both"
            )
        }
        return options
    }

    /// `--output-dir PATH` and every `--var NAME=VALUE` (a later one of the same name wins).
    private static func overrides(_ parsed: ParsedCommand) throws(UsageError) -> PipelineOverrides {
        var overrides = PipelineOverrides(outputDirectory: parsed.value("--output-dir"))
        for text in parsed.values("--var") {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw UsageError(description: "--var needs NAME=VALUE, got '\(text)'")
            }
            let name = String(text[..<equals])
            let isNameCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_") }
            guard name.allSatisfy(isNameCharacter), let first = name.first, !first.isNumber else {
                throw UsageError(
                    description: "--var needs NAME=VALUE with NAME of letters, digits and '_', got '\(name)'")
            }
            overrides.variables[name] = String(text[text.index(after: equals)...])
        }
        return overrides
    }

    /// The value of a choice option (the parser has checked it is one of the choices).
    private static func choice<Choice: RawRepresentable>(_ parsed: ParsedCommand, _ name: String)
        throws(UsageError) -> Choice? where Choice.RawValue == String
    {
        guard let text = parsed.value(name) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            throw UsageError(description: "\(name) takes another value, got '\(text)'")
        }
        return choice
    }

    /// A `--run-key`: up to 128 letters, digits and `.`, `_`, `-`, `:` (a date, a Job's name).
    private static func runKey(_ text: String) throws(UsageError) -> String {
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || ".-_:".contains(c)) }
        guard text.count <= 128, text.allSatisfy(allowed) else {
            throw UsageError(
                description: "--run-key needs up to 128 letters, digits, '.', '_', '-' or ':' (e.g. 2026-12-02)")
        }
        return text
    }
}

extension CommandLineUsageError: ExitCodeProviding where Arguments == NowETLArguments {
    /// 64.
    public var exitCode: Int32 { NowETLExitCode.usage }
}
