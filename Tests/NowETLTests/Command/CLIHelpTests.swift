import NowETL
import Testing

/// `nowetl --help` (the overview) and each command's own help: what each one shows, and that the
/// details the old single usage text carried are still in the command they belong to.
@Suite(.timeLimit(.minutes(2))) struct CLIHelpTests {
    /// Every command with phrases of its documentation users rely on.
    static let details: [(String, [String])] = [
        (
            "run",
            [
                "USAGE:\n  nowetl run PIPELINE [--table T]…", "--table T            run only table T (repeatable)",
                "--summary-json PATH", "--metrics-file PATH", "--log-format F", "--log-level L", "--progress P",
                "--keep-going",
                "--restart", "--full-refresh", "--shard I/N", "JOB_COMPLETION_INDEX", "--run-key KEY",
                "--output-dir DIR", "--var NAME=VALUE", "read access to sys_db_object and sys_dictionary",
                "exit 78 with file:line:col", "HTTPS_PROXY/https_proxy and NO_PROXY/no_proxy",
            ]
        ),
        (
            "merge",
            [
                "nowetl merge PIPELINE", "every index of 0…N-1 present and ok", "--run-key KEY",
                "a shard still running (or another run on output_dir): 75", "--summary-json PATH",
            ]
        ),
        ("validate", ["nowetl validate PIPELINE [--online]", "--online", "no page is fetched"]),
        ("preview", ["--rows N", "1…100000 (default 10)", "the pipeline's first"]),
        (
            "discover",
            ["nowetl discover --instance URL --table T", "SN_USER and SN_PASSWORD", "plain http only to 127.0.0.1"]
        ),
        ("init", ["nowetl init --instance URL --table T… [--output FILE] [--force]", "replace an existing --output"]),
        (
            "state",
            [
                "nowetl state show PIPELINE", "nowetl state set PIPELINE --table T --cursor", "old → new", "show",
                "reset",
            ]
        ),
        ("state set", ["--cursor \"YYYY-MM-DD HH:MM:SS\"", "(UTC, the whole second C)", "--table T"]),
        ("state show", ["--format F", "--table T", "deletions cursor"]),
        ("reconcile", ["nowetl reconcile PIPELINE [--table T]… [--report PATH]", "differing fields of the first 20"]),
        ("completion", ["nowetl completion SHELL", "bash, zsh or fish"]),
        ("manpage", ["nowetl manpage", "man -l -"]),
    ]

    /// `text` with every run of spaces and line breaks as one space: a phrase is found however it wraps.
    static func flat(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test(arguments: details) func eachCommandsHelpKeepsItsDetails(_ command: String, _ phrases: [String]) {
        let help = NowETLArguments.help(for: command)
        #expect(help.hasPrefix("nowetl \(command) — "))
        for phrase in phrases {
            #expect(Self.flat(help).contains(Self.flat(phrase)), "'\(phrase)' missing from nowetl \(command) --help")
        }
        #expect(help.contains("-h, --help"))
        #expect(!help.contains("EXIT CODES:"))
    }

    @Test func aCommandsHelpShowsOnlyThatCommand() {
        let run = NowETLArguments.help(for: "run")
        for other in ["nowetl merge", "nowetl validate", "nowetl state", "--report PATH", "--cursor", "--online"] {
            #expect(!run.contains(other), "'\(other)' in nowetl run --help")
        }
        #expect(run.split(separator: "\n").count < NowETLArguments.usage.split(separator: "\n").count)
        let set = NowETLArguments.help(for: "state set")
        #expect(!set.contains("--format") && !set.contains("nowetl state show"))
    }

    @Test func theOverviewListsEveryCommandWithItsSummaryAndTheExitCodes() {
        let usage = NowETLArguments.usage
        for (command, summary) in [
            ("run", "export the pipeline's tables"), ("merge", "publish a sharded run"),
            ("validate", "check the pipeline file"), ("preview", "print the first rows"),
            ("discover", "print a table's fields"), ("init", "write a starter pipeline"),
            ("state", "show, set or reset"), ("reconcile", "prove the pipeline's instance output"),
            ("completion", "shell completion script"), ("manpage", "man page"),
        ] {
            #expect(usage.contains("  \(command) "), "\(command) not listed")
            #expect(usage.contains(summary), "\(command)'s summary missing")
            #expect(usage.contains("  nowetl \(command)"), "\(command)'s usage missing")
        }
        #expect(usage.contains("nowetl --help | --version"))
        #expect(usage.contains(NowETLExitCode.helpText))
        #expect(usage.contains("'nowetl COMMAND --help'"))
        // The details moved into the commands' own help.
        #expect(!usage.contains("JOB_COMPLETION_INDEX") && !usage.contains("differing fields of the first 20"))
    }

    @Test func helpGoesToStandardOutputForEverySpelling() async {
        for arguments in [["run", "--help"], ["help", "run"], ["run", "p.yaml", "-h"]] {
            let captured = CapturedStreams()
            #expect(await InProcessNowETL.run(arguments, streams: captured).code == 0)
            #expect(captured.standardOutput == NowETLArguments.help(for: "run") + "\n", "\(arguments)")
            #expect(captured.standardError.isEmpty)
        }
        let overview = CapturedStreams()
        #expect(await InProcessNowETL.run(["help"], streams: overview).code == 0)
        #expect(overview.standardOutput == NowETLArguments.usage + "\n")
    }

    @Test func everyDocumentedExitCodeIsInTheHelpText() {
        for entry in NowETLExitCode.documented {
            #expect(NowETLExitCode.helpText.contains("\(entry.code) "), "\(entry.code) not in helpText")
        }
        #expect(NowETLExitCode.documented.map(\.code) == [0, 1, 2, 64, 69, 73, 75, 77, 78, 130, 143])
    }
}
