import NowData

/// The parsed command line of `nowetl`.
public enum NowETLArguments: Equatable, Sendable {
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
    /// `nowetl --help`.
    case help
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

        /// Creates options.
        public init(instance: String, table: String) {
            self.instance = instance
            self.table = table
        }
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

        /// Creates options.
        public init(instance: String, tables: [String], output: String? = nil, force: Bool = false) {
            self.instance = instance
            self.tables = tables
            self.output = output
            self.force = force
        }
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

    /// The usage text printed by `--help` and after usage errors.
    public static let usage = """
        nowetl — export ServiceNow tables to CSV, XML and JSON files, as a pipeline file declares.

        USAGE:
          nowetl run PIPELINE [--table T]… [--summary-json PATH] [--log-format text|json]
                              [--log-level debug|info|warning|error] [--progress auto|on|off] [--keep-going]
                              [--restart] [--full-refresh] [--shard I/N [--run-key KEY]]
          nowetl merge PIPELINE [--summary-json PATH] [--log-format text|json]
                                [--log-level debug|info|warning|error] [--progress auto|on|off]
                                [--run-key KEY]
          nowetl validate PIPELINE [--online]
          nowetl preview PIPELINE [--table T] [--rows N]
          nowetl discover --instance URL --table T
          nowetl state show PIPELINE [--table T] [--format text|json]
          nowetl state set PIPELINE --table T --cursor "YYYY-MM-DD HH:MM:SS"
          nowetl state reset PIPELINE [--table T]
          nowetl reconcile PIPELINE [--table T]… [--report PATH]
          nowetl --help | --version

        COMMANDS:
          run        export the pipeline's tables, write manifest.json, print a summary on stdout
          merge      publish a sharded run: join every shard's parts into the files one run writes
          validate   check the pipeline file exactly as run would load it (no requests);
                     --online also checks its names against the instance's dictionary, as run does
          preview    print the first rows of a table as the pipeline would write them
          discover   print a table's fields and types (sys_dictionary) as pipeline YAML
          state      show, set or reset where the incremental tables (mode: incremental) stand
          reconcile  prove the pipeline's instance output equals its source, table by table

        RUN:
          --table T            run only table T (repeatable); the pipeline's order is kept
          --summary-json PATH  also write the summary as JSON to PATH (atomically)
          --log-format F       text: key=value lines (default); json: one JSON object per line
          --log-level L        the least severe level logged (default info)
          --progress P         auto: a live line on a terminal, a log line every 10 s otherwise;
                               on: always the live line; off: no progress
          --keep-going         run the remaining tables after one fails and commit those that
                               succeeded (default: stop, and commit nothing)
          --restart            fetch everything again: discard what an interrupted run left in
                               the run journal (default: resume from it)
          --full-refresh       incremental tables read everything their filter matches again,
                               as on their first run; the committed run replaces their state
          --shard I/N          extract only shard I (0-based, 0…N-1: Kubernetes' JOB_COMPLETION_INDEX)
                               of N: the I-th of N sys_id ranges of every table, into
                               output_dir/.nowetl/shards (a volume every shard and the merge share);
                               nothing is published until `nowetl merge`. A rerun resumes. Not with
                               --keep-going (exit 64), incremental tables or instance outputs (78).
          --run-key KEY        with --shard: the sharded run this shard belongs to (e.g. the night's
                               date, the same for every shard and the merge); a shard journal of
                               another key is started over, and `merge --run-key KEY` takes only
                               shards of KEY (an older night's shard is refused, exit 1)
          Before the first page, every table, field, column path and filter field is checked
          against the instance's sys_dictionary (inherited fields and dot-walks through references
          included): an unknown name is exit 78 with file:line:col, and nothing is written. The user
          needs read access to sys_db_object and sys_dictionary (otherwise exit 77).
          Logs go to stderr; ${VAR} in the pipeline comes from the environment.
          Without source.proxy, HTTPS_PROXY/https_proxy and NO_PROXY/no_proxy choose the proxy.

        PREVIEW:
          --table T            the table to preview (default: the pipeline's first)
          --rows N             how many rows, 1…100000 (default 10); no file is written

        DISCOVER:
          --instance URL       https://… (plain http only to 127.0.0.1 / localhost)
          --table T            the table whose fields (with inherited ones) are printed as YAML
          The credentials come from SN_USER and SN_PASSWORD in the environment.

        STATE (output_dir/.nowetl/state.json; no request is made):
          show                 per incremental table: cursor field, cursor, sys_id, signpost, last
                               run id, rows, deletions cursor; --format json for scripts
          set --cursor C       the next run of --table T reads the rows whose cursor is >= C
                               (UTC, the whole second C); the rest of its state is kept
          reset                forget the state of --table T (default: every incremental table);
                               the next run reads the whole table, as its first run did
          --table T            one incremental table of the pipeline (set needs it)
          set and reset take the output_dir lock (exit 75 while a run holds it), first finish a
          commit a crashed run left, remove the table's run journal and print old → new.
          A state file that does not parse is exit 78.

        MERGE (after every `run --shard I/N` of the same pipeline file ended):
          Checks the shards' manifests — every index of 0…N-1 present and ok, one N, the same
          pipeline file (SHA-256), the same tables and plans, every spill part matching its
          SHA-256 — then joins them in sys_id order and commits as a run does: the same files,
          manifest.json, database loads, atomically; the shards' state is removed with the commit.
          A shard missing, failed or damaged: exit 1 naming it; another N, pipeline or plan: 78;
          a shard still running (or another run on output_dir): 75. Nothing is published then.
          --run-key KEY: merge only shards run with --run-key KEY (without it: shards run
          without one); a shard of another key is refused as not yet run (exit 1).
          --summary-json, --log-format, --log-level, --progress as for run.

        RECONCILE (source: the pipeline's source; target: its instance output):
          --table T            reconcile only table T (repeatable); the pipeline's order is kept
          --report PATH        also write the report as JSON to PATH (atomically)
          Per table: rows on both sides, sys_ids missing and extra on the target, and rows whose
          stored values differ (a SHA-256 per row over every dictionary field, system fields
          included), with the differing fields of the first 20 shown. Both sides are read in
          sys_id order, a page at a time. Exit 0 when every table is equal, 1 when one differs.
        """ + "\n\n" + NowETLExitCode.helpText

