import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl state show|set|reset` in-process through NowETLCommand.main, on a temporary output_dir with
/// a hand-written state.json: what they print, what they change, the lock, the journals, and the
/// errors. No instance is needed.
@Suite(.timeLimit(.minutes(5))) struct StateCommandTests {
    /// A pipeline with two incremental tables (incident with deletes, problem on sys_created_on) and
    /// one full table, its output_dir not created yet.
    struct Fixture {
        static let environment = ["SN_INSTANCE": "https://acme.service-now.com", "SN_PASSWORD": "s3cret-pw-42"]

        let directory: String
        var pipeline: String { directory + "/pipeline.yaml" }
        var outputDirectory: String { directory + "/out" }
        var stateFile: String { outputDirectory + "/.nowetl/state.json" }

        /// Writes the pipeline into `directory` (which exists).
        init(in directory: String) throws {
            self.directory = directory
            let text = PipelineYAML(
                auth: PipelineYAML.etlAuth, outputDirectory: "\(directory)/out",
                tables: """
                      - table: incident
                        filter: active=true
                        mode: incremental
                        lag_seconds: 30
                        deletes: true
                      - table: problem
                        mode: incremental
                        cursor: sys_created_on
                      - table: change_request
                    """,
                outputs: #"  - json: { path: "{table}-{run_id}.jsonl.gz" }"#
            ).text
            try text.write(toFile: pipeline, atomically: true, encoding: .utf8)
        }

        /// Runs `body` with a fixture in a scratch directory, `state` (when given) written as its state.json.
        static func with(state: String? = nil, _ body: (Fixture) async throws -> Void) async throws {
            try await withScratchDirectory { (directory: String) in
                let fixture = try Fixture(in: directory)
                if let state { try fixture.writeState(state) }
                try await body(fixture)
            }
        }

        /// Writes `text` as state.json, by hand (the file's documented format, not the encoder's).
        func writeState(_ text: String) throws {
            try FileManager.default.createDirectory(
                atPath: outputDirectory + "/.nowetl", withIntermediateDirectories: true)
            try text.write(toFile: stateFile, atomically: true, encoding: .utf8)
        }

        /// A run journal for `table`, as an interrupted run leaves it.
        func writeJournal(_ table: String) throws -> String {
            let journal = TableJournal.directory(outputDirectory: outputDirectory, table: table)
            try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
            try "{}\n".write(toFile: journal + "/journal.jsonl", atomically: true, encoding: .utf8)
            try "spill".write(toFile: journal + "/part-0.spill", atomically: true, encoding: .utf8)
            return journal
        }

        func state() throws -> IncrementalState {
            try IncrementalState.read(outputDirectory: outputDirectory)
        }

        func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

        /// Runs `nowetl state …` on the pipeline.
        func main(_ arguments: [String]) async -> (code: Int32, output: String, error: String) {
            var arguments = arguments
            arguments.insert(pipeline, at: 1)
            let (code, captured) = await InProcessNowETL.run(["state"] + arguments, environment: Self.environment)
            return (code, captured.standardOutput, captured.standardError)
        }
    }

    /// incident after a run, a table the pipeline no longer has, and the full table's old state.
    static let savedState = """
        {
          "tables" : {
            "incident" : {
              "cursor" : "2026-12-01 01:59:58",
              "cursor_field" : "sys_updated_on",
              "deleted" : 3,
              "deletes_cursor" : "2026-12-01 01:12:40",
              "deletes_sys_id" : "9c1f0000000000000000000000000001",
              "filter" : "active=true",
              "rows" : 1204,
              "run_id" : "20261201T020000Z-7f3a",
              "signpost" : "2026-12-01 01:59:59",
              "sys_id" : "f00d0000000000000000000000000002"
            },
            "change_request" : {
              "cursor" : "2026-11-01 00:00:00",
              "cursor_field" : "sys_updated_on",
              "filter" : "",
              "rows" : 5,
              "run_id" : "20261101T020000Z-0001"
            },
            "old_task" : {
              "cursor_field" : "sys_updated_on",
              "filter" : "",
              "rows" : 0,
              "run_id" : "20261130T020000Z-0002",
              "signpost" : "2026-11-30 01:59:59"
            }
          },
          "version" : 1
        }

        """

    static let incidentState = IncrementalTableState(
        cursorField: "sys_updated_on", cursor: "2026-12-01 01:59:58", sysID: "f00d0000000000000000000000000002",
        signpost: "2026-12-01 01:59:59", runID: "20261201T020000Z-7f3a", rows: 1204, deleted: 3,
        deletesCursor: "2026-12-01 01:12:40", deletesSysID: "9c1f0000000000000000000000000001", filter: "active=true")

    // MARK: - show

    @Test func showPrintsEveryIncrementalTableThenTheTablesThePipelineNoLongerReads() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let result = await fixture.main(["show"])
            #expect(result.code == 0, "\(result.error)")
            #expect(result.error.isEmpty)
            #expect(
                result.output == """
                    state file: \(fixture.stateFile)

                    incident (cursor sys_updated_on, lag 30 s, deletes)
                      cursor field      sys_updated_on
                      cursor            2026-12-01 01:59:58
                      sys_id            f00d0000000000000000000000000002
                      signpost          2026-12-01 01:59:59
                      last run          20261201T020000Z-7f3a
                      rows              1204 (3 deletions)
                      deletions cursor  2026-12-01 01:12:40 (sys_id 9c1f0000000000000000000000000001)
                      next run reads    sys_updated_on > 2026-12-01 01:59:58, or = it and sys_id > f00d0000000000000000000000000002

                    problem (cursor sys_created_on, lag 0 s)
                      no state yet (the next run reads the whole table)

                    change_request: in the state file, but the pipeline reads it with mode: full (`state reset PIPELINE` removes it)
                      cursor field      sys_updated_on
                      cursor            2026-11-01 00:00:00
                      sys_id            — (the next run takes the whole second)
                      signpost          —
                      last run          20261101T020000Z-0001
                      rows              5
                      deletions cursor  —

                    old_task: in the state file, but the pipeline has no such table (`state reset PIPELINE` removes it)
                      cursor field      sys_updated_on
                      cursor            —
                      sys_id            —
                      signpost          2026-11-30 01:59:59
                      last run          20261130T020000Z-0002
                      rows              0
                      deletions cursor  —

                    """)
        }
    }

    @Test func showOfOneTableAndAsJSON() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let problem = await fixture.main(["show", "--table", "problem"])
            #expect(problem.code == 0)
            #expect(
                problem.output
                    == "state file: \(fixture.stateFile)\n\nproblem (cursor sys_created_on, lag 0 s)\n"
                    + "  no state yet (the next run reads the whole table)\n")

            let json = await fixture.main(["show", "--format", "json"])
            #expect(json.code == 0, "\(json.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            #expect(object["state_file"] as? String == fixture.stateFile)
            #expect(object["pending_commit"] as? Bool == false)
            let tables = try #require(object["tables"] as? [[String: Any]])
            #expect(tables.map { $0["table"] as? String } == ["incident", "problem", "change_request", "old_task"])
            #expect(
                tables.map { $0["status"] as? String } == ["kept", "no_state", "not_incremental", "not_in_pipeline"])
            #expect(tables[0]["pipeline_cursor_field"] as? String == "sys_updated_on")
            #expect(tables[0]["pipeline_deletes"] as? Bool == true)
            #expect(tables[1]["pipeline_cursor_field"] as? String == "sys_created_on" && tables[1]["state"] == nil)
            // The state object is the file's own, key for key.
            let state = try #require(tables[0]["state"] as? [String: Any])
            #expect(state["cursor"] as? String == "2026-12-01 01:59:58")
            #expect(state["sys_id"] as? String == "f00d0000000000000000000000000002")
            #expect(state["deletes_cursor"] as? String == "2026-12-01 01:12:40")
            #expect(state["rows"] as? Int == 1204 && state["deleted"] as? Int == 3)
            #expect(state["run_id"] as? String == "20261201T020000Z-7f3a")
        }
    }

    @Test func showBeforeTheFirstRunCreatesNothing() async throws {
        try await Fixture.with { fixture in
            let result = await fixture.main(["show"])
            #expect(result.code == 0)
            #expect(result.output.contains("incident (cursor sys_updated_on, lag 30 s, deletes)\n  no state yet"))
            #expect(!FileManager.default.fileExists(atPath: fixture.outputDirectory))
        }
    }

    @Test func showPointsOutAChangedCursorFieldAndFilterAndAPendingCommit() async throws {
        try await Fixture.with { fixture in
            try fixture.writeState(
                Self.savedState.replacingOccurrences(of: "\"filter\" : \"active=true\"", with: "\"filter\" : \"\"")
                    .replacingOccurrences(
                        of: "\"cursor_field\" : \"sys_updated_on\"", with: "\"cursor_field\" : \"opened_at\""))
            try RunCommit.write(CommitRecord(runID: "run-9"), outputDirectory: fixture.outputDirectory)
            let result = await fixture.main(["show", "--table", "incident"])
            #expect(result.code == 0)
            #expect(result.output.contains("\nnote: a run stopped while committing;"))
            #expect(
                result.output.contains(
                    "  note: the state was kept for cursor opened_at, the pipeline's cursor is now sys_updated_on: "
                        + "run with --full-refresh (or `state set`) to start over with it\n"))
            #expect(result.output.contains("  note: the filter changed since the state was kept (was ''):"))
            // show only reads: the record stays for the next run (or set/reset) to finish.
            #expect(
                FileManager.default.fileExists(atPath: RunCommit.recordPath(outputDirectory: fixture.outputDirectory)))
        }
    }

    // MARK: - set

    @Test func setReplacesTheCursorClearsTheSysIDKeepsTheRestAndRemovesTheJournal() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let incidentJournal = try fixture.writeJournal("incident")
            let problemJournal = try fixture.writeJournal("problem")
            let result = await fixture.main(["set", "--table", "incident", "--cursor", "2026-11-30 00:00:00"])
            #expect(result.code == 0, "\(result.error)")
            #expect(
                result.output == """
                    incident: cursor 2026-12-01 01:59:58, sys_id f00d0000000000000000000000000002 → 2026-11-30 00:00:00, \
                    no sys_id (the next run reads sys_updated_on >= 2026-11-30 00:00:00)
                    incident: removed the run journal of an interrupted run (\(incidentJournal))

                    """)
            var expected = Self.incidentState
            expected.cursor = "2026-11-30 00:00:00"
            expected.sysID = nil
            let state = try fixture.state()
            #expect(state.tables["incident"] == expected)
            #expect(state.tables.keys.sorted() == ["change_request", "incident", "old_task"])
            #expect(!FileManager.default.fileExists(atPath: incidentJournal))
            #expect(FileManager.default.fileExists(atPath: problemJournal + "/journal.jsonl"))
            // The lock was released: a run (or another set) may take it at once.
            let lock = try OutputDirectoryLock.acquire(
                directory: fixture.outputDirectory, runID: "next", started: Date())
            lock.release()
        }
    }

    @Test func setOnATableWithoutStateStartsItThere() async throws {
        try await Fixture.with { fixture in
            let problem = await fixture.main(["set", "--table", "problem", "--cursor", "2026-11-30 12:00:00"])
            #expect(problem.code == 0, "\(problem.error)")
            #expect(
                problem.output
                    == "problem: no state → cursor 2026-11-30 12:00:00, no sys_id (the next run reads "
                    + "sys_created_on >= 2026-11-30 12:00:00)\n")
            let incident = await fixture.main(["set", "--table", "incident", "--cursor", "2026-11-30 12:00:00"])
            #expect(incident.code == 0)
            #expect(
                incident.output.contains("incident: no state → cursor 2026-11-30 12:00:00, no sys_id, deletions cursor")
            )
            let state = try fixture.state()
            #expect(
                state.tables["problem"]
                    == IncrementalTableState(cursorField: "sys_created_on", cursor: "2026-11-30 12:00:00", runID: ""))
            #expect(
                state.tables["incident"]
                    == IncrementalTableState(
                        cursorField: "sys_updated_on", cursor: "2026-11-30 12:00:00", runID: "",
                        deletesCursor: "2026-11-30 12:00:00", filter: "active=true"))
        }
    }

    @Test func aCursorThatIsNotADateTimeIsExit64AndChangesNothing() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let journal = try fixture.writeJournal("incident")
            let before = fixture.bytes(fixture.stateFile)
            let result = await fixture.main(["set", "--table", "incident", "--cursor", "2026-11-30T00:00:00Z"])
            #expect(result.code == 64)
            #expect(
                result.error.hasPrefix(
                    "nowetl state set: --cursor needs a UTC date-time YYYY-MM-DD HH:MM:SS (quoted), got '2026-11-30T00:00:00Z'\n"
                ))
            #expect(result.output.isEmpty)
            #expect(fixture.bytes(fixture.stateFile) == before)
            #expect(FileManager.default.fileExists(atPath: journal + "/journal.jsonl"))
        }
    }

    @Test func setWaitsForNoOneWhileARunHoldsTheLock() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let journal = try fixture.writeJournal("incident")
            let before = fixture.bytes(fixture.stateFile)
            let lock = try OutputDirectoryLock.acquire(
                directory: fixture.outputDirectory, runID: "20261202T020000Z-beef", started: Date())
            defer { lock.release() }
            for arguments in [["set", "--table", "incident", "--cursor", "2026-11-30 00:00:00"], ["reset"]] {
                let result = await fixture.main(arguments)
                #expect(result.code == 75)
                #expect(result.error.hasPrefix("nowetl: \(fixture.outputDirectory)/.nowetl.lock: another nowetl run"))
                #expect(result.error.contains("run 20261202T020000Z-beef"))
                #expect(fixture.bytes(fixture.stateFile) == before)
                #expect(FileManager.default.fileExists(atPath: journal + "/journal.jsonl"))
            }
            // show only reads, and works while a run goes on.
            #expect(await fixture.main(["show"]).code == 0)
        }
    }

    @Test func anInterruptedCommitIsFinishedBeforeTheStateChanges() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            // A run staged a newer state and wrote its commit record, then died before renaming it.
            var committed = try fixture.state()
            committed.tables["problem"] = IncrementalTableState(
                cursorField: "sys_created_on", cursor: "2026-12-02 01:00:00", sysID: "ab", runID: "run-9", rows: 7)
            let staged = try committed.stage(outputDirectory: fixture.outputDirectory)
            try RunCommit.write(CommitRecord(runID: "run-9", files: [staged]), outputDirectory: fixture.outputDirectory)

            let result = await fixture.main(["set", "--table", "incident", "--cursor", "2026-11-30 00:00:00"])
            #expect(result.code == 0, "\(result.error)")
            #expect(
                result.error
                    == "nowetl: completed the commit of run run-9, which was interrupted while committing (1 files)\n")
            #expect(
                !FileManager.default.fileExists(atPath: RunCommit.recordPath(outputDirectory: fixture.outputDirectory)))
            let state = try fixture.state()
            #expect(state.tables["problem"] == committed.tables["problem"])
            #expect(state.tables["incident"]?.cursor == "2026-11-30 00:00:00")
        }
    }

    @Test func aLockACrashedRunLeftIsTakenOverWithANote() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            // What a killed run leaves: its holder line in the lock file, and no flock.
            try "pid 4242, run 20261201T020000Z-dead, started 2026-12-01T02:00:00Z\n".write(
                toFile: fixture.outputDirectory + "/" + OutputDirectoryLock.fileName, atomically: true, encoding: .utf8)
            let result = await fixture.main(["reset", "--table", "problem"])
            #expect(result.code == 0)
            #expect(
                result.error
                    == "nowetl: took over the output_dir lock of a run that did not finish "
                    + "(pid 4242, run 20261201T020000Z-dead, started 2026-12-01T02:00:00Z)\n")
            #expect(result.output == "problem: no state (the next run reads the whole table)\n")
            // Nothing changed, so the file was not rewritten.
            #expect(fixture.bytes(fixture.stateFile) == Data(Self.savedState.utf8))
        }
    }

    // MARK: - reset

    /// What `reset` prints for incident's saved state: its deletions' cursor stays.
    static let incidentReset =
        "incident: cursor 2026-12-01 01:59:58, sys_id f00d0000000000000000000000000002 (run 20261201T020000Z-7f3a) "
        + "→ no state (the next run reads the whole table); the deletions' cursor 2026-12-01 01:12:40 is kept"

    @Test func resetOfOneTableRemovesOnlyItsStateAndJournal() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let incidentJournal = try fixture.writeJournal("incident")
            let problemJournal = try fixture.writeJournal("problem")
            let result = await fixture.main(["reset", "--table", "incident"])
            #expect(result.code == 0, "\(result.error)")
            #expect(
                result.output == """
                    \(Self.incidentReset)
                    incident: removed the run journal of an interrupted run (\(incidentJournal))

                    """)
            // Only the deletions' cursor stays, so the deletions since the last run are still delivered.
            let kept = try #require(try fixture.state().tables["incident"])
            #expect(kept.cursor == nil && kept.sysID == nil && kept.signpost == nil && kept.runID.isEmpty)
            #expect(kept.deletesCursor == "2026-12-01 01:12:40")
            #expect(try fixture.state().tables.keys.sorted() == ["change_request", "incident", "old_task"])
            #expect(!FileManager.default.fileExists(atPath: incidentJournal))
            #expect(FileManager.default.fileExists(atPath: problemJournal + "/journal.jsonl"))

            let again = await fixture.main(["reset", "--table", "incident"])
            #expect(again.code == 0)
            #expect(
                again.output
                    == "incident: no state (the next run reads the whole table); the deletions' cursor "
                    + "2026-12-01 01:12:40 is kept\n")
        }
    }

    @Test func resetOfThePipelineForgetsEveryTableAndItsJournals() async throws {
        try await Fixture.with(state: Self.savedState) { fixture in
            let journals = try ["incident", "problem"].map(fixture.writeJournal)
            let result = await fixture.main(["reset"])
            #expect(result.code == 0, "\(result.error)")
            #expect(
                result.output == """
                    \(Self.incidentReset)
                    problem: no state (the next run reads the whole table)
                    change_request: cursor 2026-11-01 00:00:00 (run 20261101T020000Z-0001) → no state (the next run \
                    reads the whole table)
                    old_task: cursor — (run 20261130T020000Z-0002) → no state (the next run reads the whole table)
                    incident: removed the run journal of an interrupted run (\(journals[0]))
                    problem: removed the run journal of an interrupted run (\(journals[1]))

                    """)
            #expect(try fixture.state().tables.keys.sorted() == ["incident"])
            #expect(try fixture.state().tables["incident"]?.deletesCursor == "2026-12-01 01:12:40")
            for journal in journals { #expect(!FileManager.default.fileExists(atPath: journal)) }
            let shown = await fixture.main(["show"])
            #expect(shown.output.contains("next run reads    the whole table"), "\(shown.output)")
            #expect(!shown.output.contains("old_task"))
        }
    }

    @Test func resetBeforeTheFirstRunCreatesNothing() async throws {
        try await Fixture.with { fixture in
            let result = await fixture.main(["reset"])
            #expect(result.code == 0)
            #expect(
                result.output
                    == "incident: no state (the next run reads the whole table)\n"
                    + "problem: no state (the next run reads the whole table)\n")
            #expect(!FileManager.default.fileExists(atPath: fixture.outputDirectory))
        }
    }

    // MARK: - errors

    static let notIncrementalTables: [([String], String)] = [
        (["show", "--table", "incidnet"], "--table incidnet: the pipeline has no table 'incidnet'"),
        (
            ["set", "--table", "change_request", "--cursor", "2026-11-30 00:00:00"],
            "--table change_request: the table is not incremental (mode: full)"
        ),
        (["reset", "--table", "old_task"], "--table old_task: the pipeline has no table 'old_task'"),
    ]

    @Test(arguments: notIncrementalTables)
    func aTableThatIsNotIncrementalIsExit64NamingTheTablesThatAre(_ arguments: [String], _ message: String)
        async throws
    {
        try await Fixture.with(state: Self.savedState) { fixture in
            let before = fixture.bytes(fixture.stateFile)
            let result = await fixture.main(arguments)
            #expect(result.code == 64)
            #expect(result.error == "nowetl: \(message); its incremental tables are incident, problem\n")
            #expect(result.output.isEmpty)
            #expect(fixture.bytes(fixture.stateFile) == before)
        }
    }

    static let damagedFiles = [
        "{ \"tables\" : { \"incident\" : { \"cursor\" : ",
        "{ \"tables\" : { \"incident\" : { \"cursor_field\" : \"sys_updated_on\" } }, \"version\" : 1 }",
        "{ \"tables\" : {}, \"version\" : 2 }",
    ]

    @Test(arguments: damagedFiles) func aDamagedStateFileIsExit78AndStaysAsItIs(_ text: String) async throws {
        try await Fixture.with { fixture in
            try fixture.writeState(text)
            let journal = try fixture.writeJournal("incident")
            for arguments in [
                ["show"], ["set", "--table", "incident", "--cursor", "2026-11-30 00:00:00"], ["reset"],
                ["reset", "--table", "incident"],
            ] {
                let result = await fixture.main(arguments)
                #expect(result.code == 78, "\(arguments)")
                #expect(result.error.hasPrefix("nowetl: \(fixture.stateFile): "), "\(result.error)")
                #expect(result.error.hasSuffix("\n") && result.error.split(separator: "\n").count == 1)
                #expect(result.output.isEmpty)
                #expect(fixture.bytes(fixture.stateFile) == Data(text.utf8))
                #expect(FileManager.default.fileExists(atPath: journal + "/journal.jsonl"))
            }
        }
    }

    @Test func aPipelineWithoutIncrementalTablesSaysSo() async throws {
        try await Fixture.with { fixture in
            let text = try String(contentsOfFile: fixture.pipeline, encoding: .utf8)
            let full = text.replacingOccurrences(of: "    mode: incremental\n", with: "")
                .replacingOccurrences(of: "    lag_seconds: 30\n    deletes: true\n", with: "")
                .replacingOccurrences(of: "    cursor: sys_created_on\n", with: "")
            try full.write(toFile: fixture.pipeline, atomically: true, encoding: .utf8)
            let shown = await fixture.main(["show"])
            #expect(shown.code == 0, "\(shown.error)")
            #expect(
                shown.output
                    == "state file: \(fixture.stateFile)\n\nthe pipeline has no incremental tables (mode: incremental)\n"
            )
            let set = await fixture.main(["set", "--table", "incident", "--cursor", "2026-11-30 00:00:00"])
            #expect(set.code == 64)
            #expect(
                set.error
                    == "nowetl: --table incident: the table is not incremental (mode: full); the pipeline has no "
                    + "incremental tables (mode: incremental)\n")
        }
    }

    @Test func aPipelineThatDoesNotLoadIsExit78() async throws {
        try await Fixture.with { fixture in
            let (code, captured) = await InProcessNowETL.run(["state", "show", fixture.pipeline], environment: [:])
            #expect(code == 78)
            #expect(captured.standardError.hasPrefix(fixture.pipeline + ":"))
        }
    }
}
