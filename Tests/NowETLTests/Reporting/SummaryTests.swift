import Foundation
import NowETL
import Testing

/// The end-of-run summary table and the --summary-json report, as pure functions of a result.
@Suite(.timeLimit(.minutes(5))) struct SummaryTests {
    static let started = Date(timeIntervalSince1970: 1_709_258_400)

    static func file(_ table: String, _ rows: Int) -> OutputFile {
        OutputFile(
            path: "\(table).csv", absolutePath: "/x/\(table).csv", table: table, format: "csv", part: nil, rows: rows,
            bytes: 100, sha256: String(repeating: "a", count: 64))
    }

    static let finished = PipelineRunResult(
        runID: "20240301T020000Z-7f3a", runStarted: started, seconds: 2.04,
        tables: [
            TableOutcome(
                table: "incident", status: .ok,
                summary: TableSummary(
                    table: "incident", rows: 2000, pages: 4, requests: 6, retries: 1, rejects: 0, sourceCount: 2000,
                    seconds: 1.6, files: [file("incident", 2000)]), seconds: 1.6),
            TableOutcome(
                table: "problem", status: .rejectsOverThreshold,
                summary: TableSummary(
                    table: "problem", rows: 198, pages: 1, requests: 2, retries: 0, rejects: 3, sourceCount: 201,
                    seconds: 0.3, files: [file("problem", 198)]), seconds: 0.3),
        ], manifestPath: "out/demo/manifest.json", runError: nil, exitCode: 2)

    @Test func theSummaryTableOfAFinishedRun() {
        let expected = """
            run 20240301T020000Z-7f3a: finished with rejects over the threshold (exit 2), 2198 rows in 2.0 s

            table     status   rows  source  pages  retries  rejects  seconds  rows/s
            incident  ok       2000  2000        4        1        0      1.6    1250
            problem   rejects   198  201 !       1        0        3     0.30     660
            total              2198              5        1        3      1.9    1157

            ! rows differ from the instance's count: records changed during the export, or were rejected.
            2 files, manifest out/demo/manifest.json

            """
        #expect(RunSummaryTable.render(Self.finished) == expected)
    }

    @Test func theSummaryTableOfAFailedRun() {
        let result = PipelineRunResult(
            runID: "r", runStarted: Self.started, seconds: 0.5,
            tables: [
                TableOutcome(
                    table: "incident", status: .failed, error: "HTTP 401 for GET …", exitCode: 77, seconds: 0.25),
                TableOutcome(table: "problem", status: .notRun),
            ], manifestPath: nil, runError: nil, exitCode: 77)
        let expected = """
            run r: failed (exit 77), 0 rows in 0.50 s

            table     status   rows  source  pages  retries  rejects  seconds  rows/s
            incident  failed      -  -           -        -        -     0.25       -
            problem   not_run     -  -           -        -        -        -       -

            incident: error: HTTP 401 for GET … (exit 77)
            not_run: the run stops at the first failed table (--keep-going runs the rest)
            0 files; no manifest written (the previous one is untouched)

            """
        #expect(RunSummaryTable.render(result) == expected)
    }

    @Test(arguments: [(0.0, "0.00"), (0.042, "0.04"), (0.999, "1.0"), (1.25, "1.3"), (61.04, "61.0"), (-1, "-")])
    func secondsAreShortAndRounded(_ value: Double, _ text: String) {
        #expect(RunSummaryTable.seconds(value) == text)
    }

    @Test func theJSONReportHasTheTablesTotalsAndStatus() throws {
        let report = RunReport(Self.finished)
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["run_id"] as? String == "20240301T020000Z-7f3a")
        #expect(object["run_started"] as? String == "2024-03-01T02:00:00Z")
        #expect(object["status"] as? String == "rejects_over_threshold")
        #expect(object["exit_code"] as? Int == 2)
        #expect(object["manifest"] as? String == "out/demo/manifest.json")
        let totals = try #require(object["totals"] as? [String: Int])
        #expect(totals == ["rows": 2198, "pages": 5, "requests": 8, "retries": 1, "rejects": 3, "files": 2])
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.map { $0["status"] as? String } == ["ok", "rejects_over_threshold"])
        #expect(tables[1]["source_count"] as? Int == 201)
        #expect(tables[0]["rows_per_second"] as? Double == 1250)
        let files = try #require(tables[0]["files"] as? [[String: Any]])
        #expect(files.first?["path"] as? String == "incident.csv")
        #expect(files.first?["absolutePath"] == nil)
        #expect(try RunReport(Self.finished).jsonData() == report.jsonData())
        #expect(try JSONDecoder().decode(RunReport.self, from: report.jsonData()) == report)
    }

    /// Records hidden by ACLs are a column and a JSON figure of their own; the `!` marks only what
    /// rows and hidden records do not explain.
    @Test func hiddenRowsAreAFigureOfTheirOwn() throws {
        let result = PipelineRunResult(
            runID: "r", runStarted: Self.started, seconds: 1,
            tables: [
                TableOutcome(
                    table: "incident", status: .ok,
                    summary: TableSummary(
                        table: "incident", rows: 1504, pages: 160, requests: 200, sourceCount: 6016, seconds: 0.5,
                        hiddenRows: 4512, pageSizeReductions: 3), seconds: 0.5),
                TableOutcome(
                    table: "problem", status: .ok,
                    summary: TableSummary(
                        table: "problem", rows: 90, pages: 1, requests: 2, sourceCount: 100, seconds: 0.5,
                        hiddenRows: 8), seconds: 0.5),
            ], manifestPath: "m.json", runError: nil, exitCode: 0)
        let expected = """
            run r: ok (exit 0), 1594 rows in 1.0 s

            table     status  rows  source  hidden  pages  retries  rejects  seconds  rows/s
            incident  ok      1504  6016      4512    160        0        0     0.50    3008
            problem   ok        90  100 !        8      1        0        0     0.50     180
            total             1594            4520    161        0        0      1.0    1594

            hidden: records the instance counts that ACLs hid from this user (not exported).
            ! rows differ from the instance's count: records changed during the export, or were rejected.
            incident: the instance gave up on 3 pages (cancelled transactions or cut bodies); they were fetched again at a smaller page size
            0 files, manifest m.json

            """
        #expect(RunSummaryTable.render(result) == expected)
        let tables = try #require(
            (try JSONSerialization.jsonObject(with: RunReport(result).jsonData()) as? [String: Any])?["tables"]
                as? [[String: Any]])
        #expect(tables.map { $0["hidden_rows"] as? Int } == [4512, 8])
        #expect(tables.map { $0["page_size_reductions"] as? Int } == [3, 0])
    }

    /// Deletion records get a column of their own (after rows, which count them), and the last line
    /// names the database and instance tables a run loaded beside its files.
    @Test func deletionsAndLoadedTablesAreShown() {
        var incident = TableSummary(
            table: "incident", rows: 120, pages: 2, requests: 3, sourceCount: 105, seconds: 0.5)
        incident.deleted = 15
        incident.databaseTables = [
            DatabaseTableLoad(
                database: "/x/report.db", table: "incident", sourceTable: "incident", mode: .merge, rows: 105,
                deleted: 15, pruned: 2, loadID: "l")
        ]
        var migrated = InstanceTableLoad(
            instance: "https://target.example", table: "incident", mode: .upsert, loadID: "l")
        (migrated.inserted, migrated.updated) = (100, 5)
        incident.instanceTables = [migrated]
        let result = PipelineRunResult(
            runID: "r", runStarted: Self.started, seconds: 1,
            tables: [TableOutcome(table: "incident", status: .ok, summary: incident, seconds: 0.5)],
            manifestPath: "m.json", runError: nil, exitCode: 0)
        let expected = """
            run r: ok (exit 0), 120 rows in 1.0 s

            table     status  rows  deleted  source  pages  retries  rejects  seconds  rows/s
            incident  ok       120       15  105         2        0        0     0.50     240

            0 files, 1 database table (105 rows, 17 deleted or pruned), 1 instance table (105 records written), \
            manifest m.json

            """
        #expect(RunSummaryTable.render(result) == expected)
    }

    @Test func writingTheReportReplacesTheFileAtomically() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-summary-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/summary.json").path
        try RunReport(Self.finished).write(toFile: path)
        try RunReport(Self.finished).write(toFile: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == RunReport(Self.finished).jsonData())
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("nested").path) == [
                "summary.json"
            ])
    }
}
