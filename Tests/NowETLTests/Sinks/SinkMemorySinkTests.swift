import Foundation
import Testing

@testable import NowETL

/// The in-memory sink of `nowetl preview`: rows kept as written up to the limit, nothing staged, the
/// same open/write/prepare/commit/abort life as the file sinks.
@Suite(.timeLimit(.minutes(2))) struct SinkMemorySinkTests {
    static let schema = RowSchema(columns: [
        ColumnSchema(name: "number"), ColumnSchema(name: "caller_id", isReference: true),
        ColumnSchema(name: "priority", type: .int),
    ])

    static func batch(_ range: Range<Int>) -> RowBatch {
        var batch = RowBatch(schema: schema, capacity: range.count)
        for index in range {
            let row = batch.appendRow(recordTable: index.isMultiple(of: 2) ? "incident" : nil)
            batch[row, 0] = .string("INC\(index)")
            batch[row, 1] = .string(String(format: "%032x", index))
            batch.setDisplayValue("Caller \(index)", row: row, column: 1)
            batch[row, 2] = index == 1 ? nil : .int(index)
        }
        return batch
    }

    @Test func rowsAreKeptAsWrittenAndNothingIsStaged() async throws {
        let sink = MemorySink()
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
        try await sink.write(Self.batch(0..<3))
        try await sink.write(Self.batch(3..<5))
        #expect(!sink.isFull)
        #expect(try await sink.prepare() == PreparedOutput())
        #expect(try await sink.commit().isEmpty)
        await sink.abort()  // after the commit: nothing to throw away
        #expect(sink.rows.count == 5 && sink.droppedRowCount == 0)
        #expect(sink.schema == Self.schema && sink.context == SinkTestSupport.context())
        #expect(
            sink.rows[1]
                == Row(
                    values: [.string("INC1"), .string(String(format: "%032x", 1)), nil],
                    displayValues: [nil, "Caller 1", nil]))
        #expect(sink.rows[4].recordTable == "incident")
        #expect(sink.rows.map { $0.values[0] } == (0..<5).map { .string("INC\($0)") })
    }

    @Test(arguments: [0, 1, 4, 5, 6])
    func theRowLimitKeepsTheFirstRowsAndSaysWhenItIsFull(limit: Int) async throws {
        let sink = MemorySink(rowLimit: limit)
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
        try await sink.write(Self.batch(0..<3))
        try await sink.write(Self.batch(3..<5))
        #expect(sink.rows.map { $0.values[0] } == (0..<min(limit, 5)).map { .string("INC\($0)") })
        #expect(sink.isFull == (limit <= 5))
        #expect(sink.droppedRowCount == max(0, 5 - limit))
    }

    @Test func abortDropsTheRowsAndOpenStartsAfresh() async throws {
        let sink = MemorySink(rowLimit: 2)
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
        try await sink.write(Self.batch(0..<3))
        await sink.abort()
        await sink.abort()
        #expect(sink.rows.isEmpty && !sink.isFull)
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context("problem"))
        try await sink.write(Self.batch(7..<8))
        _ = try await sink.prepare()
        _ = try await sink.commit()
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context("task"))
        #expect(sink.rows.isEmpty, "the next table starts empty")
        #expect(sink.context?.table == "task")
    }

    @Test func misuseIsReported() async throws {
        let sink = MemorySink()
        await #expect(throws: NowETLError.self) { try await sink.write(Self.batch(0..<1)) }
        await #expect(throws: NowETLError.self) { _ = try await sink.prepare() }
        await #expect(throws: NowETLError.self) { _ = try await sink.commit() }
        try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
        await #expect(throws: NowETLError.self) {
            try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
        }
        await #expect(throws: NowETLError.self) { try await sink.write(RowBatch(columnCount: 2)) }
        await #expect(throws: NowETLError.self) { _ = try await sink.commit() }
        _ = try await sink.prepare()
        await #expect(throws: NowETLError.self) { try await sink.write(Self.batch(0..<1)) }
    }
}
