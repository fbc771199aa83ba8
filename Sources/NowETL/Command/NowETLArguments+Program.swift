import ArgumentKit

extension NowETLArguments {
    /// nowetl's command line as one table: ``parse(_:)`` parses with it, and `--help`, the short usage
    /// of a usage error, `nowetl manpage` and `nowetl completion` are generated from it.
    public static let program = ProgramSpec(
        root: CommandSpec(
            "nowetl", abstract: "export ServiceNow tables to CSV, XML and JSON files, as a pipeline file declares",
            discussion: """
                A pipeline file (YAML) names the instance, the tables and their fields, filters and \
                outputs; `nowetl validate` checks it, `nowetl run` exports it. Logs go to stderr, results \
                to stdout; ${VAR} in the pipeline comes from --var, the environment or a .env file beside it. \
                Relative paths in a pipeline file are relative to its directory.
                """,
            options: [.flag("--version", help: "print nowetl's version")],
            subcommands: [
                runCommand, mergeCommand, validateCommand, previewCommand, discoverCommand, initCommand,
                stateCommand, reconcileCommand, schemaCommand, completionCommand, manpageCommand,
                CommandSpec("version", abstract: "print nowetl's version (as --version)"),
            ]),
        version: nowetlVersion,
        exitCodes: NowETLExitCode.documented.map { ProgramSpec.Entry($0.code, $0.meaning) },
        exitCodesHelp: NowETLExitCode.helpText,
        environment: [
            .init(
                "SN_USER, SN_PASSWORD",
                "The credentials of discover and init (a user that may read sys_dictionary and sys_db_object). "
                    + "A pipeline file names its own, usually as ${VAR}."),
            .init(
                "SN_CLIENT_ID, SN_CLIENT_SECRET",
                "An OAuth client's credentials (client_credentials grant) for discover and init, used instead of "
                    + "SN_USER and SN_PASSWORD when both are set; init then writes an oauth: block."),
            .init(
                "HTTPS_PROXY, https_proxy, NO_PROXY, no_proxy",
                "Without source.proxy in the pipeline, the proxy for the instance and the hosts that bypass it."),
            .init(
                "${VAR}",
                "Any variable a pipeline file names as ${VAR}, unless --var NAME=VALUE sets it; the .env file "
                    + "beside the pipeline gives the ones the environment does not."),
        ],
        files: [
            .init(
                "DIR/.env",
                "NAME=VALUE lines beside the pipeline file DIR/P.yaml: values for its ${NAME}s (chmod 600; "
                    + "a value is never printed)."),
            .init("output_dir/manifest.json", "What the last committed run wrote: files, rows, SHA-256s."),
            .init(
                "output_dir/.nowetl/state.json",
                "Where the incremental tables stand (nowetl state shows, sets and resets it)."),
            .init(
                "output_dir/.nowetl/shards", "The shards of a sharded run (run --shard I/N) until nowetl merge."),
        ],
        seeAlso: ["nowsim(1)"])

    /// `--table T` with its help.
    private static func tableOption(_ help: String, repeatable: Bool = false, required: Bool = false) -> OptionSpec {
        .value("--table", "T", help: help, repeatable: repeatable, required: required)
    }

    /// `--output-dir` and `--var`: every command that loads a pipeline file takes them.
    private static let overrideOptions: [OptionSpec] = [
        .value(
            "--output-dir", "DIR",
            help: "use DIR instead of the pipeline's output_dir (relative to the working directory)",
            completion: .directory),
        .value(
            "--var", "NAME=VALUE",
            help: "the value of ${NAME} in the pipeline file, over the environment's and the .env file's "
                + "(repeatable; a later one of the same name wins)",
            repeatable: true),
    ]

    private static let pipelineArgument = ArgumentSpec("PIPELINE", help: "the pipeline file")

