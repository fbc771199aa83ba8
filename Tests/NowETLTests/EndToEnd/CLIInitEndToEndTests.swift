import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// A newcomer's path through the real binaries: `nowetl init` against the real `nowsim`, then the
/// starter pipeline validated offline and online and run — from another working directory, with
/// `--output-dir`, `--var` and a `.env` beside the pipeline.
@Suite(.timeLimit(.minutes(5))) struct CLIInitEndToEndTests {
    /// A temporary working directory, removed afterwards.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        return try await withScratchDirectory { (directory: URL) in
            try await body(directory)
        }
    }

    static func nowetl(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) async throws -> SubprocessResult {
        try await NowETLProcess.run(arguments, in: directory, environment: environment)
    }

    static let credentials = ["SN_USER": "admin", "SN_PASSWORD": "admin"]

    @Test func initWritesAPipelineThatValidatesAndRunsFromAnotherDirectory() async throws {
        let sim = try await ETLServers.get()
        try await Self.withDirectory { directory in
            let instance = sim.baseURL.absoluteString
            let written = try await Self.nowetl(
                ["init", "--instance", instance, "--table", "incident", "--output", "my-pipelines/mine.yaml"],
                in: directory, environment: Self.credentials)
            #expect(written.status == 0, "\(written.stderrText)")
            #expect(
                written.stdoutText
                    == "wrote my-pipelines/mine.yaml: 1 table; next: nowetl validate my-pipelines/mine.yaml\n")
            let pipeline = directory.appendingPathComponent("my-pipelines/mine.yaml")
            let text = try String(contentsOf: pipeline, encoding: .utf8)
            #expect(text.contains("instance: \(instance)") || text.contains("instance: \"\(instance)\""), "\(text)")
            #expect(text.contains("output_dir: out/mine"), "named after the file")

            let offline = try await Self.nowetl(
                ["validate", "my-pipelines/mine.yaml"], in: directory, environment: Self.credentials)
            #expect(offline.status == 0 && offline.stdoutText.hasPrefix("ok: "), "\(offline.stderrText)")
            #expect(offline.stderrText.isEmpty, "\(offline.stderrText)")
            let online = try await Self.nowetl(
                ["validate", "--online", "my-pipelines/mine.yaml"], in: directory, environment: Self.credentials)
            #expect(online.status == 0, "\(online.stderrText)")

            // Run from the pipeline's parent's parent: output_dir is relative to the file, not to here.
            let run = try await Self.nowetl(
                ["run", "mine.yaml", "--progress", "off"],
                in: directory.appendingPathComponent("my-pipelines"), environment: Self.credentials)
            #expect(run.status == 0, "\(run.stderrText)")
            let runElsewhere = try await Self.nowetl(
                ["run", "my-pipelines/mine.yaml", "--progress", "off"], in: directory, environment: Self.credentials)
            #expect(runElsewhere.status == 0, "\(runElsewhere.stderrText)")
            let out = directory.appendingPathComponent("my-pipelines/out/mine")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
            let rows = try await Subprocess.run(
                "python3",
                [
                    "-c",
                    "import csv, gzip, sys; print(len(list(csv.DictReader(gzip.open(sys.argv[1], 'rt', newline='')))))",
                    out.appendingPathComponent("incident.csv.gz").path,
                ], timeout: 60)
            #expect(rows.status == 0 && rows.stdoutText == "1200\n", "\(rows.stdoutText) \(rows.stderrText)")

            // A second init does not overwrite the user's edits unless --force is given.
            try (text + "# my edit\n").write(to: pipeline, atomically: true, encoding: .utf8)
            let again = try await Self.nowetl(
                ["init", "--instance", instance, "--table", "incident", "--output", "my-pipelines/mine.yaml"],
                in: directory, environment: Self.credentials)
            #expect(again.status == 73)
            #expect(again.stderrText == "nowetl: my-pipelines/mine.yaml exists; pass --force to replace it\n")
            #expect(try String(contentsOf: pipeline, encoding: .utf8).hasSuffix("# my edit\n"))
            let forced = try await Self.nowetl(
                [
                    "init", "--instance", instance, "--table", "incident", "--output", "my-pipelines/mine.yaml",
                    "--force",
                ],
                in: directory, environment: Self.credentials)
            #expect(forced.status == 0, "\(forced.stderrText)")
            #expect(try String(contentsOf: pipeline, encoding: .utf8) == text)
        }
    }

    @Test func theStarterOutputDirectoryIsNamedAfterThePipelineFile() {
        #expect(StarterPipeline.outputDirectory(file: "my-pipelines/mine.yaml", tables: ["incident"]) == "out/mine")
        #expect(StarterPipeline.outputDirectory(file: "nightly.v2.yml", tables: ["incident"]) == "out/nightly.v2")
        #expect(StarterPipeline.outputDirectory(file: nil, tables: ["problem", "incident"]) == "out/problem")
        // Not a plain name (a space, a quote, a hidden file): the first table's, which YAML takes as it is.
        #expect(StarterPipeline.outputDirectory(file: "my pipe.yaml", tables: ["incident"]) == "out/incident")
        #expect(StarterPipeline.outputDirectory(file: "x/'q'.yaml", tables: ["incident"]) == "out/incident")
        #expect(StarterPipeline.outputDirectory(file: ".yaml", tables: ["incident"]) == "out/incident")
    }

    /// A site that allows only OAuth: `init` with an OAuth client's credentials (client credentials
    /// grant) writes an `oauth:` block, with basic authentication commented beside it, and the starter
    /// pipeline validates online and runs with the same variables; the secret is never printed.
    @Test func initWithAnOAuthClientWritesAnOAuthPipelineThatValidatesAndRuns() async throws {
        let sim = try await ETLServers.get()
        let client = ["SN_CLIENT_ID": "nowsim", "SN_CLIENT_SECRET": "nowsim", "SN_USER": "", "SN_PASSWORD": ""]
        try await Self.withDirectory { directory in
            let written = try await Self.nowetl(
                ["init", "--instance", sim.baseURL.absoluteString, "--table", "incident", "--output", "o.yaml"],
                in: directory, environment: client)
            #expect(written.status == 0, "\(written.stderrText)")
            let text = try String(contentsOf: directory.appendingPathComponent("o.yaml"), encoding: .utf8)
            #expect(
                text.contains(
                    #"    oauth: { client_id: "${SN_CLIENT_ID}", client_secret: "${SN_CLIENT_SECRET}", grant: client_credentials }"#
                ), "\(text)")
            #expect(text.contains(#"    # basic: { user: "${SN_USER}", password: "${SN_PASSWORD}" }"#), "\(text)")
            for arguments in [["validate", "--online", "o.yaml"], ["run", "o.yaml", "--progress", "off"]] {
                let result = try await Self.nowetl(arguments, in: directory, environment: client)
                #expect(result.status == 0, "\(arguments[0]): \(result.stderrText)")
            }
            #expect(
                FileManager.default.fileExists(
                    atPath: directory.appendingPathComponent("out/o/manifest.json").path))
        }
    }

    /// Sign-in options instead of the environment: the secrets come from files (never the command
    /// line), and the pipeline names the user or client and the absolute path of the file, so it
    /// validates online and runs with an empty environment, from another working directory too.
    @Test(arguments: [false, true])
    func initWithSignInOptionsWritesThemIntoAPipelineThatRunsWithoutVariables(oauth: Bool) async throws {
        let sim = try await ETLServers.get()
        let empty = ["SN_CLIENT_ID": "", "SN_CLIENT_SECRET": "", "SN_USER": "", "SN_PASSWORD": ""]
        try await Self.withDirectory { directory in
            let secret = directory.appendingPathComponent("secrets/sn secret")
            try FileManager.default.createDirectory(
                at: secret.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (oauth ? "nowsim\n" : "admin\n").write(to: secret, atomically: true, encoding: .utf8)
            _ = chmod(secret.path, 0o600)
            let signIn =
                oauth
                ? ["--client-id", "nowsim", "--client-secret-file", "secrets/sn secret"]
                : ["--user", "admin", "--password-file", "secrets/sn secret"]
            let written = try await Self.nowetl(
                ["init", "--instance", sim.baseURL.absoluteString, "--table", "incident", "--output", "p/o.yaml"]
                    + signIn, in: directory, environment: empty)
            #expect(written.status == 0, "\(written.stderrText)")
            let text = try String(contentsOf: directory.appendingPathComponent("p/o.yaml"), encoding: .utf8)
            let expected =
                oauth
                ? #"    oauth: { client_id: nowsim, client_secret_file: "\#(secret.path)", grant: client_credentials }"#
                : #"    basic: { user: admin, password_file: "\#(secret.path)" }"#
            #expect(text.contains(expected), "\(text)")
            #expect(!text.contains(oauth ? "SN_CLIENT_ID" : "SN_USER\""), "the other way stays commented: \(text)")
            let elsewhere = directory.appendingPathComponent("p")
            for arguments in [["validate", "--online", "o.yaml"], ["run", "o.yaml", "--progress", "off"]] {
                let result = try await Self.nowetl(arguments, in: elsewhere, environment: empty)
                #expect(result.status == 0, "\(arguments[0]): \(result.stderrText)")
            }
            let discovered = try await Self.nowetl(
                ["discover", "--instance", sim.baseURL.absoluteString, "--table", "incident"] + signIn, in: directory,
                environment: empty)
            #expect(discovered.status == 0 && discovered.stdoutText.contains("- table: incident"))
            // A wrong secret: the refusal names the options to check, never the secret.
            try "wrong-Secret-77\n".write(to: secret, atomically: true, encoding: .utf8)
            let refused = try await Self.nowetl(
                ["discover", "--instance", sim.baseURL.absoluteString, "--table", "incident"] + signIn, in: directory,
                environment: empty)
            #expect(refused.status == 77, "\(refused.stderrText)")
            let setting = oauth ? "--client-id and --client-secret-file" : "--user and --password-file"
            #expect(refused.stderrText.contains(setting), "\(refused.stderrText)")
            #expect(!refused.stderrText.contains("wrong-Secret-77"))
        }
    }

    @Test func signInOptionsThatDoNotFitAreUsageErrors() async throws {
        try await Self.withDirectory { directory in
            let empty = ["SN_CLIENT_ID": "", "SN_CLIENT_SECRET": "", "SN_USER": "", "SN_PASSWORD": ""]
            let base = ["discover", "--instance", "http://127.0.0.1:9", "--table", "incident"]
            let cases: [([String], String)] = [
                (["--client-id", "x"], "--client-id needs --client-secret-file (or SN_CLIENT_SECRET)"),
                (["--user", "etl"], "--user needs --password-file (or SN_PASSWORD)"),
                (["--password-file", "missing"], "--password-file needs --user (or SN_USER)"),
                (["--user", "etl", "--password-file", "missing"], "cannot read --password-file 'missing'"),
                (["--user", "etl", "--client-id", "x"], "not both"),
            ]
            for (options, message) in cases {
                let result = try await Self.nowetl(base + options, in: directory, environment: empty)
                #expect(result.status == 64, "\(options): \(result.stderrText)")
                #expect(result.stderrText.contains(message), "\(options): \(result.stderrText)")
            }
        }
    }

    @Test func initWithoutCredentialsSaysHowToSetThem() async throws {
        try await Self.withDirectory { directory in
            let result = try await Self.nowetl(
                ["init", "--instance", "http://127.0.0.1:9", "--table", "incident"], in: directory,
                environment: ["SN_USER": "", "SN_PASSWORD": ""])
            #expect(result.status == 64)
            #expect(result.stderrText.contains("export SN_USER=admin SN_PASSWORD=admin"), "\(result.stderrText)")
            #expect(result.stderrText.contains("SN_CLIENT_ID and SN_CLIENT_SECRET"), "\(result.stderrText)")
            #expect(result.stderrText.contains("sys_db_object and sys_dictionary"), "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty)
        }
    }

    static let pipeline = PipelineYAML(
        auth: PipelineYAML.placeholderAuthBlock, source: ["page_size: 500"],
        tables: "  - table: incident\n    filter: priority=${PRIORITY}\n    fields: [number, priority]"
    ).text

    /// The credentials from `.env`, the instance from the environment, the filter from `--var`, the files in
    /// `--output-dir` (relative to the working directory): the password is never printed.
    @Test func dotEnvVariablesAndOutputDirOverridesReachTheRun() async throws {
        let sim = try await ETLServers.get()
        try await Self.withDirectory { directory in
            let pipelines = directory.appendingPathComponent("conf")
            try FileManager.default.createDirectory(at: pipelines, withIntermediateDirectories: true)
            try Self.pipeline.write(to: pipelines.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let dotEnv = pipelines.appendingPathComponent(".env").path
            #expect(
                FileManager.default.createFile(
                    atPath: dotEnv,
                    contents: Data("# for nowsim\nexport SN_USER=admin\nSN_PASSWORD='admin'\nPRIORITY=5\n".utf8),
                    attributes: [.posixPermissions: 0o600]))
            let environment = ["SN_INSTANCE": sim.baseURL.absoluteString]

            let run = try await Self.nowetl(
                ["run", "conf/p.yaml", "--var", "PRIORITY=1", "--output-dir", "elsewhere", "--progress", "off"],
                in: directory, environment: environment)
            #expect(run.status == 0, "\(run.stderrText)")
            #expect(!run.stderrText.contains("warning"), "\(run.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: pipelines.appendingPathComponent("out").path))
            let csv = try String(
                contentsOf: directory.appendingPathComponent("elsewhere/incident.csv"), encoding: .utf8)
            let priorities = Set(
                csv.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").last ?? "" })
            #expect(priorities == ["1"], "--var wins over .env: \(priorities)")

            // Without --var the .env's PRIORITY applies; a .env others can read draws a warning, not a failure.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dotEnv)
            let second = try await Self.nowetl(
                ["run", "conf/p.yaml", "--output-dir", "second", "--progress", "off", "--log-level", "debug"],
                in: directory, environment: environment)
            #expect(second.status == 0, "\(second.stderrText)")
            #expect(
                second.stderrText.hasPrefix(
                    "conf/.env: warning: the .env file can be read by its group or others (mode 0644); make it "
                        + "private: chmod 600 'conf/.env'\n"), "\(second.stderrText)")
            #expect(!second.stderrText.contains("'admin'") && !second.stderrText.contains("password=admin"))
            let secondCSV = try String(
                contentsOf: directory.appendingPathComponent("second/incident.csv"), encoding: .utf8)
            let secondPriorities = Set(
                secondCSV.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").last ?? "" })
            #expect(secondPriorities == ["5"], "\(secondPriorities)")

            // A malformed .env stops every command with its position, exit 78, before any request.
            try "SN_PASSWORD admin\n".write(toFile: dotEnv, atomically: false, encoding: .utf8)
            let broken = try await Self.nowetl(["validate", "conf/p.yaml"], in: directory, environment: environment)
            #expect(broken.status == 78)
            #expect(
                broken.stderrText
                    == "conf/.env:1:13: error: expected '=' after SN_PASSWORD (a .env line is NAME=VALUE)\n")
        }
    }
}
