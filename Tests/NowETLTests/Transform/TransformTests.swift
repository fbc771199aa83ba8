import Foundation
import Testing

@testable import NowETL

@Suite(.timeLimit(.minutes(5))) struct TransformTests {
    @Test(
        arguments: [
            ("abc", ColumnType.string, ValueConverter.Outcome.value(.string("abc"))),
            ("", .int, .null),
            (nil, .dateTime, .null),
            ("-42", .int, .value(.int(-42))),
            ("4x", .int, .invalid),
            ("12.50", .decimal, .value(.decimal("12.50"))),
            ("-.5", .decimal, .value(.decimal("-.5"))),
            ("1.2.3", .decimal, .invalid),
            ("1,000", .decimal, .invalid),
            ("true", .bool, .value(.bool(true))),
            ("false", .bool, .value(.bool(false))),
            ("1", .bool, .invalid),
            ("2024-03-01 02:00:00", .dateTime, .value(.dateTime(secondsSinceEpoch: 1_709_258_400))),
            ("2024-03-01", .dateTime, .invalid),
            ("2024-02-29", .date, .value(.date(daysSinceEpoch: 19_782))),
            ("2023-02-29", .date, .invalid),
            ("1970-01-02 02:03:04", .duration, .value(.duration(seconds: 93_784))),
            ("3 hours", .duration, .invalid),
        ] as [(String?, ColumnType, ValueConverter.Outcome)])
    func converts(text: String?, type: ColumnType, expected: ValueConverter.Outcome) {
        #expect(ValueConverter.convert(text, to: type) == expected)
    }

    static let page = Data(
        #"""
        {"result":[
          {"sys_id":"a1","number":"INC1","caller_id":{"value":"u1","display_value":"Fred","link":"http://x/u1"},
           "caller_id.name":"Fred L","opened_at":{"value":"2024-03-01 02:00:00","display_value":"01.03.2024"},
           "empty":null},
          {"sys_id":"b2","number":"INC2","caller_id":"u2"}
        ]}
        """#.utf8)

    @Test func decodesRecordsAndFindsDotPaths() throws {
        let records = try FoundationPageDecoder().records(in: Self.page)
        #expect(records.count == 2)
        let first = records[0]
        #expect(first.sysID == "a1")
        #expect(first.text(at: RecordPath("number"), plainForm: .value) == "INC1")
        #expect(first.text(at: RecordPath("caller_id"), plainForm: .value) == "u1")
        #expect(first.text(at: RecordPath("caller_id.display_value"), plainForm: .value) == "Fred")
        #expect(first.text(at: RecordPath("caller_id.value"), plainForm: .value) == "u1")
        #expect(first.text(at: RecordPath("caller_id.link"), plainForm: .value) == "http://x/u1")
        #expect(first.text(at: RecordPath("caller_id.name"), plainForm: .value) == "Fred L")
        #expect(first.text(at: RecordPath("empty"), plainForm: .value) == nil)
        #expect(first.text(at: RecordPath("missing.value"), plainForm: .value) == nil)
        // A plain string is the form the request asked for, and only that one.
        let second = records[1]
        #expect(second.text(at: RecordPath("caller_id.value"), plainForm: .value) == "u2")
        #expect(second.text(at: RecordPath("caller_id.display_value"), plainForm: .value) == nil)
        #expect(second.text(at: RecordPath("caller_id.display_value"), plainForm: .displayValue) == "u2")
    }

    @Test(arguments: [
        (#"not json"#, "not valid JSON"), (#"{"x":[]}"#, "no 'result'"), (#"{"result":{}}"#, "not an array"),
        (#"{"result":[1]}"#, "not a JSON object"),
    ])
    func rejectsMalformedPages(body: String, message: String) {
        #expect {
            _ = try FoundationPageDecoder().records(in: Data(body.utf8))
        } throws: { error in
            (error as? PageDecodingError)?.message.contains(message) == true
        }
    }

    @Test func transformsRowsAndRejectsRecordsThatWillNotConvert() throws {
        let records = try FoundationPageDecoder().records(in: Self.page)
        let columns = [
            PlannedColumn(path: RecordPath("number"), schema: ColumnSchema(name: "number")),
            PlannedColumn(path: RecordPath("caller_id"), schema: ColumnSchema(name: "caller_id", isReference: true)),
            PlannedColumn(
                path: RecordPath("opened_at.value"), schema: ColumnSchema(name: "opened", type: .dateTime)),
        ]
        let transformer = RecordTransformer(columns: columns, displayValue: .all)
        var batch = RowBatch(schema: transformer.schema)
        let rejections = transformer.transform(records, into: &batch)
        #expect(rejections.isEmpty)
        #expect(batch.count == 2)
        #expect(batch.values(row: 0) == [.string("INC1"), .string("u1"), .dateTime(secondsSinceEpoch: 1_709_258_400)])
        #expect(batch.displayValue(row: 0, column: 1) == "Fred")
        #expect(batch.values(row: 1) == [.string("INC2"), .string("u2"), nil])

        let strict = RecordTransformer(
            columns: [PlannedColumn(path: RecordPath("number"), schema: ColumnSchema(name: "n", type: .int))],
            displayValue: .actual)
        var strictBatch = RowBatch(schema: strict.schema)
        let rejected = strict.transform(records, into: &strictBatch)
        #expect(strictBatch.count == 0)
        #expect(rejected.map(\.sysID) == ["a1", "b2"])
        #expect(rejected[0].description.contains("record a1: column 'n' (int) cannot take \"INC1\""))
        let line = try JSONSerialization.jsonObject(with: rejected[1].record) as? [String: String]
        #expect(line == ["sys_id": "b2", "number": "INC2", "caller_id": "u2"])
    }
}
