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
        (["--help"], .help), (["-h"], .help), (["help"], .help), (["run", "p.yaml", "--help"], .help),
        (["--version"], .version),
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
    ]

    @Test(arguments: good) func goodCommandLinesParse(_ arguments: [String], _ expected: NowETLArguments) throws {
        #expect(try NowETLArguments.parse(arguments) == expected)
    }

    static let bad: [([String], String)] = [
        ([], "missing command"),
        (["export", "p.yaml"], "unknown command 'export'"),
        (["run"], "run needs a PIPELINE file"),
        (["run", "--table", "incident"], "run needs a PIPELINE file"),
        (["run", "p.yaml", "--table"], "--table needs a value"),
        (["run", "p.yaml", "--table", "--keep-going"], "--table needs a value"),
        (["run", "p.yaml", "--log-format", "xml"], "--log-format takes text|json, got 'xml'"),
        (["run", "p.yaml", "--progress", "yes"], "--progress takes auto|on|off, got 'yes'"),
        (["run", "p.yaml", "--log-level", "trace"], "--log-level takes debug|info|warning|error, got 'trace'"),
        (["run", "p.yaml", "--tables", "x"], "unknown option '--tables' for run"),
        (["run", "p.yaml", "other.yaml"], "unexpected argument 'other.yaml' for run"),
        (["validate"], "validate needs a PIPELINE file"),
        (["validate", "a.yaml", "b.yaml"], "unexpected argument 'b.yaml' for validate"),
        (["preview", "p.yaml", "--rows", "0"], "--rows needs a number in 1…100000, got '0'"),
        (["preview", "p.yaml", "--rows", "ten"], "--rows needs a number in 1…100000, got 'ten'"),
        (["discover", "--table", "incident"], "discover needs --instance URL"),
        (["discover", "--instance", "https://a.service-now.com"], "discover needs --table T"),
    ]

    @Test(arguments: bad) func badCommandLinesAreUsageErrors(_ arguments: [String], _ message: String) {
        #expect(throws: NowETLArguments.UsageError(description: message)) {
            try NowETLArguments.parse(arguments)
        }
        #expect(NowETLArguments.UsageError(description: message).exitCode == 64)
    }

    @Test func helpListsTheCommandsAndEveryExitCode() {
        for command in ["nowetl run", "nowetl validate", "nowetl preview", "nowetl discover", "--version"] {
            #expect(NowETLArguments.usage.contains(command))
        }
        for code in [
            "0  ok", "1  failed", "2  finished", "64  usage", "69 instance unreachable", "75  temporary",
            "77 authentication", "78  configuration",
        ] {
            #expect(NowETLArguments.usage.contains(code), "help lacks '\(code)'")
        }
    }
}