    private static let summaryJSONOption = OptionSpec.value(
        "--summary-json", "PATH", help: "also write the summary as JSON to PATH (atomically)", completion: .file)

    /// `--log-format`, `--log-level` and `--progress`, as run and merge take them.
    private static let loggingOptions: [OptionSpec] = [
        .value(
            "--log-format", "F", help: "text: key=value lines (default); json: one JSON object per line",
            choices: LogFormat.allCases.map(\.rawValue)),
        .value(
            "--log-level", "L", help: "the least severe level logged (default info)",
            choices: LogLevel.allCases.map(\.rawValue)),
        .value(
            "--progress", "P",
            help: "auto: a live line on a terminal, a log line every 10 s otherwise; on: always the live line; "
                + "off: no progress",
            choices: ProgressMode.allCases.map(\.rawValue)),
    ]

    static let runCommand = CommandSpec(
        "run", abstract: "export the pipeline's tables, write manifest.json, print a summary on stdout",
        discussion: """
            Before the first page, every table, field, column path and filter field is checked against the \
            instance's sys_dictionary (inherited fields and dot-walks through references included): an \
            unknown name is exit 78 with file:line:col, and nothing is written. The user needs read access \
            to sys_db_object and sys_dictionary (otherwise exit 77). An instance output's target then gets \
            its pre-flight (fields, types, choice values, business rules, notifications, flows): exit 78 \
            with the list unless on_schema_mismatch: warn / side_effects: accept allow what it found.

            Logs go to stderr; ${VAR} in the pipeline comes from --var or the environment. Without \
            source.proxy, HTTPS_PROXY/https_proxy and NO_PROXY/no_proxy choose the proxy.
            """,
        arguments: [pipelineArgument],
        options: [
            tableOption("run only table T (repeatable); the pipeline's order is kept", repeatable: true),
            summaryJSONOption,
            .value(
                "--metrics-file", "PATH",
                help: "also write the run's metrics to PATH (atomically) in the Prometheus text format, for "
                    + "node_exporter's textfile collector; written when the run fails too, with its exit code",
                completion: .file),
        ] + loggingOptions + [
            .flag(
                "--keep-going",
                help: "run the remaining tables after one fails and commit those that succeeded (default: stop, "
                    + "and commit nothing)"),
            .flag(
                "--restart",
                help: "fetch everything again: discard what an interrupted run left in the run journal (default: "
                    + "resume from it)"),
            .flag(
                "--full-refresh",
                help: "incremental tables read everything their filter matches again, as on their first run; the "
                    + "committed run replaces their state, and their database copies (mode: merge) are replaced "
                    + "in the run's transaction"),
            .flag(
                "--prune",
                help: "database outputs in mode: merge remove the rows the source no longer has under the filter "
                    + "(or mark them, deletes: soft), whatever their prune: says"),
            .value(
                "--shard", "I/N",
                help: "extract only shard I (0-based, 0…N-1: Kubernetes' JOB_COMPLETION_INDEX) of N: the I-th of N "
                    + "sys_id ranges of every table, into output_dir/.nowetl/shards (a volume every shard and the "
                    + "merge share); nothing is published until `nowetl merge`. A rerun resumes. Not with "
                    + "--keep-going (exit 64), incremental tables or instance outputs (78)."),
            .value(
                "--run-key", "KEY",
                help: "with --shard: the sharded run this shard belongs to (e.g. the night's date, the same for "
                    + "every shard and the merge); a shard journal of another key is started over, and `merge "
                    + "--run-key KEY` takes only shards of KEY (an older night's shard is refused, exit 1)"),
        ] + overrideOptions)

