import ArgumentKit
import Foundation
import NowSim
import NowSimTesting
import Testing

/// nowsim's command line as users meet it: per-command help, the forms of options, usage errors with
/// that command's usage, and the completion scripts and man page generated from the same table.
@Suite(.timeLimit(.minutes(5))) struct CommandLineTests {
    private func nowsim(_ arguments: [String], directory: URL? = nil) async throws -> SubprocessResult {
        try await Subprocess.run(NowSimInstance.binaryPath(), arguments, directory: directory, timeout: 120)
    }

    @Test func eachCommandHasItsOwnHelp() async throws {
        for arguments in [["serve", "--help"], ["help", "serve"], ["serve", "--port", "0", "-h"]] {
            let help = try await nowsim(arguments)
            #expect(help.status == 0 && help.stderrText.isEmpty, "\(arguments): \(help.output)")
            let text = help.stdoutText
            #expect(text.hasPrefix("nowsim serve — "), "\(arguments)")
            for phrase in [
                "--table-acl SPEC", "--row-acl SPEC", "--fault SPEC", "rate-limit[:retry-after=S,date=true]",
            ] {
                #expect(text.contains(phrase), "\(arguments): \(phrase)")
            }
            #expect(!text.contains("nowsim import") && !text.contains("EXIT CODES"), "\(arguments)")
        }
        let importHelp = try await nowsim(["import", "--help"])
        #expect(
            importHelp.stdoutText.contains("POST /api/nowsim/import") && !importHelp.stdoutText.contains("--tls-cert"))
        let overview = try await nowsim(["--help"])
        for command in ["serve", "seed", "import", "completion", "manpage"] {
            #expect(overview.stdoutText.contains("  nowsim \(command)"), "\(command) missing from --help")
        }
    }

    @Test func aUsageErrorPrintsOneLineAndThatCommandsUsage() async throws {
        let result = try await nowsim(["serve", "--prot", "0"])
        #expect(result.status == 64)
        let lines = result.stderrText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "nowsim serve: unknown option '--prot'; did you mean --port?")
        #expect(lines.contains("  nowsim serve [--host ADDR] [--port N] [--port-file PATH] [--db PATH] [--seed SPEC]"))
        #expect(result.stderrText.hasSuffix("See 'nowsim serve --help'.\n"))
        #expect(!result.stderrText.contains("nowsim import") && result.stdoutText.isEmpty)
    }

    /// nowsim parses through the entry point it shares with nowetl (ArgumentKit's
    /// `CommandLineArguments.parse`): help requests, commands and both kinds of mistake — the parser's
    /// and a conversion's, which is reported against the command parsed.
    @Test func parsesThroughTheEntryPointSharedWithNowetl() throws {
        func shared<Arguments: CommandLineArguments>(_: Arguments.Type, _ arguments: [String])
            throws(Arguments.UsageError) -> Arguments
        {
            try Arguments.parse(arguments)
        }
        #expect(try shared(NowSimArguments.self, ["-h"]) == .help)
        #expect(try shared(NowSimArguments.self, ["help", "serve"]) == .commandHelp("serve"))
        #expect(try shared(NowSimArguments.self, ["manpage"]) == .manpage)
        for (arguments, message) in [
            (["serve", "--prot", "0"], "unknown option '--prot'; did you mean --port?"),
            (["serve", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        ] {
            let error = #expect(throws: NowSimArguments.UsageError.self) {
                try shared(NowSimArguments.self, arguments)
            }
            #expect(error?.command == "serve" && error?.description == message, "\(arguments)")
        }
    }

    @Test func optionsTakeTheirValueAfterAnEqualsSignAndFilesMayFollowDoubleDash() async throws {
        try await withScratchDirectory { (directory: URL) in
            let xml =
                #"<?xml version="1.0" encoding="UTF-8"?><unload><incident action="INSERT_OR_UPDATE"><sys_id>0123456789abcdef0123456789abcdef</sys_id><number>INC0000001</number></incident></unload>"#
            try Data(xml.utf8).write(to: directory.appendingPathComponent("-dash.xml"))
            let imported = try await nowsim(
                ["import", "--db=db.sqlite", "--user=loader", "--", "-dash.xml"], directory: directory)
            #expect(imported.status == 0, "\(imported.output)")
            #expect(imported.stdoutText.hasPrefix("-dash.xml: imported 1 record"))
            // Options after the files as well.
            let again = try await nowsim(["import", "-dash.xml", "--db", "db.sqlite"], directory: directory)
            #expect(again.status == 64 && again.stderrText.hasPrefix("nowsim import: unknown option '-dash.xml'"))
            let seeded = try await nowsim(["seed", "--seed=incident=3", "--db", "seeded.sqlite"], directory: directory)
            #expect(seeded.status == 0, "\(seeded.output)")
        }
    }

    @Test func completionScriptsParseAndComplete() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let bash = try await nowsim(["completion", "bash"])
        #expect(bash.status == 0)
        let bashPath = try scripts.write(bash.stdoutText, to: "nowsim.bash")
        let registered = try await scripts.bash("source '\(bashPath)' && complete -p nowsim")
        #expect(registered.status == 0 && registered.stdoutText.contains("-F _nowsim"), "\(registered.output)")
        let complete = { (words: [String]) in
            try await scripts.bashCompletions(script: bashPath, function: "_nowsim", words: words)
        }
        #expect(try await complete(["nowsim", "se"]) == ["serve", "seed"])
        #expect(try await complete(["nowsim", "serve", "--tls-c"]) == ["--tls-cert", "--tls-client-ca"])
        #expect(try await complete(["nowsim", "import", "--db", "nowsim.b"]) == ["nowsim.bash"])

        let zsh = try await nowsim(["completion", "zsh"])
        let zshParsed = try await scripts.zshParses(try scripts.write(zsh.stdoutText, to: "_nowsim"))
        #expect(zsh.status == 0 && zshParsed.status == 0 && zshParsed.output.isEmpty, "\(zshParsed.output)")

        let fish = try await nowsim(["completion", "fish"])
        let fishPath = try scripts.write(fish.stdoutText, to: "nowsim.fish")
        let fishParsed = try await scripts.fishParses(fishPath)
        #expect(fish.status == 0 && fishParsed.status == 0 && fishParsed.output.isEmpty, "\(fishParsed.output)")
        let options = try await scripts.fishCompletions(script: fishPath, line: "nowsim serve --thr")
        #expect(options == ["--threads"])
    }

    @Test func theManPageRendersWithoutWarnings() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let page = try await nowsim(["manpage"])
        #expect(page.status == 0 && page.stdoutText.hasPrefix(".\\\""))
        let path = try scripts.write(page.stdoutText, to: "nowsim.1")
        let groff = try await scripts.groffWarnings(path)
        #expect(groff.status == 0 && groff.output.isEmpty, "groff: \(groff.output)")
        let man = try await scripts.manRendering(path)
        #expect(man.status == 0, "\(man.output)")
        for phrase in [
            "NOWSIM(1)", "\nEXIT STATUS\n", "   nowsim serve\n", "       --table-acl SPEC\n", "   nowsim import\n",
            "TMPDIR",
        ] {
            #expect(man.stdoutText.contains(phrase), "\(phrase)")
        }
    }
}
