import Foundation
import NowData
import Testing

@testable import NowETL

/// PipelineRun with a fake extractor writing through real sinks: order, manifest, stop rule, exit codes.
@Suite(.timeLimit(.minutes(5))) struct RunPipelineTests {
    static let started = Date(timeIntervalSince1970: 1_709_258_400)  // 2024-03-01 02:00:00 UTC
    static let runID = RunID(started: started, random: 0x7f3a).text

    func makeRun(
        _ fixture: RunFixture, _ runner: FakeTableRunner, tables: [String] = [], keepGoing: Bool = false,
        captured: CapturedStreams
    ) throws -> PipelineRun {
        let configuration = try fixture.configuration()
        return try PipelineRun(
            configuration: configuration, runner: runner, runID: Self.runID, runStarted: Self.started,
            tableFilter: tables,
            logger: RunLogger(secrets: [RunFixture.password], console: captured.console),
            continueAfterFailure: keepGoing)
    }

    @Test func theRunIDIsTheUTCStartAndFourHexDigits() {
        #expect(Self.runID == "20240301T020000Z-7f3a")
        #expect(RunID(started: Self.started, random: 0xa).text == "20240301T020000Z-000a")
        let random = RunID(started: Date()).text
        #expect(random.count == 21)
        #expect(random.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    }

    @Test func aGoodRunExportsEveryTableInOrderAndWritesTheManifestLast() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let runner = FakeTableRunner(["incident": .rows(5, sourceCount: 5), "problem": .rows(2)])
            let result = try await makeRun(fixture, runner, captured: captured).run()

            #expect(result.exitCode == 0)
            #expect(runner.calls.all == ["incident@\(Self.runID)", "problem@\(Self.runID)"])
            #expect(result.tables.map(\.status) == [.ok, .ok])
            #expect(result.manifestPath == fixture.manifestPath)
            let manifest = try #require(try fixture.manifest())
            #expect(manifest["run_id"] as? String == Self.runID)
            #expect(manifest["run_started"] as? String == "2024-03-01T02:00:00Z")
            let files = try #require(manifest["files"] as? [[String: Any]])
            #expect(
                files.map { $0["path"] as? String }
                    == [
                        "incident.csv", "incident-\(Self.runID).jsonl.gz", "problem.csv",
                        "problem-\(Self.runID).jsonl.gz",
                    ])
            #expect(files.map { $0["rows"] as? Int } == [5, 5, 2, 2])
            for file in files {
                let path = fixture.outputDirectory + "/" + (file["path"] as! String)
                #expect(FileManager.default.fileExists(atPath: path))
            }
            let csv = try String(contentsOfFile: fixture.outputDirectory + "/incident.csv", encoding: .utf8)
            #expect(csv.hasPrefix("sys_id,number\r\n"))
            #expect(captured.standardError.contains("msg=\"run started\" run_id=\(Self.runID) tables=incident,problem"))
            #expect(captured.standardError.contains("msg=\"table finished\" table=incident rows=5"))
        }
    }

    @Test func theRunStopsAtTheFirstFailedTableAndKeepsThePreviousManifest() async throws {
        try await RunFixture.with { fixture in
            try FileManager.default.createDirectory(atPath: fixture.outputDirectory, withIntermediateDirectories: true)
            try "previous\n".write(toFile: fixture.manifestPath, atomically: true, encoding: .utf8)
            let captured = CapturedStreams()
            let runner = FakeTableRunner(["incident": .fail(CodedError(exitCode: 1, description: "page 3 broke"))])
            let result = try await makeRun(fixture, runner, captured: captured).run()

            #expect(result.exitCode == 1)
            #expect(runner.calls.tables == ["incident"])
            #expect(result.tables.map(\.status) == [.failed, .notRun])
            #expect(result.tables[0].error == "page 3 broke")
            #expect(result.manifestPath == nil)
            #expect(try String(contentsOfFile: fixture.manifestPath, encoding: .utf8) == "previous\n")
            #expect(captured.standardError.contains("level=error msg=\"table failed\" table=incident exit_code=1"))
        }
    }

    @Test func keepGoingRunsTheRestButStillFails() async throws {
        try await RunFixture.with { fixture in
            let runner = FakeTableRunner(["incident": .fail(CodedError(exitCode: 75, description: "rate limited"))])
            let result = try await makeRun(fixture, runner, keepGoing: true, captured: CapturedStreams()).run()
            #expect(runner.calls.tables == ["incident", "problem"])
            #expect(result.tables.map(\.status) == [.failed, .ok])
            #expect(result.exitCode == 75)
            #expect(result.files.count == 2)
        }
    }

    /// The files of the run before, for the commit tests: a complete run of both tables.
    func previousRun(_ fixture: RunFixture) async throws -> Manifest {
        let first = try await makeRun(fixture, FakeTableRunner([:]), captured: CapturedStreams()).run()
        try #require(first.exitCode == 0)
        return try Manifest.read(fromDirectory: fixture.outputDirectory)
    }

    /// Every file a manifest lists exists with its size and SHA-256.
    static func expectManifestMatchesFiles(_ fixture: RunFixture, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let manifest = try Manifest.read(fromDirectory: fixture.outputDirectory)
        for file in manifest.files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.outputDirectory + "/" + file.path))
            #expect(bytes.count == file.bytes, "\(file.path)", sourceLocation: sourceLocation)
            #expect(SHA256.hash(bytes).hexString == file.sha256, "\(file.path)", sourceLocation: sourceLocation)
        }
        let temporaries = try FileManager.default.subpathsOfDirectory(atPath: fixture.outputDirectory).filter {
            AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
        }
        #expect(temporaries.isEmpty, "temporary files left: \(temporaries)", sourceLocation: sourceLocation)
    }

    @Test func aFailingSecondTableCommitsNothingAndTheFirstTablesFilesStayThePreviousRuns() async throws {
        try await RunFixture.with { fixture in
            let previous = try await previousRun(fixture)
            let runner = FakeTableRunner([
                "incident": .rows(7), "problem": .fail(CodedError(exitCode: 75, description: "429")),
            ])
            let captured = CapturedStreams()
            let result = try await makeRun(fixture, runner, captured: captured).run()
            #expect(result.exitCode == 75)
            #expect(result.tables.map(\.status) == [.notCommitted, .failed])
            #expect(result.files.isEmpty)
            #expect(result.manifestPath == nil)
            #expect(try Manifest.read(fromDirectory: fixture.outputDirectory) == previous, "the previous manifest")
            #expect(
                previous.files.first { $0.table == "incident" }?.rows == 3, "incident still has the previous 3 rows")
            try Self.expectManifestMatchesFiles(fixture)
            #expect(captured.standardError.contains("msg=\"nothing committed"))
        }
    }

    @Test func aFailingSecondTableWithKeepGoingCommitsTheFirstAndTheManifestStillMatches() async throws {
        try await RunFixture.with { fixture in
            let previous = try await previousRun(fixture)
            let runner = FakeTableRunner([
                "incident": .rows(7), "problem": .fail(CodedError(exitCode: 75, description: "429")),
            ])
            let result = try await makeRun(fixture, runner, keepGoing: true, captured: CapturedStreams()).run()
            #expect(result.exitCode == 75)
            #expect(result.tables.map(\.status) == [.ok, .failed])
            let manifest = try Manifest.read(fromDirectory: fixture.outputDirectory)
            #expect(result.manifestPath == fixture.manifestPath)
            #expect(manifest.runID == result.runID)
            #expect(manifest.failedTables == ["problem"])
            #expect(manifest.files.filter { $0.table == "incident" }.allSatisfy { $0.rows == 7 })
            #expect(manifest.files.filter { $0.table == "problem" } == previous.files.filter { $0.table == "problem" })
            try Self.expectManifestMatchesFiles(fixture)
        }
    }

    @Test func publishModeWritesEachRunIntoItsOwnDirectoryAndSwitchesCurrent() async throws {
        try await RunFixture.with { fixture in
            var configuration = try fixture.configuration()
            configuration.publish = PublishConfiguration(mode: .directories, keep: 2)
            func run(_ id: String, _ runner: FakeTableRunner, keepGoing: Bool = false) async throws -> PipelineRunResult
            {
                try await PipelineRun(
                    configuration: configuration, runner: runner, runID: id, runStarted: Self.started,
                    logger: RunLogger(secrets: [], console: CapturedStreams().console), continueAfterFailure: keepGoing
                ).run()
            }
            let current = fixture.outputDirectory + "/current"
            for (index, id) in ["20240301T020000Z-0001", "20240302T020000Z-0002", "20240303T020000Z-0003"].enumerated()
            {
                let result = try await run(id, FakeTableRunner(["incident": .rows(index + 1)]))
                #expect(result.exitCode == 0)
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: current) == "runs/" + id)
                let manifest = try Manifest.read(fromDirectory: current)
                #expect(manifest.runID == id)
                #expect(manifest.files.first { $0.table == "incident" }?.rows == index + 1)
                #expect(result.manifestPath == fixture.outputDirectory + "/runs/\(id)/manifest.json")
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fixture.outputDirectory + "/runs").sorted() == [
                    "20240302T020000Z-0002", "20240303T020000Z-0003",
                ], "keep: 2")
            #expect(!FileManager.default.fileExists(atPath: fixture.outputDirectory + "/incident.csv"))

            // --keep-going with a failed table: the new directory is complete, the failed table's files linked in.
            let failing = FakeTableRunner(["incident": .fail(CodedError(exitCode: 75, description: "429"))])
            let result = try await run("20240304T020000Z-0004", failing, keepGoing: true)
            #expect(result.exitCode == 75)
            let manifest = try Manifest.read(fromDirectory: current)
            #expect(manifest.runID == "20240304T020000Z-0004")
            #expect(manifest.failedTables == ["incident"])
            #expect(manifest.files.first { $0.table == "incident" }?.rows == 3, "the previous run's incident files")
            for file in manifest.files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: current + "/" + file.path))
                #expect(SHA256.hash(bytes).hexString == file.sha256, "\(file.path)")
            }
        }
    }

    static let failures: [(any Error & Sendable, Int32)] = [
        (CodedError(exitCode: 75, description: "429 after 5 retries"), 75),
        (CodedError(exitCode: 77, description: "401"), 77),
        (CodedError(exitCode: 69, description: "connection refused"), 69),
        (CancellationError(), 1),
        (NowETLError(.io, path: "incident.csv", "disk full"), 1),
        (NowDataError.badResponse(statusCode: 401, context: ResponseContext(method: "GET", url: "/x")), 77),
        (NowDataError.badResponse(statusCode: 403, context: ResponseContext(method: "GET", url: "/x")), 77),
        (NowDataError.badResponse(statusCode: 503, context: ResponseContext(method: "GET", url: "/x")), 75),
        (NowDataError.badResponse(statusCode: 400, context: ResponseContext(method: "GET", url: "/x")), 1),
        (NowDataError.network(.systemError(URLError(.cannotConnectToHost))), 69),
        (NowDataError.network(.systemError(URLError(.timedOut))), 75),
    ]

    @Test(arguments: 0..<failures.count) func aFailedTableEndsTheRunWithItsErrorsExitCode(_ index: Int) async throws {
        let (error, code) = Self.failures[index]
        try await RunFixture.with { fixture in
            let runner = FakeTableRunner(["problem": .fail(error)])
            let result = try await makeRun(fixture, runner, captured: CapturedStreams()).run()
            #expect(result.exitCode == code)
            #expect(NowETLExitCode.code(for: error) == code)
            #expect(result.tables.map(\.status) == [.notCommitted, .failed])
            #expect(result.tables[1].exitCode == code)
        }
    }

    @Test func rejectsOverTheThresholdFinishTheRunWithExitTwo() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let runner = FakeTableRunner(["problem": .rows(4, rejects: 2)])  // reject.max is 1
            let result = try await makeRun(fixture, runner, captured: captured).run()
            #expect(result.exitCode == 2)
            #expect(result.tables.map(\.status) == [.ok, .rejectsOverThreshold])
            #expect(result.manifestPath != nil)
            #expect(captured.standardError.contains("level=warning msg=\"rejects over the threshold\" table=problem"))

            let within = FakeTableRunner(["problem": .rows(4, rejects: 1)])
            #expect(try await makeRun(fixture, within, captured: CapturedStreams()).run().exitCode == 0)
        }
    }

    @Test func tableFilterRunsOnlyTheNamedTablesInPipelineOrder() async throws {
        try await RunFixture.with { fixture in
            let runner = FakeTableRunner([:])
            let result = try await makeRun(fixture, runner, tables: ["problem"], captured: CapturedStreams()).run()
            #expect(runner.calls.tables == ["problem"])
            #expect(result.tables.map(\.table) == ["problem"])
            let files = try #require(try fixture.manifest()?["files"] as? [[String: Any]])
            #expect(files.count == 2)

            let both = FakeTableRunner([:])
            _ = try await makeRun(fixture, both, tables: ["problem", "incident"], captured: CapturedStreams()).run()
            #expect(both.calls.tables == ["incident", "problem"])
        }
    }

    @Test func anUnknownTableIsAUsageErrorThatListsTheTables() throws {
        try RunFixture.with { fixture in
            #expect {
                _ = try makeRun(
                    fixture, FakeTableRunner([:]), tables: ["incident", "sys_user"], captured: CapturedStreams())
            } throws: { error in
                let error = error as? NowETLError
                return error?.exitCode == 64
                    && error?.description
                        == "--table sys_user: the pipeline has no table 'sys_user'; its tables are incident, problem"
            }
        }
    }

    @Test func secretsInAnErrorAreRedactedInTheLogAndTheOutcome() async throws {
        try await RunFixture.with { fixture in
            let captured = CapturedStreams()
            let leak = CodedError(exitCode: 77, description: "server said: bad password \(RunFixture.password)")
            let result = try await makeRun(fixture, FakeTableRunner(["incident": .fail(leak)]), captured: captured)
                .run()
            #expect(result.tables[0].error == "server said: bad password <redacted>")
            #expect(!captured.standardError.contains(RunFixture.password))
            #expect(captured.standardError.contains("<redacted>"))
        }
    }
}
