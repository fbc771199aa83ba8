import Foundation
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// Memory stays flat in table size: writing many rows grows the process's peak RSS by a bounded amount.
///
/// The big run (200 000 rows into every sink) is opt-in — `NOWETL_SINK_MEMORY_TEST=1 swift test
/// --filter SinkMemoryTests` — to keep the default suite fast; by default 5 000 rows run with the same
/// checks. The peak RSS is process-wide and other tests run beside this one, so the bound is loose:
/// holding the rows (or the files) would cost far more than it allows.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SinkMemoryTests {
    static var rowCount: Int {
        ProcessInfo.processInfo.environment["NOWETL_SINK_MEMORY_TEST"] == "1" ? 200_000 : 5_000
    }

    static func peakRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    @Test func manyRowsThroughEverySinkKeepMemoryFlat() async throws {
        let directory = try SinkTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let schema = RowSchema(columns: [
            ColumnSchema(name: "sys_id"), ColumnSchema(name: "number"), ColumnSchema(name: "short_description"),
            ColumnSchema(name: "caller_id", isReference: true), ColumnSchema(name: "priority", type: .int),
            ColumnSchema(name: "opened_at", type: .dateTime), ColumnSchema(name: "cost", type: .decimal),
        ])
        let sinks: [any RecordSink] = [
            CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv.gz")),
            JSONSink(options: try SinkTestSupport.options(directory, "{table}.jsonl.gz")),
            XMLSink(
                options: try SinkTestSupport.options(directory, "{table}.xml.gz"), xml: XMLSinkOptions(format: .unload)),
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
                batch[row, 2] = .string("Row \(produced): the printer on floor \(produced % 9) is out of toner, again")
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
        #expect(files.allSatisfy { $0.rows == rows })
        let plainCSV = files.last!.bytes
        #expect(plainCSV > rows * 100)  // the plain file holds all of it
        // Holding every row would cost well over 100 bytes per row; flat streaming needs a few MB.
        #expect(growthMB < 40, "peak RSS grew by \(growthMB) MB for \(rows) rows (\(plainCSV / 1_048_576) MB of CSV)")
    }
}
