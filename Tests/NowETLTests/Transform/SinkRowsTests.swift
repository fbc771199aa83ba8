import Foundation
import NowData
import Testing

@testable import NowETL

/// The row model and the value texts: batches, civil time against Foundation, integer formatting.
@Suite(.timeLimit(.minutes(5))) struct SinkRowsTests {
    @Test func batchStoresRowsFlatAndCellByCell() {
        let schema = RowSchema(columns: [
            ColumnSchema(name: "number"), ColumnSchema(name: "caller_id", isReference: true),
        ])
        var batch = RowBatch(schema: schema, capacity: 4)
        #expect(batch.carriesDisplayValues && batch.isEmpty)
        var row = Row(
            values: [.string("INC1"), .string("abc")], displayValues: [nil, "Fred"], recordTable: "incident")
        batch.append(row)
        row.values[0] = .string("INC2")  // reusing the row does not change the batch
        row.displayValues = []
        batch.append(row)
        let third = batch.appendRow(recordTable: "problem")
        batch[third, 0] = .int(3)
        batch.setDisplayValue("Beth", row: third, column: 1)
        #expect(batch.count == 3)
        #expect(batch.values(row: 0) == [.string("INC1"), .string("abc")])
        #expect(batch.values(row: 1) == [.string("INC2"), .string("abc")])
        #expect(batch.values(row: 2) == [.int(3), nil])
        #expect(batch.displayValue(row: 0, column: 1) == "Fred")
        #expect(batch.displayValue(row: 1, column: 1) == nil)
        #expect(batch.displayValue(row: 2, column: 1) == "Beth")
        #expect(batch.recordTable(row: 0) == "incident" && batch.recordTable(row: 2) == "problem")
        batch.removeAll()
        #expect(batch.isEmpty)

        let plain = RowBatch(schema: RowSchema(names: ["a"]))
        #expect(!plain.carriesDisplayValues && plain.displayValue(row: 0, column: 0) == nil || plain.isEmpty)
    }

    /// Text held as bytes of the batch reads as the same `String` cells, survives appends, a filter
    /// and a given-up row, and gives its bytes in place; overwriting such a cell forgets the bytes.
    @Test func textCellsHeldAsBytesReadAsStrings() {
        var batch = RowBatch(schema: RowSchema(names: ["a", "b"]), capacity: 2)
        batch.append(Row(values: [.string("first"), .int(1)]))
        for (index, text) in ["Zoë, \"quoted\"", "second"].enumerated() {
            let row = batch.appendRow()
            Array(text.utf8).withUnsafeBufferPointer { batch.setText($0, row: row, column: 0) }
            batch[row, 1] = .int(index + 2)
        }
        let given = batch.appendRow()
        Array("gone".utf8).withUnsafeBufferPointer { batch.setText($0, row: given, column: 0) }
        batch.removeLastRow()
        batch.append(Row(values: [nil, .int(9)]))
        #expect(batch.count == 4)
        #expect(batch.values(row: 0) == [.string("first"), .int(1)])
        #expect(batch.values(row: 1) == [.string("Zoë, \"quoted\""), .int(2)])
        #expect(batch.values(row: 2) == [.string("second"), .int(3)])
        #expect(batch.values(row: 3) == [nil, .int(9)])
        #expect(batch.withStringBytes(row: 1, column: 0) { Array($0) } == Array("Zoë, \"quoted\"".utf8))
        #expect(batch.withStringBytes(row: 0, column: 0) { Array($0) } == Array("first".utf8))
        #expect(batch.withStringBytes(row: 1, column: 1) { _ in true } == nil, "an int is not text")
        #expect(batch.withStringBytes(row: 3, column: 0) { _ in true } == nil, "null is not text")
        let kept = batch.filter { $0 != 1 }
        #expect(
            (0..<kept.count).map { kept.values(row: $0) } == [
                [.string("first"), .int(1)], [.string("second"), .int(3)], [nil, .int(9)],
            ])
        batch[2, 0] = .int(7)
        #expect(batch.values(row: 2) == [.int(7), .int(3)])
        #expect(batch.withStringBytes(row: 2, column: 0) { _ in true } == nil)
    }

    /// About 20 000 instants across 1900…2100 (an odd step, so every time of day occurs) format like
    /// `DateFormatter` and parse back.
    @Test func dateTimeTextAgreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var seconds = -2_208_988_800  // 1900-01-01
        var checked = 0
        var mismatches: [String] = []
        var buffer = ByteBuffer(capacity: 32)
        while seconds < 4_102_444_800 {  // 2100-01-01
            buffer.removeAll()
            buffer.appendDateTime(secondsSinceEpoch: seconds)
            let text = String(decoding: buffer.bytes, as: UTF8.self)
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            if text != expected || ValueConverter.dateTimeSeconds(text) != seconds {
                mismatches.append("\(seconds): \(text) vs \(expected)")
            }
            seconds += 314_159
            checked += 1
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(checked > 10_000)
        buffer.removeAll()
        buffer.appendDateTime(secondsSinceEpoch: ValueConverter.dateTimeSeconds("0001-01-01 00:00:00")!)
        buffer.append(0x20)
        buffer.appendDateTime(secondsSinceEpoch: ValueConverter.dateTimeSeconds("9999-12-31 23:59:59")!)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "0001-01-01 00:00:00 9999-12-31 23:59:59")
    }

    @Test(arguments: [
        "2024-02-30 00:00:00", "2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-01-01 24:00:00",
        "2024-01-01 00:60:00", "2024-01-01T00:00:00", "2024-1-01 00:00:00", "0000-01-01 00:00:00", "",
        " 2024-01-01 00:00:00",
    ])
    func invalidDateTimesDoNotParse(text: String) {
        #expect(ValueConverter.dateTimeSeconds(text) == nil)
    }

    @Test func datesAndDurations() {
        #expect(ValueConverter.dateDays("1970-01-01") == 0)
        #expect(ValueConverter.dateDays("2000-02-29") == 11_016)
        #expect(ValueConverter.dateDays("1900-02-29") == nil)
        #expect(TableAPIDateFormat.civil(fromDays: -719_162) == (1, 1, 1))
        var buffer = ByteBuffer(capacity: 64)
        buffer.appendDate(daysSinceEpoch: 11_016)
        buffer.append(0x20)
        buffer.appendDateTime(secondsSinceEpoch: 93_784)  // a duration's raw form in XML
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "2000-02-29 1970-01-02 02:03:04")
    }

    @Test(arguments: [0, 7, -7, 10, 99, 100, 1_234_567_890, Int.max, Int.min, -1_000_000])
    func integersFormatLikeString(value: Int) {
        var buffer = ByteBuffer(capacity: 24)
        buffer.appendInteger(value)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(value))
    }

    @Test func jsonNumberGrammar() {
        for good in ["0", "-0", "1.5", "-12.50", "1e5", "1E-5", "2.5e+10", "123456789012345678901234567890"] {
            #expect(JSONText.isNumber(good), "\(good)")
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "1e+", "NaN", "Infinity", "1,5", " 1", "0x10"] {
            #expect(!JSONText.isNumber(bad), "\(bad)")
        }
    }
}
