import Foundation
import Testing

@testable import NowETL

/// Records held by slot of a page's ``RecordLayout`` (``FastPageDecoder``) read, compare and transform
/// exactly as records held as dictionaries (``Record/init(fields:)``, ``FoundationPageDecoder``).
@Suite(.timeLimit(.minutes(2))) struct RecordLayoutTests {
    /// Records whose keys change: another order, a field first seen mid-page, a missing field, an escaped
    /// key, a repeated key (the last wins), a dotted field name, a class name in both shapes, a value
    /// that will not convert to `int`.
    static let page = Data(
        #"""
        {"result":[
          {"sys_id":"a1","number":"INC1","caller_id":{"value":"u1","display_value":"Fred","link":"http://x/u1"},
           "caller_id.name":"Fred L","sys_class_name":{"value":"incident","display_value":"Incident"},
           "count":"1","empty":null},
          {"number":"INC2","sys_id":"b2","caller_id":"u2","sys_class_name":"incident","count":"2"},
          {"sys_id":"c3","number":"INC3","caller_id":{"value":"u3"},"extra":"x","count":"3",
           "caller_id.name":"Third"},
          {"sys_id":"d4","n\u0075mber":"INC4","caller_id":{"display_value":"Dee"},"count":"4","count":"44"},
          {"sys_id":"e5","number":"INC5","count":"five","caller_id":null},
          {}
        ]}
        """#.utf8)

    static let columns = [
        PlannedColumn(path: RecordPath("number"), schema: ColumnSchema(name: "number")),
        PlannedColumn(path: RecordPath("caller_id"), schema: ColumnSchema(name: "caller_id", isReference: true)),
        PlannedColumn(path: RecordPath("caller_id.value"), schema: ColumnSchema(name: "caller_value")),
        PlannedColumn(path: RecordPath("caller_id.display_value"), schema: ColumnSchema(name: "caller_display")),
        PlannedColumn(path: RecordPath("caller_id.link"), schema: ColumnSchema(name: "caller_link")),
        PlannedColumn(path: RecordPath("caller_id.name"), schema: ColumnSchema(name: "caller_name")),
        PlannedColumn(path: RecordPath("extra"), schema: ColumnSchema(name: "extra", isReference: true)),
        PlannedColumn(path: RecordPath("count"), schema: ColumnSchema(name: "count", type: .int)),
        PlannedColumn(path: RecordPath("empty"), schema: ColumnSchema(name: "empty")),
        PlannedColumn(path: RecordPath("missing.value"), schema: ColumnSchema(name: "missing")),
    ]

    @Test func aPagesRecordsShareLayoutsAndEqualTheReferenceRecords() throws {
        let reference = try FoundationPageDecoder().records(in: Self.page)
        let fast = try FastPageDecoder().records(in: Self.page)
        #expect(fast == reference)
        #expect(fast.map(\.hashValue) == reference.map(\.hashValue))
        #expect(fast.map(\.fields) == reference.map(\.fields))
        #expect(fast[3].value(of: "count") == .text("44"))
        #expect(fast[3].value(of: "number") == .text("INC4"))
        #expect(fast[1].value(of: "extra") == nil, "a field of a later record is absent from an earlier one")
        #expect(fast[5].fields.isEmpty)
        var layouts: [ObjectIdentifier] = []
        for record in fast {
            guard case .slots(let layout, let values) = record.storage else {
                Issue.record("a fast record is held as a dictionary")
                continue
            }
            #expect(values.count == layout.names.count)
            if layouts.last != ObjectIdentifier(layout) { layouts.append(ObjectIdentifier(layout)) }
        }
        #expect(layouts.count == 2, "one layout, then a longer one once 'extra' appears")

        // Different values are different records, whatever their layout.
        var changed = reference[0].fields
        changed["number"] = .text("INC9")
        #expect(fast[0] != Record(fields: changed))
        #expect(fast[0] != fast[2])
        #expect(Record(fields: fast[0].fields) == fast[0])
    }

    @Test(arguments: [DisplayValueMode.actual, .display, .all])
    func slotsTransformAsTheDictionaryDoes(displayValue: DisplayValueMode) throws {
        let reference = try FoundationPageDecoder().records(in: Self.page)
        let fast = try FastPageDecoder().records(in: Self.page)
        let transformer = RecordTransformer(
            columns: Array(Self.columns.prefix(7)), unloadColumns: Array(Self.columns.dropFirst(7)),
            displayValue: displayValue)
        var expected = RowBatch(schema: transformer.schema)
        let expectedRejections = transformer.transform(reference, into: &expected)
        var actual = RowBatch(schema: transformer.schema)
        let actualRejections = transformer.transform(fast, into: &actual)
        #expect(actualRejections == expectedRejections)
        #expect(expectedRejections.map(\.sysID) == ["e5"])
        #expect(actual.count == 5)
        #expect(actual.count == expected.count)
        for row in 0..<min(actual.count, expected.count) {
            #expect(actual.values(row: row) == expected.values(row: row), "row \(row)")
            #expect(actual.recordTable(row: row) == expected.recordTable(row: row), "row \(row)")
            for column in 0..<transformer.columns.count {
                #expect(
                    actual.displayValue(row: row, column: column) == expected.displayValue(row: row, column: column),
                    "row \(row) column \(column)")
            }
        }
        #expect(actual.values(row: 0)[0] == .string("INC1"))
        #expect(actual.displayValue(row: 0, column: 1) == "Fred")
        #expect(actual.recordTable(row: 0) == "incident")
        #expect(actual.values(row: 2)[5] == .string("Third"))
        #expect(actual.values(row: 3)[7] == .int(44))

        // Records of two pages (two layouts) and dictionary records mixed in one call.
        let mixed = fast + reference + fast
        var mixedBatch = RowBatch(schema: transformer.schema)
        let mixedRejections = transformer.transform(mixed, into: &mixedBatch)
        #expect(mixedRejections.map(\.sysID) == ["e5", "e5", "e5"])
        #expect(mixedBatch.count == 15)
        for row in 0..<min(mixedBatch.count, 15) {
            #expect(mixedBatch.values(row: row) == expected.values(row: row % 5), "mixed row \(row)")
        }
    }
}
