import Foundation
import NowETL
import NowSimTesting
import Testing

/// `nowetl completion bash|zsh|fish` and `nowetl manpage`, checked by the shells and by groff and man.
@Suite(.timeLimit(.minutes(5))) struct CLICompletionTests {
    /// What `nowetl ARGUMENTS` prints on stdout (exit 0 expected).
    static func printed(_ arguments: [String]) async -> String {
        let (code, captured) = await InProcessNowETL.run(arguments)
        #expect(code == 0, "\(arguments): \(captured.standardError)")
        return captured.standardOutput
    }

    @Test func bashRegistersTheCompletionAndCompletesCommandsOptionsChoicesAndFiles() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let path = try scripts.write(await Self.printed(["completion", "bash"]), to: "nowetl.bash")
        try scripts.write("version: 1\n", to: "pipeline.yaml")

        let registered = try await scripts.bash("source '\(path)' && complete -p nowetl")
        #expect(registered.status == 0, "\(registered.output)")
        #expect(registered.stdoutText.contains("-F _nowetl") && registered.stdoutText.hasSuffix("nowetl\n"))

        let complete = { (words: [String]) in
            try await scripts.bashCompletions(script: path, function: "_nowetl", words: words)
        }
        #expect(try await complete(["nowetl", "ru"]) == ["run"])
        #expect(try await complete(["nowetl", "re"]) == ["reconcile"])
        #expect(Set(try await complete(["nowetl", "state", ""])) == ["show", "set", "reset"])
        #expect(try await complete(["nowetl", "run", "p.yaml", "--log-f"]) == ["--log-format"])
        #expect(try await complete(["nowetl", "run", "--log-format", ""]) == ["text", "json"])
        #expect(try await complete(["nowetl", "run", "--log-format", "=", "j"]) == ["json"])
        #expect(try await complete(["nowetl", "run", "--progress", "o"]) == ["on", "off"])
        #expect(try await complete(["nowetl", "state", "show", "p.yaml", "--fo"]) == ["--format"])
        #expect(try await complete(["nowetl", "state", "set", "p.yaml", "--c"]) == ["--cursor"])
        #expect(try await complete(["nowetl", "run", "pipe"]) == ["pipeline.yaml"])
        #expect(try await complete(["nowetl", "run", "p.yaml", "--summary-json", "pipe"]) == ["pipeline.yaml"])
        #expect(try await complete(["nowetl", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await complete(["nowetl", "--v"]) == ["--version"])
        // A table name is not a file name: nothing to offer.
        #expect(try await complete(["nowetl", "run", "--table", "pipe"]) == [])
        // Options of one command only.
        #expect(!(try await complete(["nowetl", "validate", "p.yaml", "--"])).contains("--shard"))
        #expect((try await complete(["nowetl", "validate", "p.yaml", "--"])).contains("--online"))
    }

    @Test func zshParsesItsScript() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let script = await Self.printed(["completion", "zsh"])
        #expect(script.hasPrefix("#compdef nowetl\n"))
        #expect(script.contains("'--log-format=[text\\: key=value lines (default)]:F:(text json)'"))
        let parsed = try await scripts.zshParses(try scripts.write(script, to: "_nowetl"))
        #expect(parsed.status == 0 && parsed.output.isEmpty, "\(parsed.output)")
        // Loaded the way a user's shell does (compinit, the file on $fpath), it registers for nowetl.
        let loaded = try await Subprocess.run(
            Subprocess.tool("zsh"),
            [
                "-f", "-c",
                "fpath=(\(scripts.directory.path) $fpath); autoload -Uz compinit; compinit -u -D; "
                    + "print -r -- $_comps[nowetl]",
            ])
        #expect(loaded.status == 0 && loaded.stdoutText == "_nowetl\n", "\(loaded.output)")
    }

    @Test func fishParsesItsScriptAndCompletesChoices() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let path = try scripts.write(await Self.printed(["completion", "fish"]), to: "nowetl.fish")
        let parsed = try await scripts.fishParses(path)
        #expect(parsed.status == 0 && parsed.output.isEmpty, "\(parsed.output)")
        #expect(try await scripts.fishCompletions(script: path, line: "nowetl run --log-format ") == ["json", "text"])
        let commands = try await scripts.fishCompletions(script: path, line: "nowetl ")
        #expect(commands.contains("run") && commands.contains("state") && commands.contains("completion"))
        #expect(
            Set(try await scripts.fishCompletions(script: path, line: "nowetl state ")) == ["show", "set", "reset"])
        let options = try await scripts.fishCompletions(script: path, line: "nowetl state set p.yaml --")
        #expect(options.contains("--cursor") && !options.contains("--format"), "\(options)")
    }

    @Test func theManPageRendersWithoutWarningsAndCarriesEverything() async throws {
        let scripts = try ShellScripts()
        defer { scripts.remove() }
        let page = await Self.printed(["manpage"])
        #expect(page.contains(".TH NOWETL 1 "))
        let path = try scripts.write(page, to: "nowetl.1")
        let groff = try await scripts.groffWarnings(path)
        #expect(groff.status == 0 && groff.output.isEmpty, "groff: \(groff.output)")
        let man = try await scripts.manRendering(path)
        #expect(man.status == 0, "\(man.output)")
        let text = man.stdoutText
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO",
        ] {
            #expect(text.contains("\n\(section)\n"), "no \(section) section")
        }
        let program = NowETLArguments.program
        for (path, command) in program.root.descendants {
            #expect(text.contains("   \(program.fullName(path))\n"), "no section for \(program.fullName(path))")
            for option in command.options {
                #expect(text.contains("       \(option.label)\n"), "\(option.label) of \(program.fullName(path))")
            }
        }
        // A code is shorter than the tag indent, so its text follows on the same line.
        for entry in NowETLExitCode.documented { #expect(text.contains("\n       \(entry.code) ")) }
        for variable in ["SN_USER", "SN_PASSWORD", "HTTPS_PROXY", "NO_PROXY"] { #expect(text.contains(variable)) }
        #expect(text.contains("JOB_COMPLETION_INDEX") && text.contains("old → new"))
    }
}
