import NowETL
import Testing

/// nowetl's command line: what parses, to what, and what is a usage error (exit 64).
@Suite(.timeLimit(.minutes(5))) struct CLIArgumentsTests {
    static func run(_ build: (inout NowETLArguments.RunOptions) -> Void) -> NowETLArguments {
        var options = NowETLArguments.RunOptions(pipeline: "p.yaml")
        build(&options)
        return .run(options)
    }

    static let good: [([String], NowETLArguments)] = [
        (["--help"], .help), (["-h"], .help), (["help"], .help), (["run", "p.yaml", "--help"], .commandHelp("run")),
        (["--version"], .version), (["version"], .version),
        (["validate", "p.yaml"], .validate(pipeline: "p.yaml")),
        (["validate", "p.yaml", "--online"], .validate(pipeline: "p.yaml", online: true)),
        (["validate", "--online", "p.yaml"], .validate(pipeline: "p.yaml", online: true)),
        (["run", "p.yaml"], run { _ in }),
        (["run", "p.yaml", "--table", "incident", "--table", "problem"], run { $0.tables = ["incident", "problem"] }),
        (["run", "p.yaml", "--summary-json", "out/s.json"], run { $0.summaryJSON = "out/s.json" }),
        (["run", "p.yaml", "--log-format", "json"], run { $0.logFormat = .json }),
        (["run", "p.yaml", "--log-level", "debug"], run { $0.logLevel = .debug }),
        (
            ["run", "p.yaml", "--progress", "off", "--keep-going"],
            run {
                $0.progress = .off
                $0.keepGoing = true
            }
        ),
        (["preview", "p.yaml"], .preview(NowETLArguments.PreviewOptions(pipeline: "p.yaml"))),
        (
            ["preview", "p.yaml", "--table", "incident", "--rows", "5"],
            {
                var options = NowETLArguments.PreviewOptions(pipeline: "p.yaml")
                options.table = "incident"
                options.rows = 5
                return .preview(options)
            }()
        ),
        (
            ["discover", "--instance", "https://acme.service-now.com", "--table", "incident"],
            .discover(NowETLArguments.DiscoverOptions(instance: "https://acme.service-now.com", table: "incident"))
        ),
        (["run", "p.yaml", "--full-refresh"], run { $0.fullRefresh = true }),
        (["state", "show", "p.yaml"], .state(.init(.show, pipeline: "p.yaml"))),
        (
            ["state", "show", "p.yaml", "--table", "incident", "--format", "json"],
            .state(.init(.show, pipeline: "p.yaml", table: "incident", format: .json))
        ),
        (["state", "show", "p.yaml", "--format", "text"], .state(.init(.show, pipeline: "p.yaml"))),
        (
            ["state", "set", "p.yaml", "--table", "incident", "--cursor", "2026-11-30 23:59:59"],
            .state(.init(.set(cursor: "2026-11-30 23:59:59"), pipeline: "p.yaml", table: "incident"))
        ),
        (
            ["state", "set", "p.yaml", "--cursor", "2024-02-29 00:00:00", "--table", "incident"],
            .state(.init(.set(cursor: "2024-02-29 00:00:00"), pipeline: "p.yaml", table: "incident"))
        ),
        (["state", "reset", "p.yaml"], .state(.init(.reset, pipeline: "p.yaml"))),
        (
            ["state", "reset", "p.yaml", "--table", "problem"],
            .state(.init(.reset, pipeline: "p.yaml", table: "problem"))
        ),
        (["state", "set", "p.yaml", "--help"], .commandHelp("state set")),
    ]

    @Test(arguments: good) func goodCommandLinesParse(_ arguments: [String], _ expected: NowETLArguments) throws {
        #expect(try NowETLArguments.parse(arguments) == expected)
    }

    /// A bad command line, the command the error is about ("" for nowetl itself) and the message.
    static let bad: [([String], String, String)] = [
        (
            [], "",
            "missing command: run, merge, validate, preview, discover, init, state, reconcile, schema, completion, "
                + "manpage or version"
        ),
        (
            ["export", "p.yaml"], "",
            "unknown command 'export'; use run, merge, validate, preview, discover, init, "
                + "state, reconcile, schema, completion, manpage or version"
        ),
        (["run"], "run", "missing argument PIPELINE (the pipeline file)"),
        (["run", "--table", "incident"], "run", "missing argument PIPELINE (the pipeline file)"),
        (["run", "p.yaml", "--table"], "run", "--table needs a value"),
        (["run", "p.yaml", "--table", "--keep-going"], "run", "--table needs a value"),
        (["run", "p.yaml", "--log-format", "xml"], "run", "--log-format takes text|json, got 'xml'"),
        (["run", "p.yaml", "--progress", "yes"], "run", "--progress takes auto|on|off, got 'yes'"),
        (["run", "p.yaml", "--log-level", "trace"], "run", "--log-level takes debug|info|warning|error, got 'trace'"),
        (["run", "p.yaml", "other.yaml"], "run", "unexpected argument 'other.yaml'"),
        (["validate"], "validate", "missing argument PIPELINE (the pipeline file)"),
        (["validate", "a.yaml", "b.yaml"], "validate", "unexpected argument 'b.yaml'"),
        (["preview", "p.yaml", "--rows", "0"], "preview", "--rows needs a number in 1…100000, got '0'"),
        (["preview", "p.yaml", "--rows", "ten"], "preview", "--rows needs a number in 1…100000, got 'ten'"),
        (["discover", "--table", "incident"], "discover", "missing --instance URL"),
        (["discover", "--instance", "https://a.service-now.com"], "discover", "missing --table T"),
        (["state"], "state", "missing subcommand: show, set or reset"),
        (["state", "p.yaml"], "state", "unknown subcommand 'p.yaml'; use show, set or reset"),
        (["state", "--table", "incident"], "state", "missing subcommand: show, set or reset"),
        (["state", "clear", "p.yaml"], "state", "unknown subcommand 'clear'; use show, set or reset"),
        (["state", "show"], "state show", "missing argument PIPELINE (the pipeline file)"),
        (["state", "show", "p.yaml", "--format", "yaml"], "state show", "--format takes text|json, got 'yaml'"),
        (["state", "show", "p.yaml", "--cursor", "2026-11-30 00:00:00"], "state show", "unknown option '--cursor'"),
        (["state", "show", "p.yaml", "other.yaml"], "state show", "unexpected argument 'other.yaml'"),
        (["state", "set", "p.yaml", "--cursor", "2026-11-30 00:00:00"], "state set", "missing --table T"),
        (
            ["state", "set", "p.yaml", "--table", "incident"], "state set",
            "missing --cursor \"YYYY-MM-DD HH:MM:SS\""
        ),
        (["state", "set", "p.yaml", "--table", "incident", "--cursor"], "state set", "--cursor needs a value"),
        (
            ["state", "set", "p.yaml", "--table", "incident", "--format", "json"], "state set",
            "unknown option '--format'"
        ),
        (["state", "reset", "p.yaml", "--cursor", "2026-11-30 00:00:00"], "state reset", "unknown option '--cursor'"),
        (["state", "reset", "p.yaml", "--table"], "state reset", "--table needs a value"),
    ]

    static let badCursors = [
        "2026-11-30", "2026-11-30T00:00:00", "2026-11-30 00:00:00Z", "2026-11-31 00:00:00", "2026-11-30 24:00:00",
        "2026-11-30 00:00:60", "30.11.2026 00:00:00", "yesterday", " 2026-11-30 00:00:00",
    ]

    @Test(arguments: badCursors) func aCursorThatIsNotATableAPIDateTimeIsAUsageError(_ cursor: String) {
        #expect(
            throws: NowETLArguments.UsageError(
                description: "--cursor needs a UTC date-time YYYY-MM-DD HH:MM:SS (quoted), got '\(cursor)'",
                command: "state set")
        ) {
            try NowETLArguments.parse(["state", "set", "p.yaml", "--table", "incident", "--cursor", cursor])
        }
    }

    @Test(arguments: bad) func badCommandLinesAreUsageErrors(
        _ arguments: [String], _ command: String, _ message: String
    ) {
        #expect(throws: NowETLArguments.UsageError(description: message, command: command)) {
            try NowETLArguments.parse(arguments)
        }
        #expect(NowETLArguments.UsageError(description: message).exitCode == 64)
    }

    @Test func helpListsTheCommandsAndEveryExitCode() {
        for command in [
            "nowetl run", "nowetl validate", "nowetl preview", "nowetl discover", "nowetl state show",
            "nowetl state set", "nowetl state reset", "--full-refresh", "--version",
        ] {
            #expect(NowETLArguments.usage.contains(command))
        }
        for code in [
            "0  ok", "1  failed", "2  finished", "64  usage", "69 instance unreachable", "73  init", "75 temporary",
            "77 authentication", "78  configuration",
        ] {
            #expect(NowETLArguments.usage.contains(code), "help lacks '\(code)'")
        }
    }
}
