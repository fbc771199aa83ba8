import ArgumentKit
import NowETL
import Testing

/// The forms of a command line users of swift-argument-parser tools expect: `--opt=value`, options
/// before the positional argument, `--`, per-command help, suggestions for a mistyped name.
@Suite(.timeLimit(.minutes(2))) struct CLIParsingFormsTests {
    static func run(_ pipeline: String = "p.yaml", _ build: (inout NowETLArguments.RunOptions) -> Void)
        -> NowETLArguments
    {
        var options = NowETLArguments.RunOptions(pipeline: pipeline)
        build(&options)
        return .run(options)
    }

    static let forms: [([String], NowETLArguments)] = [
        // --opt=value as --opt value.
        (
            ["run", "p.yaml", "--table=incident", "--progress=off", "--log-format=json", "--summary-json=s.json"],
            run {
                $0.tables = ["incident"]
                $0.progress = .off
                $0.logFormat = .json
                $0.summaryJSON = "s.json"
            }
        ),
        (["run", "p.yaml", "--var=A=b=c"], run { $0.overrides.variables = ["A": "b=c"] }),
        // Options before the pipeline file, and around it.
        (["run", "--table", "x", "p.yaml"], run { $0.tables = ["x"] }),
        (
            ["run", "--table", "a", "p.yaml", "--table", "b", "--keep-going"],
            run {
                $0.tables = ["a", "b"]
                $0.keepGoing = true
            }
        ),
        (
            ["validate", "--online", "--output-dir", "o", "p.yaml"],
            .validate(pipeline: "p.yaml", online: true, overrides: .init(outputDirectory: "o"))
        ),
        // -- ends the options: a pipeline file whose name starts with a dash.
        (["run", "--table", "a", "--", "-x.yaml"], run("-x.yaml") { $0.tables = ["a"] }),
        (["validate", "--", "--online"], .validate(pipeline: "--online")),
        (["run", "--", "--help"], run("--help") { _ in }),
        // A value that starts with one dash is a value ("-" is an argument).
        (["run", "-", "--shard", "0/2"], run("-") { $0.shard = try? Shard.parse("0/2") }),
        // The last of a non-repeatable option wins; a repeatable one keeps every value in order.
        (["run", "p.yaml", "--progress", "on", "--progress=off"], run { $0.progress = .off }),
        (
            ["reconcile", "p.yaml", "--table=b", "--table", "a"],
            .reconcile(.init(pipeline: "p.yaml", tables: ["b", "a"]))
        ),
        // Per-command help, in every spelling.
        (["run", "--help"], .commandHelp("run")),
        (["run", "-h", "--bogus"], .commandHelp("run")),
        (["help", "run"], .commandHelp("run")),
        (["help", "state", "set"], .commandHelp("state set")),
        (["state", "--help"], .commandHelp("state")),
        (["help", "state"], .commandHelp("state")),
        (["state", "show", "-h"], .commandHelp("state show")),
        (["discover", "--help"], .commandHelp("discover")),
        (["completion", "zsh"], .completion(.zsh)),
        (["manpage"], .manpage),
        (
            ["init", "--table", "incident", "--instance=https://a.service-now.com", "--table", "problem", "--force"],
            .initPipeline(
                .init(instance: "https://a.service-now.com", tables: ["incident", "problem"], output: nil, force: true))
        ),
    ]

    @Test(arguments: forms) func eachFormParses(_ arguments: [String], _ expected: NowETLArguments) throws {
        #expect(try NowETLArguments.parse(arguments) == expected)
    }

    static let mistakes: [([String], String, String)] = [
        (["run", "p.yaml", "--tables", "x"], "run", "unknown option '--tables'; did you mean --table?"),
        (["run", "p.yaml", "--progres", "off"], "run", "unknown option '--progres'; did you mean --progress?"),
        (["run", "p.yaml", "--sum", "s.json"], "run", "unknown option '--sum'; did you mean --summary-json?"),
        (["run", "p.yaml", "--frobnicate"], "run", "unknown option '--frobnicate'"),
        (["rnu", "p.yaml"], "", "unknown command 'rnu'; did you mean run?"),
        (["state", "shwo", "p.yaml"], "state", "unknown subcommand 'shwo'; did you mean show?"),
        (["run", "p.yaml", "--keep-going=yes"], "run", "--keep-going takes no value"),
        (["run", "p.yaml", "--table="], "run", "--table needs a non-empty value"),
        (["run", "p.yaml", "--log-format=xml"], "run", "--log-format takes text|json, got 'xml'"),
        (["run", "--", "a.yaml", "-b.yaml"], "run", "unexpected argument '-b.yaml' (after --)"),
        (["run", "p.yaml", "-x"], "run", "unknown option '-x'"),
        (
            ["help", "bogus"], "",
            "unknown command 'bogus'; use run, merge, validate, preview, discover, init, state, "
                + "reconcile, schema, completion, manpage or version"
        ),
        (["help", "run", "extra"], "run", "unexpected argument 'extra' after help"),
        (["completion", "tcsh"], "completion", "SHELL takes bash|zsh|fish, got 'tcsh'"),
        (["completion"], "completion", "missing argument SHELL (bash, zsh or fish)"),
        (["manpage", "x"], "manpage", "unexpected argument 'x'"),
        (["init", "--instance", "https://a.service-now.com"], "init", "missing --table T"),
        (["init", "--table", "incident"], "init", "missing --instance URL"),
        (
            ["run", "p.yaml", "--shard", "0/2", "--keep-going"], "run",
            "--shard and --keep-going do not go together: a shard is merged whole"
        ),
        (
            ["run", "p.yaml", "--var", "1A=b"], "run",
            "--var needs NAME=VALUE with NAME of letters, digits and '_', got '1A'"
        ),
    ]

    @Test(arguments: mistakes) func eachMistakeNamesItsCommand(
        _ arguments: [String], _ command: String, _ message: String
    ) {
        #expect(throws: NowETLArguments.UsageError(description: message, command: command)) {
            try NowETLArguments.parse(arguments)
        }
    }

    /// nowetl parses through the entry point it shares with nowsim (ArgumentKit's
    /// `CommandLineArguments.parse`): help requests, commands and both kinds of mistake — the parser's
    /// and a conversion's, which is reported against the command parsed.
    @Test func parsesThroughTheEntryPointSharedWithNowsim() throws {
        func shared<Arguments: CommandLineArguments>(_: Arguments.Type, _ arguments: [String])
            throws(Arguments.UsageError) -> Arguments
        {
            try Arguments.parse(arguments)
        }
        #expect(try shared(NowETLArguments.self, ["--help"]) == .help)
        #expect(try shared(NowETLArguments.self, ["help", "state", "set"]) == .commandHelp("state set"))
        #expect(try shared(NowETLArguments.self, ["manpage"]) == .manpage)
        #expect(throws: NowETLArguments.UsageError(description: "--table needs a value", command: "run")) {
            try shared(NowETLArguments.self, ["run", "p.yaml", "--table"])
        }
        #expect(
            throws: NowETLArguments.UsageError(
                description: "--run-key names a sharded run: use it with --shard I/N (and merge)", command: "run")
        ) {
            try shared(NowETLArguments.self, ["run", "p.yaml", "--run-key", "k"])
        }
    }

    /// What `nowetl run …` with a mistake prints: one line of why, run's usage and nothing else of the
    /// other commands, exit 64, nothing on stdout.
    @Test func aUsageErrorPrintsOneLineAndThatCommandsUsage() async {
        let (code, captured) = await InProcessNowETL.run(["run", "--tables", "x", "p.yaml"])
        #expect(code == 64)
        #expect(captured.standardOutput.isEmpty)
        let lines = captured.errorLines
        #expect(lines.first == "nowetl run: unknown option '--tables'; did you mean --table?")
        #expect(lines.dropFirst().first == "USAGE:")
        #expect(lines.dropFirst(2).first?.hasPrefix("  nowetl run PIPELINE [--table T]…") == true)
        #expect(lines.last == "See 'nowetl run --help'.")
        #expect(lines.count < 10, "\(captured.standardError)")
        for other in ["nowetl merge", "nowetl state", "EXIT CODES", "--online", "Before the first page"] {
            #expect(!captured.standardError.contains(other), "'\(other)' in a run usage error")
        }
    }

    @Test func aUsageErrorOfASubcommandShowsItsUsage() async {
        let captured = CapturedStreams()
        #expect(await InProcessNowETL.run(["state", "set", "p.yaml", "--table", "t"], streams: captured).code == 64)
        #expect(captured.errorLines.first == "nowetl state set: missing --cursor \"YYYY-MM-DD HH:MM:SS\"")
        #expect(captured.standardError.contains("  nowetl state set PIPELINE --table T --cursor"))
        #expect(!captured.standardError.contains("nowetl state show"))
        #expect(captured.errorLines.last == "See 'nowetl state set --help'.")
    }

    @Test func aMissingCommandListsTheCommands() async {
        let captured = CapturedStreams()
        #expect(await InProcessNowETL.run([], streams: captured).code == 64)
        #expect(captured.errorLines.first?.hasPrefix("nowetl: missing command: run, merge, validate") == true)
        #expect(captured.standardError.contains("  nowetl run|merge|validate|preview|discover|init|state|"))
        #expect(captured.errorLines.last == "See 'nowetl --help'.")
    }
}