    /// A command-line mistake, reported with the usage text and exit code 64.
    public struct UsageError: Error, CustomStringConvertible, Equatable, ExitCodeProviding {
        /// What is wrong.
        public var description: String
        /// Creates an error.
        public init(description: String) {
            self.description = description
        }
        /// 64.
        public var exitCode: Int32 { NowETLExitCode.usage }
    }

    /// Parses `arguments` (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> NowETLArguments {
        guard let command = arguments.first else { throw UsageError(description: "missing command") }
        var rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") { return .help }
        switch command {
        case "--help", "-h", "help": return .help
        case "--version", "version": return .version
        case "run":
            var options = RunOptions(pipeline: try pipeline(for: command, from: &rest))
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--table": options.tables.append(try value(of: flag, from: &rest))
                case "--summary-json": options.summaryJSON = try value(of: flag, from: &rest)
                case "--log-format": options.logFormat = try choice(of: flag, from: &rest)
                case "--log-level": options.logLevel = try choice(of: flag, from: &rest)
                case "--progress": options.progress = try choice(of: flag, from: &rest)
                case "--keep-going": options.keepGoing = true
                case "--restart": options.restart = true
                case "--full-refresh": options.fullRefresh = true
                case "--shard": options.shard = try Shard.parse(try value(of: flag, from: &rest))
                case "--run-key": options.runKey = try runKey(try value(of: flag, from: &rest))
                case "--output-dir", "--var": try override(flag, from: &rest, into: &options.overrides)
                default: throw unexpected(flag, for: command)
                }
            }
            if options.shard != nil, options.keepGoing {
                throw UsageError(description: "--shard and --keep-going do not go together: a shard is merged whole")
            }
            if options.runKey != nil, options.shard == nil {
                throw UsageError(description: "--run-key names a sharded run: use it with --shard I/N (and merge)")
            }
            return .run(options)
        case "merge":
            var options = MergeOptions(pipeline: try pipeline(for: command, from: &rest))
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--summary-json": options.summaryJSON = try value(of: flag, from: &rest)
                case "--log-format": options.logFormat = try choice(of: flag, from: &rest)
                case "--log-level": options.logLevel = try choice(of: flag, from: &rest)
                case "--progress": options.progress = try choice(of: flag, from: &rest)
                case "--run-key": options.runKey = try runKey(try value(of: flag, from: &rest))
                case "--output-dir", "--var": try override(flag, from: &rest, into: &options.overrides)
                default: throw unexpected(flag, for: command)
                }
            }
            return .merge(options)
        case "validate":
            let online = rest.contains("--online")
            rest.removeAll { $0 == "--online" }
            let pipeline = try pipeline(for: command, from: &rest)
            var overrides = PipelineOverrides()
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--output-dir", "--var": try override(flag, from: &rest, into: &overrides)
                default: throw unexpected(flag, for: command)
                }
            }
            return .validate(pipeline: pipeline, online: online, overrides: overrides)
        case "init":
            var instance: String?
            var tables: [String] = []
            var output: String?
            var force = false
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--instance": instance = try value(of: flag, from: &rest)
                case "--table": tables.append(try value(of: flag, from: &rest))
                case "--output": output = try value(of: flag, from: &rest)
                case "--force": force = true
                default: throw unexpected(flag, for: command)
                }
            }
            guard let instance else { throw UsageError(description: "init needs --instance URL") }
            guard !tables.isEmpty else { throw UsageError(description: "init needs --table T (repeatable)") }
            return .initPipeline(InitOptions(instance: instance, tables: tables, output: output, force: force))
        case "completion":
            guard rest.count == 1, let shell = CompletionShell(rawValue: rest[0]) else {
                throw UsageError(description: "completion needs one shell: bash, zsh or fish")
            }
            return .completion(shell)
        case "manpage":
            if let extra = rest.first { throw unexpected(extra, for: command) }
            return .manpage
        case "preview":
            var options = PreviewOptions(pipeline: try pipeline(for: command, from: &rest))
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--table": options.table = try value(of: flag, from: &rest)
                case "--rows":
                    let text = try value(of: flag, from: &rest)
                    guard let rows = Int(text), (1...100_000).contains(rows) else {
                        throw UsageError(description: "--rows needs a number in 1…100000, got '\(text)'")
                    }
                    options.rows = rows
                case "--output-dir", "--var": try override(flag, from: &rest, into: &options.overrides)
                default: throw unexpected(flag, for: command)
                }
            }
            return .preview(options)
        case "discover":
            var instance: String?
            var table: String?
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--instance": instance = try value(of: flag, from: &rest)
                case "--table": table = try value(of: flag, from: &rest)
                default: throw unexpected(flag, for: command)
                }
            }
            guard let instance else { throw UsageError(description: "discover needs --instance URL") }
            guard let table else { throw UsageError(description: "discover needs --table T") }
            return .discover(DiscoverOptions(instance: instance, table: table))
        case "state":
            return .state(try stateOptions(from: &rest))
        case "reconcile":
            var options = ReconcileOptions(pipeline: try pipeline(for: command, from: &rest))
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--table": options.tables.append(try value(of: flag, from: &rest))
                case "--report": options.report = try value(of: flag, from: &rest)
                case "--output-dir", "--var": try override(flag, from: &rest, into: &options.overrides)
                default: throw unexpected(flag, for: command)
                }
            }
            return .reconcile(options)
        default:
            throw UsageError(description: "unknown command '\(command)'")
        }
    }

    /// `state show|set|reset PIPELINE …` after `state`.
    private static func stateOptions(from rest: inout [String]) throws(UsageError) -> StateOptions {
        guard let subcommand = rest.first, !subcommand.hasPrefix("-") else {
            throw UsageError(description: "state needs a subcommand: show, set or reset")
        }
        rest.removeFirst()
        let command = "state " + subcommand
        guard ["show", "set", "reset"].contains(subcommand) else {
            throw UsageError(description: "unknown state subcommand '\(subcommand)'; use show, set or reset")
        }
        let pipeline = try pipeline(for: command, from: &rest)
        var table: String?
        var cursor: String?
        var format = StateOptions.Format.text
        var overrides = PipelineOverrides()
        while !rest.isEmpty {
            let flag = rest.removeFirst()
            switch (flag, subcommand) {
            case ("--table", _): table = try value(of: flag, from: &rest)
            case ("--output-dir", _), ("--var", _): try override(flag, from: &rest, into: &overrides)
            case ("--format", "show"): format = try choice(of: flag, from: &rest)
            case ("--cursor", "set"):
                let text = try value(of: flag, from: &rest)
                guard TableAPIDateFormat.date(from: text) != nil else {
                    throw UsageError(
                        description: "--cursor needs a UTC date-time YYYY-MM-DD HH:MM:SS (quoted), got '\(text)'")
                }
                cursor = text
            default: throw unexpected(flag, for: command)
            }
        }
        var options: StateOptions
        switch subcommand {
        case "show": options = StateOptions(.show, pipeline: pipeline, table: table, format: format)
        case "reset": options = StateOptions(.reset, pipeline: pipeline, table: table)
        default:
            guard let table else { throw UsageError(description: "state set needs --table T") }
            guard let cursor else {
                throw UsageError(description: "state set needs --cursor \"YYYY-MM-DD HH:MM:SS\"")
            }
            options = StateOptions(.set(cursor: cursor), pipeline: pipeline, table: table)
        }
        options.overrides = overrides
        return options
    }

    /// `--output-dir PATH` or `--var NAME=VALUE` (a later one of the same name wins).
    private static func override(_ flag: String, from rest: inout [String], into overrides: inout PipelineOverrides)
        throws(UsageError)
    {
        let text = try value(of: flag, from: &rest)
        guard flag == "--var" else {
            overrides.outputDirectory = text
            return
        }
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError(description: "--var needs NAME=VALUE, got '\(text)'")
        }
        let name = String(text[..<equals])
        let isNameCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_") }
        guard name.allSatisfy(isNameCharacter), let first = name.first, !first.isNumber else {
            throw UsageError(description: "--var needs NAME=VALUE with NAME of letters, digits and '_', got '\(name)'")
        }
        overrides.variables[name] = String(text[text.index(after: equals)...])
    }

    private static func pipeline(for command: String, from rest: inout [String]) throws(UsageError) -> String {
        guard let first = rest.first, !first.hasPrefix("-") else {
            throw UsageError(description: "\(command) needs a PIPELINE file")
        }
        return rest.removeFirst()
    }

    private static func unexpected(_ argument: String, for command: String) -> UsageError {
        if argument.hasPrefix("-") {
            return UsageError(description: "unknown option '\(argument)' for \(command)")
        }
        return UsageError(description: "unexpected argument '\(argument)' for \(command)")
    }

    private static func value(of flag: String, from rest: inout [String]) throws(UsageError) -> String {
        guard let next = rest.first, !next.hasPrefix("--") else {
            throw UsageError(description: "\(flag) needs a value")
        }
        rest.removeFirst()
        guard !next.isEmpty else { throw UsageError(description: "\(flag) needs a non-empty value") }
        return next
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

    private static func choice<Choice: RawRepresentable & CaseIterable>(of flag: String, from rest: inout [String])
        throws(UsageError) -> Choice where Choice.RawValue == String
    {
        let text = try value(of: flag, from: &rest)
        guard let choice = Choice(rawValue: text) else {
            let choices = Choice.allCases.map(\.rawValue).joined(separator: "|")
            throw UsageError(description: "\(flag) takes \(choices), got '\(text)'")
        }
        return choice
    }
}
