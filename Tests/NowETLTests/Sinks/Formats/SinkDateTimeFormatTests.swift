import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `datetime_format: iso8601` in CSV, JSON and XML records; the instance's form otherwise.
@Suite(.timeLimit(.minutes(3))) struct SinkDateTimeFormatTests {
    /// A date-time field read as text, a typed date-time, text that only looks like one, a date, a duration.
    static let schema = RowSchema(columns: [
        ColumnSchema(name: "opened_at", isDateTimeField: true), ColumnSchema(name: "closed_at", type: .dateTime),
        ColumnSchema(name: "note"), ColumnSchema(name: "due", type: .date),
        ColumnSchema(name: "took", type: .duration),
    ])
    static let rows = [
        Row(values: [
            .string("2026-12-01 08:39:23"), .dateTime(secondsSinceEpoch: 1_796_114_363), .string("2026-12-01 08:39:23"),
            .date(daysSinceEpoch: 20_788), .duration(seconds: 93_784),
        ]),
        Row(values: [.string(""), nil, .string("x"), nil, nil]),
        Row(values: [.string("01.12.2026 09:39"), nil, .string(""), nil, nil]),  // not an instance date-time
    ]

    @Test func csvWritesISO8601OnlyWhenAsked() async throws {
        try await withScratchDirectory { (directory: String) in
            let iso = CSVSink(
                options: try SinkTestSupport.options(directory, "iso.csv"),
                csv: CSVSinkOptions(dateTimeFormat: .iso8601))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: iso)
            #expect(
                try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/iso.csv")) == [
                    ["opened_at", "closed_at", "note", "due", "took"],
                    ["2026-12-01T08:39:23Z", "2026-12-01T08:39:23Z", "2026-12-01 08:39:23", "2026-12-01", "93784"],
                    ["", "", "x", "", ""],
                    ["01.12.2026 09:39", "", "", "", ""],
                ])
            let plain = CSVSink(options: try SinkTestSupport.options(directory, "plain.csv"))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: plain)
            let read = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/plain.csv"))
            #expect(
                read[1] == ["2026-12-01 08:39:23", "2026-12-01 08:39:23", "2026-12-01 08:39:23", "2026-12-01", "93784"])
        }
    }

    @Test func jsonWritesISO8601StringsOnlyWhenAsked() async throws {
        try await withScratchDirectory { (directory: String) in
            let iso = JSONSink(
                options: try SinkTestSupport.options(directory, "iso.jsonl"),
                json: JSONSinkOptions(dateTimeFormat: .iso8601))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: iso)
            let rows = try await SinkTestSupport.pythonJSON(
                try SinkTestSupport.read(directory + "/iso.jsonl"), array: false)
            #expect(
                rows == [
                    [
                        ["opened_at", "str", "2026-12-01T08:39:23Z"], ["closed_at", "str", "2026-12-01T08:39:23Z"],
                        ["note", "str", "2026-12-01 08:39:23"], ["due", "str", "2026-12-01"], ["took", "int", "93784"],
                    ],
                    [
                        ["opened_at", "str", ""], ["closed_at", "null", ""], ["note", "str", "x"], ["due", "null", ""],
                        ["took", "null", ""],
                    ],
                    [
                        ["opened_at", "str", "01.12.2026 09:39"], ["closed_at", "null", ""], ["note", "str", ""],
                        ["due", "null", ""], ["took", "null", ""],
                    ],
                ])
            let plain = JSONSink(options: try SinkTestSupport.options(directory, "plain.jsonl"))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: plain)
            let plainRows = try await SinkTestSupport.pythonJSON(
                try SinkTestSupport.read(directory + "/plain.jsonl"), array: false)
            #expect(plainRows.first?.prefix(2).map { $0[2] } == ["2026-12-01 08:39:23", "2026-12-01 08:39:23"])
        }
    }

    @Test func xmlRecordsWriteISO8601AndAnUnloadNever() async throws {
        try await withScratchDirectory { (directory: String) in
            let records = XMLSink(
                options: try SinkTestSupport.options(directory, "records.xml"),
                xml: XMLSinkOptions(format: .records, dateTimeFormat: .iso8601))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: records)
            let document = try await SinkTestSupport.pythonXML(try SinkTestSupport.read(directory + "/records.xml"))
            let first = try #require(document.records.first)
            #expect(
                first.fields.prefix(4).map(\.text) == [
                    "2026-12-01T08:39:23Z", "2026-12-01T08:39:23Z", "2026-12-01 08:39:23", "2026-12-01",
                ])
            // took: the instance's raw duration form, whatever the option.
            #expect(first.fields.last?.text == "1970-01-02 02:03:04")

            // Even built by hand with the option, an unload keeps the instance's form (imports read only that).
            let unload = XMLSink(
                options: try SinkTestSupport.options(directory, "unload.xml"),
                xml: XMLSinkOptions(format: .unload, dateTimeFormat: .iso8601))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: unload)
            let text = String(decoding: try SinkTestSupport.read(directory + "/unload.xml"), as: UTF8.self)
            #expect(!text.contains("T08:39:23Z") && text.contains("2026-12-01 08:39:23"))
        }
    }

    @Test(arguments: [
        ("2026-12-01 08:39:23", "2026-12-01T08:39:23Z"), ("0001-01-01 00:00:00", "0001-01-01T00:00:00Z"),
        ("9999-12-31 23:59:59", "9999-12-31T23:59:59Z"),
    ])
    func instanceTextBecomesISO8601(text: String, expected: String) {
        #expect(DateTimeFormat.iso8601Text(ofInstanceDateTime: text) == expected)
    }

    @Test(arguments: ["", "2026-12-01", "2026-12-01T08:39:23Z", "2026-13-01 08:39:23", "01.12.2026 09:39:23", "x"])
    func otherTextIsNotRewritten(text: String) {
        #expect(DateTimeFormat.iso8601Text(ofInstanceDateTime: text) == nil)
    }

    /// Which columns the planner marks as date-time fields for an ISO 8601 output.
    static func marked(_ plan: TablePlan) -> [String] {
        plan.columns.filter(\.schema.isDateTimeField).map(\.schema.name)
    }

    @Test func thePlannerMarksStoredDateTimeFieldsFromTheDictionaryOnly() throws {
        let dictionary = PlannerDictionary.fields
        let source = PlannerDictionary.source
        let discovered = try TableConfiguration(table: "incident")
        #expect(
            Self.marked(TablePlanner.plan(discovered, dictionary: dictionary, source: source, dateTimeFields: true))
                == ["opened_at", "due_date"])
        #expect(Self.marked(TablePlanner.plan(discovered, dictionary: dictionary, source: source)).isEmpty)

        // Stored values only: display text (the user's locale) and declared types are left alone; a
        // typed date-time (database output) is a `dateTime` value, which the option formats anyway.
        let table = try TableConfiguration(
            table: "incident", fields: ["opened_at", "u_day"], displayValue: .all,
            columns: [
                ColumnConfiguration(name: "opened", path: "opened_at.value"),
                ColumnConfiguration(name: "opened_text", path: "opened_at.display_value"),
                ColumnConfiguration(name: "opened_raw", path: "opened_at", type: .string, typeIsDeclared: true),
                ColumnConfiguration(name: "day", path: "u_day.value"),
            ])
        #expect(
            Self.marked(TablePlanner.plan(table, dictionary: dictionary, source: source, dateTimeFields: true))
                == ["opened"])
        let typed = TablePlanner.plan(table, dictionary: dictionary, source: source, typed: true, dateTimeFields: true)
        #expect(Self.marked(typed).isEmpty && typed.columns[0].schema.type == .dateTime)
        let display = try TableConfiguration(table: "incident", fields: ["opened_at"], displayValue: .display)
        #expect(
            Self.marked(TablePlanner.plan(display, dictionary: dictionary, source: source, dateTimeFields: true))
                .isEmpty)
    }
}