    static let mergeCommand = CommandSpec(
        "merge", abstract: "publish a sharded run: join every shard's parts into the files one run writes",
        discussion: """
            Run it after every `run --shard I/N` of the same pipeline file ended. It checks the shards' \
            manifests — every index of 0…N-1 present and ok, one N, the same pipeline file (SHA-256), the \
            same tables and plans, every spill part matching its SHA-256 — then joins them in sys_id order \
            and commits as a run does: the same files, manifest.json, database loads, atomically; the \
            shards' state is removed with the commit.

            A shard missing, failed or damaged: exit 1 naming it; another N, pipeline or plan: 78; a shard \
            still running (or another run on output_dir): 75. Nothing is published then.
            """,
        arguments: [ArgumentSpec("PIPELINE", help: "the pipeline file (byte for byte the one the shards ran)")],
        options: [summaryJSONOption] + loggingOptions + [
            .value(
                "--run-key", "KEY",
                help: "merge only shards run with --run-key KEY (without it: shards run without one); a shard of "
                    + "another key is refused as not yet run (exit 1)")
        ] + overrideOptions)

    static let validateCommand = CommandSpec(
        "validate",
        abstract: "check the pipeline file exactly as run would load it (no requests)",
        discussion: """
            Prints `ok: N tables, M outputs`; a mistake is exit 78 with file:line:col. With --online the \
            names are also checked against the instance's dictionary, as run does, and a table order other \
            than the pipeline's is printed with its reasons, and instance outputs get run's pre-flight of \
            their target (what it allows is printed as pre-flight: lines); still no page is fetched and no \
            file written.
            """,
        arguments: [pipelineArgument],
        options: [
            .flag("--online", help: "also check the names against the instance's dictionary, as run does")
        ] + overrideOptions)

    static let previewCommand = CommandSpec(
        "preview", abstract: "print the first rows of a table as the pipeline would write them",
        discussion: "No file is written; the rows are extracted and transformed as run does.",
        arguments: [pipelineArgument],
        options: [
            tableOption("the table to preview (default: the pipeline's first)"),
            .value("--rows", "N", help: "how many rows, 1…100000 (default 10); no file is written"),
        ] + overrideOptions)

    static let discoverCommand = CommandSpec(
        "discover", abstract: "print a table's fields and types (sys_dictionary) as pipeline YAML",
        discussion: """
            The credentials come from the sign-in options, else from SN_USER and SN_PASSWORD in the \
            environment, or an OAuth client's from SN_CLIENT_ID and SN_CLIENT_SECRET (client credentials); the \
            user needs read access to sys_dictionary and sys_db_object. Secrets are read from files or the \
            environment, never from the command line (others see it in ps).
            """,
        options: [
            .value(
                "--instance", "URL", help: "https://… (plain http only to 127.0.0.1 / localhost)", required: true),
            tableOption("the table whose fields (with inherited ones) are printed as YAML", required: true),
        ] + signInOptions)

    /// `discover`'s and `init`'s way to sign in without the environment.
    private static let signInOptions: [OptionSpec] = [
        .value("--user", "NAME", help: "sign in as NAME (basic authentication; the password from --password-file)"),
        .value(
            "--password-file", "PATH", help: "the password, read from PATH (else SN_PASSWORD)", completion: .file),
        .value("--client-id", "ID", help: "sign in as the OAuth client ID (client credentials)"),
        .value(
            "--client-secret-file", "PATH", help: "the client secret, read from PATH (else SN_CLIENT_SECRET)",
            completion: .file),
    ]

    static let initCommand = CommandSpec(
        "init", abstract: "write a starter pipeline for tables, from the instance's dictionary",
        discussion:
            "The credentials come from the sign-in options or the environment, as for discover (SN_USER and "
            + "SN_PASSWORD, or SN_CLIENT_ID and SN_CLIENT_SECRET); the file names them as given (a user or client id, "
            + "the absolute path of a secret file) or as ${VAR}, the other way to sign in commented beside it.",
        options: [
            .value(
                "--instance", "URL", help: "https://… (plain http only to 127.0.0.1 / localhost)", required: true),
            tableOption("a table of the pipeline (repeatable, at least one)", repeatable: true, required: true),
            .value("--output", "FILE", help: "write the pipeline to FILE (default: stdout)", completion: .file),
            .flag("--force", help: "replace an existing --output FILE"),
        ] + signInOptions)

