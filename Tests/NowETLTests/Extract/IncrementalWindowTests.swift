import Foundation
import NowData
import Testing

@testable import NowETL

/// The parts of an incremental run, one at a time: the window's query, the signpost, where a run
/// continues from (saved state, `start:`, `--full-refresh`, an interrupted run's journal), the
/// deletions' window, the plan, and the greatest `(cursor, sys_id)` the journal keeps.
@Suite(.timeLimit(.minutes(1))) struct IncrementalWindowTests {
    static func table(_ extra: String = "", filter: String = "active=true") throws -> TableConfiguration {
        let yaml = """
            version: 1
            source: { instance: "https://example.service-now.com", auth: { basic: { user: u, password: p } } }
            tables:
              - table: incident
                filter: "\(filter)"
                mode: incremental
                fields: [sys_id, number]
            \(extra)
            outputs:
              - json: { path: "{table}-{run_id}.jsonl" }
            """
        return try #require(try PipelineLoader.load(text: yaml, file: "p.yaml", environment: [:]).tables.first)
    }

    @Test func theWindowAfterACursorAndSysIDReadsTheBoundarySecondAgainAfterTheSysID() {
        let window = IncrementalWindow(
            field: "sys_updated_on", cursor: "2026-12-01 02:00:00", sysID: "abc", signpost: "2026-12-01 03:00:00")
        let query = EncodedQuery().and(window.terms).description
        #expect(
            query
                == "sys_updated_on>=2026-12-01 02:00:00^sys_updated_on>2026-12-01 02:00:00^ORsys_id>abc"
                + "^sys_updated_on<=2026-12-01 03:00:00")
    }

    @Test func aFirstWindowHasNoLowerBoundAndTakesRecordsWithoutACursorValue() {
        let window = IncrementalWindow(field: "sys_updated_on", signpost: "2026-12-01 03:00:00")
        #expect(
            EncodedQuery().and(window.terms).description
                == "sys_updated_on<=2026-12-01 03:00:00^ORsys_updated_onISEMPTY")
        let cursorOnly = IncrementalWindow(
            field: "u_synced", cursor: "2026-01-01 00:00:00", signpost: "2026-12-01 03:00:00")
        #expect(
            EncodedQuery().and(cursorOnly.terms).description
                == "u_synced>=2026-01-01 00:00:00^u_synced<=2026-12-01 03:00:00")
    }

    @Test func theWindowGoesIntoEveryOrGroupOfTheFilter() throws {
        let window = IncrementalWindow(
            field: "sys_updated_on", cursor: "2026-12-01 02:00:00", signpost: "2026-12-01 03:00:00")
        let filter = try EncodedQuery(parsing: "active=true^NQpriority=1")
        #expect(
            filter.and(window.terms).description
                == "active=true^sys_updated_on>=2026-12-01 02:00:00^sys_updated_on<=2026-12-01 03:00:00"
                + "^NQpriority=1^sys_updated_on>=2026-12-01 02:00:00^sys_updated_on<=2026-12-01 03:00:00")
        #expect(filter.and([]) == filter)
    }

    @Test func theSignpostIsTheLastWholeSecondBeforeTheStartMinusTheLag() throws {
        let started = try #require(TableAPIDateFormat.date(from: "2026-12-01 02:00:00")).addingTimeInterval(0.75)
        #expect(IncrementalWindow.signpost(runStarted: started, lagSeconds: 0) == "2026-12-01 01:59:59")
        #expect(IncrementalWindow.signpost(runStarted: started, lagSeconds: 60) == "2026-12-01 01:58:59")
    }

    @Test func aRunContinuesAfterTheSavedStateOrFromStart() throws {
        let table = try Self.table()
        let settings = try #require(table.incremental)
        let started = try #require(TableAPIDateFormat.date(from: "2026-12-01 02:00:00"))
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())").path
        let first = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: nil, runStarted: started),
            journal: journal, restart: false)
        #expect(first.rows.cursor == nil && first.rows.signpost == "2026-12-01 01:59:59" && first.deletes == nil)

        let saved = IncrementalTableState(
            cursorField: "sys_updated_on", cursor: "2026-11-30 23:00:00", sysID: "f00", runID: "r1",
            deletesCursor: "2026-11-30 22:00:00", deletesSysID: "d00")
        let next = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: saved, runStarted: started),
            journal: journal, restart: false)
        #expect(next.rows.cursor == "2026-11-30 23:00:00" && next.rows.sysID == "f00")

        var withStart = settings
        withStart.start = "2024-01-01 00:00:00"
        withStart.deletes = true
        let refresh = try TableRunner.windows(
            of: table, settings: withStart,
            request: IncrementalRequest(saved: saved, fullRefresh: true, runStarted: started), journal: journal,
            restart: false)
        #expect(refresh.rows.cursor == "2024-01-01 00:00:00" && refresh.rows.sysID == nil)
        // A full refresh keeps the deletions' cursor: deletions since the last run are still delivered.
        #expect(refresh.deletes?.cursor == "2026-11-30 22:00:00" && refresh.deletes?.sysID == "d00")
    }

    @Test func aStateKeptForAnotherCursorIsRefusedUnlessFullRefresh() throws {
        let table = try Self.table()
        let settings = try #require(table.incremental)
        let saved = IncrementalTableState(cursorField: "opened_at", cursor: "2026-11-30 23:00:00", runID: "r1")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())").path
        #expect(throws: NowETLError.self) {
            try TableRunner.windows(
                of: table, settings: settings, request: IncrementalRequest(saved: saved, runStarted: Date()),
                journal: journal, restart: false)
        }
        let refresh = try TableRunner.windows(
            of: table, settings: settings,
            request: IncrementalRequest(saved: saved, fullRefresh: true, runStarted: Date()), journal: journal,
            restart: false)
        #expect(refresh.rows.cursor == nil)
    }

    @Test func aRerunKeepsTheSignpostItsJournalRecordedForTheSameLowerBound() throws {
        let table = try Self.table()
        let settings = try #require(table.incremental)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorded = IncrementalWindow(field: "sys_updated_on", signpost: "2026-12-01 01:00:00")
        let (journal, _) = try TableJournal.open(
            directory: directory, fingerprint: "f", partitions: SysIDRange.partitions(1), restart: false,
            window: recorded)
        journal.close()
        #expect(TableJournal.recordedWindow(directory: directory) == recorded)
        let later = Date()
        let rerun = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: nil, runStarted: later),
            journal: directory, restart: false)
        #expect(rerun.rows.signpost == "2026-12-01 01:00:00")
        let restarted = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: nil, runStarted: later),
            journal: directory, restart: true)
        #expect(restarted.rows.signpost != "2026-12-01 01:00:00")
        // Another lower bound (the state was set meanwhile): a new signpost.
        let saved = IncrementalTableState(cursorField: "sys_updated_on", cursor: "2026-11-30 00:00:00", runID: "r")
        let moved = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: saved, runStarted: later),
            journal: directory, restart: false)
        #expect(moved.rows.signpost != "2026-12-01 01:00:00")
    }

    @Test func theFirstDeletionWindowStartsAfterTheSignpostAndIsEmpty() {
        let window = DeletionCapture.window(after: nil, signpost: "2026-12-01 01:59:59")
        #expect(window.cursor == "2026-12-01 02:00:00" && window.sysID == nil && window.field == "sys_created_on")
        let plan = DeletionCapture(table: "incident", window: window).plan(pageSize: 100)
        #expect(plan.table == "sys_audit_delete")
        #expect(
            plan.filter.description
                == "tablename=incident^sys_created_on>=2026-12-01 02:00:00^sys_created_on<=2026-12-01 01:59:59")
    }

    @Test func thePlanReadsTheCursorAndAddsTheDeletionColumn() throws {
        var table = try Self.table()
        table.incremental?.deletes = true
        table.incremental?.cursor = "opened_at"
        let window = IncrementalWindow(field: "opened_at", signpost: "2026-12-01 01:59:59")
        let source = SourceConfiguration(
            instance: try #require(URL(string: "https://example.service-now.com")),
            auth: .basic(user: "u", password: Secret("p")))
        let plan = TablePlanner.plan(table, dictionary: [], source: source, window: window)
        #expect(plan.readConfiguration.includeFields == ["sys_id", "number", "opened_at"])
        #expect(plan.columns.map(\.schema.name) == ["sys_id", "number", "_deleted_at"])
        #expect(plan.columns.last?.schema.type == .dateTime)
        #expect(plan.capturesDeletes && plan.sysIDColumn == 0)
        #expect(plan.filter.description == "active=true^opened_at<=2026-12-01 01:59:59^ORopened_atISEMPTY")
        // A full table plans as before.
        let full = TablePlanner.plan(table, dictionary: [], source: source)
        #expect(full.columns.map(\.schema.name) == ["sys_id", "number"] && full.incremental == nil)
    }

    @Test func theJournalKeepsTheGreatestCursorOfEveryPartAcrossAResume() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let schema = RowSchema(columns: [ColumnSchema(name: "sys_id")])
        var batch = RowBatch(schema: schema)
        batch.append(Row(values: [.string("a1")]))
        let (journal, _) = try TableJournal.open(
            directory: directory, fingerprint: "f", partitions: SysIDRange.partitions(1), restart: false)
        let spill = try journal.spillWriter(for: 0)
        for (value, sysID) in [
            ("2026-12-01 01:00:00", "b"), ("2026-12-01 02:00:00", "a"), ("2026-12-01 01:30:00", "z"),
        ] {
            _ = try journal.appendPage(
                0, frame: SpillFrame.encode(batch, rejections: []), to: spill, expectedUpper: nil, cursor: sysID,
                rows: 1, rejects: 0, requests: 1, high: CursorMark(value: value, sysID: sysID))
        }
        spill.close()
        journal.close()
        let (reopened, _) = try TableJournal.open(
            directory: directory, fingerprint: "f", partitions: SysIDRange.partitions(1), restart: false)
        defer { reopened.close() }
        #expect(reopened.part(0)?.high == CursorMark(value: "2026-12-01 02:00:00", sysID: "a"))
    }

    @Test func deletionsNewToATableStartAfterItsLastSignpost() {
        let saved = IncrementalTableState(
            cursorField: "sys_updated_on", cursor: "2026-11-30 23:00:00", signpost: "2026-11-30 23:59:59", runID: "r")
        let window = DeletionCapture.window(after: saved, signpost: "2026-12-01 01:59:59")
        #expect(
            window.cursor == "2026-12-01 00:00:00" && window.sysID == nil && window.signpost == "2026-12-01 01:59:59")
    }

    @Test func childClassesJoinTheDeletionQuery() {
        var capture = DeletionCapture(
            table: "task",
            window: IncrementalWindow(
                field: "sys_created_on", cursor: "2026-12-01 00:00:00",
                signpost: "2026-12-01 01:59:59"))
        capture.childTables = ["incident", "problem"]
        #expect(
            capture.plan(pageSize: 10).filter.description
                == "tablenameINtask,incident,problem^sys_created_on>=2026-12-01 00:00:00"
                + "^sys_created_on<=2026-12-01 01:59:59")
    }

    @Test(arguments: [
        #"{"version":1,"tables":{"incident":{"cursor_field":"sys_updated_on","cursor":"2026-12-01","run_id":"r","rows":0,"filter":""}}}"#,
        #"{"version":1,"tables":{"incident":{"cursor_field":"sys_updated_on","cursor":"2026-12-01 00:00:00","sys_id":"a^NQb","run_id":"r","rows":0,"filter":""}}}"#,
        #"{"version":1,"tables":{"incident":{"cursor_field":"sys_updated_on","deletes_cursor":"yesterday","run_id":"r","rows":0,"filter":""}}}"#,
        #"{"version":1,"tables":{"incident":{"cursor_field":"sys_updated_on","run_id":"r""#,
        #"{"version":2,"tables":{}}"#,
    ])
    func aStateFileWithValuesNoRunWritesIsRefusedNamingTheFile(text: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/.nowetl", withIntermediateDirectories: true)
        try text.write(toFile: directory + "/.nowetl/state.json", atomically: true, encoding: .utf8)
        do {
            _ = try IncrementalState.read(outputDirectory: directory)
            Issue.record("\(text) was read")
        } catch {
            #expect(error.description.contains(directory + "/.nowetl/state.json"))
            #expect(error.exitCode == 78)
        }
    }

    @Test func aColumnNamedLikeTheDeletionColumnIsRefused() throws {
        do {
            _ = try Self.table("    deletes: true\n    columns: [{ name: _deleted_at, path: sys_id }]")
            Issue.record("a column named _deleted_at was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains("has a column named _deleted_at"), "\(message)")
        }
        #expect(try Self.table("    columns: [{ name: _deleted_at, path: sys_id }]").incremental?.deletes == false)
    }

    @Test func theSignpostFollowsTheEarlierOfTheTwoClocks() throws {
        let table = try Self.table()
        let settings = try #require(table.incremental)
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())").path
        let local = try #require(TableAPIDateFormat.date(from: "2026-12-01 02:00:00"))
        let instanceBehind = local.addingTimeInterval(-120)
        let behind = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: nil, runStarted: local), journal: journal,
            restart: false, instanceNow: instanceBehind)
        #expect(behind.rows.signpost == "2026-12-01 01:57:59")
        let instanceAhead = local.addingTimeInterval(120)
        let ahead = try TableRunner.windows(
            of: table, settings: settings, request: IncrementalRequest(saved: nil, runStarted: local), journal: journal,
            restart: false, instanceNow: instanceAhead)
        #expect(ahead.rows.signpost == "2026-12-01 01:59:59")
    }
}
