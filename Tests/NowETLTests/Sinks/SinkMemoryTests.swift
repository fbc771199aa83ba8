import Foundation
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// Memory stays flat in table size: writing many rows grows the process's peak RSS by a bounded amount.
///
/// The peak RSS is process-wide, and in the test run other suites run beside this one, so the figure is
/// taken in a process of its own: ``peakRSSGrowthOfManyRowsStaysBounded()`` starts this test binary again
/// with only ``sinksInTheirOwnProcess()`` selected, which writes the rows and reports its growth through a
/// file. 200 000 rows by default (`NOWETL_SINK_MEMORY_ROWS` for more); holding the rows or a file would
/// cost well beyond the bound.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SinkMemoryTests {
    /// Set in the child process: where it writes its figure.
    static let reportVariable = "NOWETL_SINK_MEMORY_REPORT"

    static var rowCount: Int {
        ProcessInfo.processInfo.environment["NOWETL_SINK_MEMORY_ROWS"].flatMap { Int($0) } ?? 200_000
    }

    static func peakRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    /// What the child reports: rows written, bytes of the plain CSV, peak RSS growth in MB.
    struct Report: Codable {
        var rows: Int
        var plainCSVBytes: Int
        var growthMB: Int
        var filesWithAllRows: Bool
    }

    @Test func peakRSSGrowthOfManyRowsStaysBounded() async throws {
        try await withScratchDirectory { (directory: String) in
            let report = directory + "/report.json"
            let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let child = try await Subprocess.run(
                binary,
                ["--testing-library", "swift-testing", "--filter", "SinkMemoryTests/sinksInTheirOwnProcess"],
                environment: [Self.reportVariable: report], timeout: 280)
            #expect(child.status == 0, "\(child.stdoutText.suffix(2_000)) \(child.stderrText.suffix(2_000))")
            let figures = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
            let rows = Self.rowCount
            #expect(figures.rows == rows && figures.filesWithAllRows)
            #expect(figures.plainCSVBytes > rows * 100)  // the plain file holds all of it
            // Holding every row would cost well over 100 bytes per row (20 MB per 200 000), as would holding
            // the 30 MB plain CSV; streaming needs about 17 MB, whatever the row count.
            #expect(
                figures.growthMB < 40,
                "peak RSS grew by \(figures.growthMB) MB for \(rows) rows (\(figures.plainCSVBytes / 1_048_576) MB of CSV)"
            )
        }
    }

    /// The measurement, run only in the child process ``peakRSSGrowthOfManyRowsStaysBounded()`` starts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[reportVariable] != nil))
    func sinksInTheirOwnProcess() async throws {
        let reportPath = try #require(ProcessInfo.processInfo.environment[Self.reportVariable])
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: [
                ColumnSchema(name: "sys_id"), ColumnSchema(name: "number"), ColumnSchema(name: "short_description"),
                ColumnSchema(name: "caller_id", isReference: true), ColumnSchema(name: "priority", type: .int),
                ColumnSchema(name: "opened_at", type: .dateTime), ColumnSchema(name: "cost", type: .decimal),
            ])
            let sinks: [any RecordSink] = [
                CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv.gz")),
                JSONSink(options: try SinkTestSupport.options(directory, "{table}.jsonl.gz")),
                XMLSink(
                    options: try SinkTestSupport.options(directory, "{table}.xml.gz"),
                    xml: XMLSinkOptions(format: .unload)),
                CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv")),
            ]
            let rows = Self.rowCount
            var batch = RowBatch(schema: schema, capacity: 1_000)
            for sink in sinks { try await sink.open(schema: schema, context: SinkTestSupport.context()) }
            let before = Self.peakRSSKilobytes()
            var produced = 0
            while produced < rows {
                batch.removeAll()
                for _ in 0..<min(1_000, rows - produced) {
                    let row = batch.appendRow()
                    // Fresh heap strings per row (longer than the 15 bytes Swift keeps inline).
                    batch[row, 0] = .string("00000000000000000000" + String(produced, radix: 16))
                    batch[row, 1] = .string("INC\(10_000_000 + produced)")
                    batch[row, 2] = .string(
                        "Row \(produced): the printer on floor \(produced % 9) is out of toner, again")
                    batch[row, 3] = .string("11111111111111111111" + String(produced * 7, radix: 16))
                    batch.setDisplayValue("Caller number \(produced % 977)", row: row, column: 3)
                    batch[row, 4] = .int(produced % 5 + 1)
                    batch[row, 5] = .dateTime(secondsSinceEpoch: 1_700_000_000 + produced)
                    batch[row, 6] = .decimal("\(produced).25")
                    produced += 1
                }
                for sink in sinks { try await sink.write(batch) }
            }
            let files = try await SinkTestSupport.commit(sinks)
            let growthMB = (Self.peakRSSKilobytes() - before) / 1_024
            let plainCSV = try #require(files.last).bytes
            let report = Report(
                rows: rows, plainCSVBytes: plainCSV, growthMB: growthMB,
                filesWithAllRows: files.count == sinks.count && files.allSatisfy { $0.rows == rows })
            try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: reportPath))
        }
    }
}