    static let stateCommand = CommandSpec(
        "state", abstract: "show, set or reset where the incremental tables (mode: incremental) stand",
        discussion: """
            The state is output_dir/.nowetl/state.json; no request is made. set and reset take the \
            output_dir lock (exit 75 while a run holds it), first finish a commit a crashed run left, \
            remove the table's run journal and print old → new. A state file that does not parse is exit 78.
            """,
        subcommands: [
            CommandSpec(
                "show",
                abstract: "print per incremental table: cursor field, cursor, sys_id, signpost, last run id, rows, "
                    + "deletions cursor",
                arguments: [pipelineArgument],
                options: [
                    tableOption("only this incremental table (default: every one)"),
                    .value(
                        "--format", "F", help: "text: a block per table (default); json: one object, for scripts",
                        choices: StateOptions.Format.allCases.map(\.rawValue)),
                ] + overrideOptions),
            CommandSpec(
                "set", abstract: "make the next run of a table read from a cursor",
                discussion: """
                    The next run of --table T reads the rows whose cursor is >= C (UTC, the whole second C); \
                    the rest of its state is kept. It takes the output_dir lock (exit 75 while a run holds \
                    it) and prints old → new.
                    """,
                arguments: [pipelineArgument],
                options: [
                    tableOption("the incremental table", required: true),
                    .value(
                        "--cursor", "\"YYYY-MM-DD HH:MM:SS\"",
                        help: "the cursor to read from: a UTC date-time, quoted", required: true),
                ] + overrideOptions),
            CommandSpec(
                "reset", abstract: "forget the state, so the next run reads the whole table, as its first run did",
                discussion: """
                    It takes the output_dir lock (exit 75 while a run holds it), removes the table's run \
                    journal and prints old → new.
                    """,
                arguments: [pipelineArgument],
                options: [tableOption("only this incremental table (default: every one)")] + overrideOptions),
        ])

    static let reconcileCommand = CommandSpec(
        "reconcile", abstract: "prove the pipeline's instance output equals its source, table by table",
        discussion: """
            The source is the pipeline's source; the target its instance output. Per table: rows on both \
            sides, sys_ids missing and extra on the target, and rows whose stored values differ (a SHA-256 \
            per row over every dictionary field, system fields included), with the differing fields of the \
            first 20 shown. Both sides are read in sys_id order, a page at a time. After a migration with \
            coalesce:, the maps of the last committed run (output_dir/mapping/<table>.jsonl) pair a coalesced \
            table's records and references compare in their mapped form; the target's own records are \
            listed, not extra. Exit 0 when every table is equal, 1 when one differs.
            """,
        arguments: [pipelineArgument],
        options: [
            tableOption("reconcile only table T (repeatable); the pipeline's order is kept", repeatable: true),
            .value("--report", "PATH", help: "also write the report as JSON to PATH (atomically)", completion: .file),
        ] + overrideOptions)

    static let schemaCommand = CommandSpec(
        "schema", abstract: "print the pipeline file's JSON Schema (for editors and validators), or its reference",
        discussion: """
            The schema lists every key of a pipeline file with its type, default and allowed values; editors \
            with the YAML language server use it through a first line `# yaml-language-server: \
            $schema=pipeline.schema.json`. It checks keys and types only: `nowetl validate` checks the rest.
            """,
        options: [
            .value(
                "--format", "F", help: "json: the JSON Schema (default); markdown: the pipeline-file reference",
                choices: NowETLArguments.SchemaFormat.allCases.map(\.rawValue))
        ])

    static let completionCommand = CommandSpec.completion(program: "nowetl")

    static let manpageCommand = CommandSpec.manpage(program: "nowetl")
}
