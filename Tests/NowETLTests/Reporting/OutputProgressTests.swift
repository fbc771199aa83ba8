import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// Progress of what outputs do after the extraction: a migration's rows written into the target, a
/// database's rows loaded, shown like the extraction's (live line, or a log line at most every interval).
@Suite(.timeLimit(.minutes(5))) struct OutputProgressTests {
    static let target = "instance https://target.example.com"

    /// An extraction of 600 rows in 6 pages, then a migration of them in groups of 100, each 4 s apart.
    static func migrate(_ reporter: ProgressReporter, _ clock: ProgressTests.TestClock) {
        reporter.begin(table: "incident")
        reporter.handle(.counted(table: "incident", count: 600))
        for page in 1...6 { reporter.handle(.page(table: "incident", rows: 100, totalRows: page * 100, pages: page)) }
        reporter.handle(
            .output(table: "incident", OutputProgress(output: target, phase: .writing, rows: 0, total: 600)))
        for group in 1...6 {
            clock.advance(4)
            reporter.handle(
                .output(
                    table: "incident", OutputProgress(output: target, phase: .writing, rows: group * 100, total: 600)))
        }
        reporter.handle(.finished(TableSummary(table: "incident", rows: 600)))
    }

    @Test func withoutATerminalAMigrationLogsProgressAtMostEveryInterval() {
        let captured = CapturedStreams()
        let clock = ProgressTests.TestClock()
        let logger = RunLogger(console: captured.console, now: clock.now)
        Self.migrate(ProgressReporter(style: .logLines(interval: 10), logger: logger, now: clock.now), clock)
        // Groups at 4, 8, 12, 16, 20, 24 s after the phase began: lines at 12 and 24 s.
        #expect(captured.errorLines.count == 2, "\(captured.errorLines)")
        #expect(
            captured.errorLines.first?.hasSuffix(
                "msg=progress table=incident output=\"instance https://target.example.com\" phase=writing rows=300 "
                    + "total=600 rows_per_second=25 eta_seconds=12") == true, "\(captured.errorLines)")
        #expect(captured.errorLines.last?.contains("rows=600 total=600") == true)
    }

    @Test func onATerminalANewPhaseIsDrawnAtOnceAndThenAtTheRedrawRate() {
        let captured = CapturedStreams(isTerminal: true)
        let clock = ProgressTests.TestClock()
        let logger = RunLogger(console: captured.console, now: clock.now)
        Self.migrate(ProgressReporter(style: .liveLine(redrawInterval: 0.1), logger: logger, now: clock.now), clock)
        let erase = "\r\u{1B}[K"
        let drawn = captured.standardError.components(separatedBy: erase).filter { !$0.isEmpty }
        // The extraction's count, then the phase at once (no time passed), then every group.
        #expect(drawn.first == "incident  0/600 rows  0%  0 pages")
        #expect(drawn.dropFirst().first == "incident → instance https://target.example.com  writing 0/600 rows  0%")
        #expect(
            drawn.dropFirst(2).first
                == "incident → instance https://target.example.com  writing 100/600 rows  16%  25 rows/s  ETA 0:20")
        #expect(drawn.count == 8)
    }

    @Test func aDatabaseLoadCountsAgainstTheRowsExtracted() {
        var line = ProgressLine(table: "incident", count: 1000, rows: 1000, pages: 10, elapsed: 9)
        line.output = OutputProgress(output: "SQLite output report.db", phase: .loading, rows: 250, total: 1000)
        line.outputElapsed = 2
        #expect(line.rendered == "incident → SQLite output report.db  loading 250/1000 rows  25%  125 rows/s  ETA 0:06")
        #expect(
            line.logFields.map { "\($0.0)=\($0.1)" } == [
                "table=incident", "output=SQLite output report.db", "phase=loading", "rows=250", "total=1000",
                "rows_per_second=125", "eta_seconds=6",
            ])
    }

    // MARK: - End to end

    @Test func aRateLimitedMigrationShowsItsRowsBeforeItFinishes() async throws {
        try await withNowSim(arguments: seededNowSim("incident=60", value: 17)) { source in
            try await withNowSim(arguments: ["--user", "admin:admin:admin", "--user", "migrator:migrator-Pw0rd:admin"])
            {
                target in
                try await withScratchDirectory { (directory: URL) in
                    // At most 20 writes a second (a Batch API call of 25 takes 25 slots): 60 rows take 3 s at
                    // least, so the live line (redrawn at most every 0.1 s) shows rows between none and all
                    // whatever the machine's speed.
                    try PipelineYAML(
                        source, tables: "  - table: incident\n    fields: [sys_id, number, short_description]",
                        outputs: """
                              - instance:
                                  instance: \(target.baseURL.absoluteString)
                                  auth: { basic: { user: migrator, password: migrator-Pw0rd } }
                                  concurrency: 1
                                  rate_per_second: 20
                                  retry: { attempts: 30, max_wait_seconds: 0.2, total_seconds: 120 }
                            """
                    ).write("p.yaml", in: directory)
                    let result = try await target.withFaults(["rate-limit:every=7,retry-after=1"]) {
                        try await NowETLProcess.run(["run", "p.yaml", "--progress", "on"], in: directory, timeout: 300)
                    }
                    try #require(result.status == 0, "\(result.stderrText)")
                    let log = result.stderrText
                    let prefix = "incident → instance \(target.baseURL.absoluteString)  writing "
                    #expect(log.contains(prefix + "0/60 rows"), "\(log)")
                    let written = try #require(log.range(of: "msg=\"instance table written\""))
                    let partial = log.components(separatedBy: prefix).dropFirst().compactMap { text in
                        Int(text.prefix { $0 != "/" })
                    }.filter { (1..<60).contains($0) }
                    #expect(!partial.isEmpty, "\(log)")
                    // Drawn before the migration finished.
                    let last = try #require(log.range(of: prefix, options: .backwards))
                    #expect(last.lowerBound < written.lowerBound)
                }
            }
        }
    }

    @Test func aDatabaseLoadShowsItsRowsAndItsLastSteps() async throws {
        try await withNowSim(arguments: seededNowSim("incident=120", value: 19)) { source in
            try await withScratchDirectory { (directory: URL) in
                try PipelineYAML(
                    source, source: ["page_size: 50"], tables: "  - table: incident\n    fields: [sys_id, number]",
                    outputs: #"  - sqlite: { path: "report.db" }"#
                ).write("p.yaml", in: directory)
                let result = try await NowETLProcess.run(["run", "p.yaml", "--progress", "on"], in: directory)
                try #require(result.status == 0, "\(result.stderrText)")
                let log = result.stderrText
                #expect(log.contains("incident → SQLite output report.db  loading "), "\(log)")
                #expect(log.contains("incident → SQLite output report.db  finishing 120 rows"), "\(log)")
            }
        }
    }
}
