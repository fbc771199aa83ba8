import Foundation
import NowETL
import NowSimTesting
import Testing

/// NowETLCommand.main in-process: validate, run (with the default and a fake extractor), the
/// commands that need the extractor, and every pipeline file in pipelines/.
@Suite(.timeLimit(.minutes(5))) struct CLICommandTests {
    static func fake(_ runner: FakeTableRunner) -> NowETLCommand.TableRunnerFactory {
        { _ in runner }
    }

    @Test func usageErrorsExit64WithTheUsage() async {
        let (code, captured) = await InProcessNowETL.run(["run", "p.yaml", "--bogus"])
        #expect(code == 64)
        // One line of why, then run's usage only (not the whole program's) and where its help is.
        #expect(
            captured.standardError.hasPrefix("nowetl run: unknown option '--bogus'\n\nUSAGE:\n  nowetl run PIPELINE"))
        #expect(captured.standardError.hasSuffix("See 'nowetl run --help'.\n"))
        #expect(!captured.standardError.contains("nowetl merge") && !captured.standardError.contains("EXIT CODES:"))
        #expect(captured.standardOutput.isEmpty)
    }

    @Test func helpAndVersionGoToStandardOutput() async {
        let help = CapturedStreams()
        #expect(await InProcessNowETL.run(["--help"], streams: help).code == 0)
        #expect(help.standardOutput.contains("nowetl validate PIPELINE") && help.standardError.isEmpty)
        let version = CapturedStreams()
        #expect(await InProcessNowETL.run(["--version"], streams: version).code == 0)
        #expect(version.standardOutput == "nowetl \(nowetlVersion)\n")
    }

    @Test func validateSaysOkWithTheCounts() async throws {
        try await RunFixture.with { fixture in
            let (code, captured) = await InProcessNowETL.run(
                ["validate", fixture.pipelinePath], environment: RunFixture.environment)
            #expect(code == 0)
            #expect(captured.standardOutput == "ok: 2 tables, 2 outputs\n")
            #expect(captured.standardError.isEmpty)
        }
    }

    static let badFiles: [(String, String)] = [
        ("version: 1\nsource:\n  instanse: x\n", ":3:3: error: unknown key 'instanse'"),
        ("version: 2\n", ":1:10: error: unsupported version 2"),
        ("version: 1\nsource: { auth: }\n  bad", ": error:"),
    ]

    @Test(arguments: badFiles) func validateReportsABadFileGccStyleWithExit78(_ text: String, _ expected: String)
        async throws
    {
        try await RunFixture.with { fixture in
            let path = fixture.directory.appendingPathComponent("bad.yaml").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let (code, captured) = await InProcessNowETL.run(["validate", path], environment: [:])
            #expect(code == 78)
            #expect(captured.standardError.hasPrefix(path + ":"))
            #expect(captured.standardError.contains(expected), "\(captured.standardError)")
            #expect(captured.standardOutput.isEmpty)

            // run loads exactly the same way, and fails the same way before any table.
            let run = CapturedStreams()
            let runner = FakeTableRunner([:])
            #expect(
                await InProcessNowETL.run(
                    ["run", path], environment: [:], streams: run, makeTableRunner: Self.fake(runner)
                ).code == 78)
            #expect(run.standardError == captured.standardError)
            #expect(runner.calls.all.isEmpty)
        }
    }

    @Test func aMissingFileIsAConfigurationError() async {
        let (code, captured) = await InProcessNowETL.run(["validate", "/nonexistent/p.yaml"])
        #expect(code == 78)
        #expect(captured.standardError.hasPrefix("/nonexistent/p.yaml: error:"))
    }

    @Test func runAgainstAnUnreachableInstanceExits69AndWritesNothing() async throws {
        try await RunFixture.with { fixture in
            let (code, captured) = await InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--progress", "off"], environment: RunFixture.environment)
            #expect(code == 69, "\(captured.standardError)")
            // The name check before the first page is the first request: it fails before anything is written.
            #expect(
                captured.standardError.hasPrefix(
                    "nowetl: table incident: reading sys_db_object (the table and its parents):"),
                "\(captured.standardError)")
            #expect(captured.standardOutput.isEmpty)
            #expect(!captured.standardError.contains(RunFixture.password))
            #expect(!FileManager.default.fileExists(atPath: fixture.outputDirectory), "a failed check touches no file")
        }
    }

    @Test(arguments: [["preview", "PIPELINE"], ["preview", "PIPELINE", "--table", "problem"]])
    func previewAgainstAnUnreachableInstanceExits69AndWritesNothing(_ arguments: [String]) async throws {
        try await RunFixture.with { fixture in
            let (code, captured) = await InProcessNowETL.run(
                arguments.map { $0 == "PIPELINE" ? fixture.pipelinePath : $0 }, environment: RunFixture.environment)
            #expect(code == 69, "\(captured.standardError)")
            // The retries of the refused connection are logged first; the error is the last line.
            #expect(captured.errorLines.last?.hasPrefix("nowetl: table ") == true, "\(captured.standardError)")
            #expect(!captured.standardError.contains(RunFixture.password))
            #expect(captured.standardOutput.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.outputDirectory))

            let unknown = CapturedStreams()
            #expect(
                await InProcessNowETL.run(
                    ["preview", fixture.pipelinePath, "--table", "nope"], environment: RunFixture.environment,
                    streams: unknown
                ).code == 64)
        }
    }

    @Test func discoverNeedsCredentialsAndAnHTTPURL() async {
        func discover(_ instance: String, _ environment: [String: String]) async -> (
            code: Int32, streams: CapturedStreams
        ) {
            await InProcessNowETL.run(
                ["discover", "--instance", instance, "--table", "incident"], environment: environment)
        }
        let noCredentials = await discover("http://127.0.0.1:9", [:])
        #expect(noCredentials.code == 64)
        #expect(noCredentials.streams.standardError.contains("SN_USER and SN_PASSWORD"))
        #expect(await discover("ftp://x", ["SN_USER": "a", "SN_PASSWORD": "b"]).code == 64)
        let plainHTTP = await discover("http://example.invalid", ["SN_USER": "a", "SN_PASSWORD": "b"])
        #expect(plainHTTP.code == 1)
        #expect(plainHTTP.streams.standardError.contains("refusing plain http to example.invalid"))
        let (code, unreachable) = await discover("http://127.0.0.1:9", ["SN_USER": "a", "SN_PASSWORD": "pw-secret-9"])
        #expect(code == 69, "\(unreachable.standardError)")
        #expect(!unreachable.standardError.contains("pw-secret-9"))
        #expect(unreachable.standardOutput.isEmpty)
    }

    @Test func runPrintsTheSummaryWritesTheJSONAndLogsOnStandardError() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let summaryPath = fixture.directory.appendingPathComponent("reports/summary.json").path
            let runner = FakeTableRunner(["incident": .rows(7, sourceCount: 8)])
            let code = await InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--summary-json", summaryPath, "--log-format", "json"],
                environment: RunFixture.environment, streams: captured, makeTableRunner: Self.fake(runner)
            ).code
            #expect(code == 0)
            #expect(captured.standardOutput.hasPrefix("run 2"))
            #expect(captured.standardOutput.contains("incident  ok         7  8 !"))
            #expect(try fixture.manifest() != nil)

            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath)))
                    as? [String: Any])
            #expect(report["status"] as? String == "ok")
            #expect(report["exit_code"] as? Int == 0)
            #expect((report["totals"] as? [String: Any])?["rows"] as? Int == 10)
            #expect(report["manifest"] as? String == fixture.manifestPath)
            let leftovers = try FileManager.default.contentsOfDirectory(
                atPath: (summaryPath as NSString).deletingLastPathComponent)
            #expect(leftovers == ["summary.json"])

            // Every stderr line is a JSON object, and the password is in none of them.
            #expect(captured.errorLines.count >= 6)
            for line in captured.errorLines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["level"] != nil && object?["msg"] != nil, "\(line)")
            }
            #expect(!captured.standardError.contains(RunFixture.password))
            #expect(captured.standardError.contains("\"auth\":\"basic(user: etl)\""))
            // Numbers are JSON numbers, not strings (Python's json as the reader: int, not str).
            let typed = try await SinkTestSupport.pythonJSON(Data(captured.standardError.utf8), array: false)
            func cell(_ message: String, _ key: String) -> [String]? {
                typed.first { $0.contains(["msg", "str", message]) }?.first { $0.first == key }
            }
            #expect(cell("run started", "outputs") == ["outputs", "int", "2"])
            #expect(cell("run finished", "exit_code") == ["exit_code", "int", "0"])
            #expect(cell("run finished", "rows") == ["rows", "int", "10"])
            #expect(cell("run finished", "seconds")?[1] == "float")
            #expect(cell("run started", "run_id")?[1] == "str")
        }
    }

    @Test func runWithAnUnknownTableIsAUsageError() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let runner = FakeTableRunner([:])
            let code = await InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--table", "change_request"], environment: RunFixture.environment,
                streams: captured, makeTableRunner: Self.fake(runner)
            ).code
            #expect(code == 64)
            #expect(captured.standardError.contains("no table 'change_request'; its tables are incident, problem"))
            #expect(runner.calls.all.isEmpty)
        }
    }

    @Test func aFailedRunExitsWithTheTablesCode() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let runner = FakeTableRunner(["incident": .fail(CodedError(exitCode: 77, description: "HTTP 401"))])
            let code = await InProcessNowETL.run(
                ["run", fixture.pipelinePath, "--progress", "off"], environment: RunFixture.environment,
                streams: captured,
                makeTableRunner: Self.fake(runner)
            ).code
            #expect(code == 77)
            #expect(captured.standardOutput.contains("incident: error: HTTP 401 (exit 77)"))
        }
    }

    @Test func thePipelinesFolderHasTheDemoAndTheNightlyPipeline() {
        let names = RepositoryPipelines.files.map { ($0 as NSString).lastPathComponent }
        #expect(names.contains("demo.yaml") && names.contains("incident-nightly.yaml"))
    }

    @Test(arguments: RepositoryPipelines.files) func everyPipelineFileValidates(_ path: String) async throws {
        try await withScratchDirectory { (secrets: URL) in
            for name in ["sn_password", "pg_password", "target_password", "sn_client_secret"] {
                // Private, as docs/authentication.md says: a secret file others can read draws a warning.
                let created = FileManager.default.createFile(
                    atPath: secrets.appendingPathComponent(name).path, contents: Data("secret-from-file\n".utf8),
                    attributes: [.posixPermissions: 0o600])
                #expect(created)
            }
            let environment = [
                "SN_INSTANCE": "http://127.0.0.1:8080", "SN_USER": "admin", "SN_PASSWORD": "admin",
                "NOWETL_SECRETS": secrets.path,
            ]
            let (code, captured) = await InProcessNowETL.run(["validate", path], environment: environment)
            #expect(code == 0, "\(captured.standardError)")
            #expect(captured.standardOutput.hasPrefix("ok: "))
            #expect(captured.standardError.isEmpty, "no warning for a pipeline as shipped: \(captured.standardError)")
        }
    }
}
