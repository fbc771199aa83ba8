import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The XML sink: `xmllint --noout` for well-formedness, `xmllint --xpath` and Python's `xml.etree` to
/// read values back.
@Suite(.timeLimit(.minutes(5))) struct SinkXMLTests {
    static let schema = RowSchema(columns: [
        ColumnSchema(name: "sys_id"), ColumnSchema(name: "number"), ColumnSchema(name: "short_description"),
        ColumnSchema(name: "caller_id", isReference: true), ColumnSchema(name: "priority", type: .int),
        ColumnSchema(name: "active", type: .bool), ColumnSchema(name: "opened_at", type: .dateTime),
        ColumnSchema(name: "due", type: .date), ColumnSchema(name: "time_worked", type: .duration),
        ColumnSchema(name: "cost", type: .decimal),
    ])

    /// What XML can carry of a text: forbidden characters become U+FFFD.
    static func xmlText(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar -> Unicode.Scalar in
                    let value = scalar.value
                    let forbidden =
                        (value < 0x20 && value != 9 && value != 10 && value != 13) || value == 0xFFFE || value == 0xFFFF
                    return forbidden ? "\u{FFFD}" : scalar
                }))
    }

    static var rows: [Row] {
        SinkTestSupport.awkwardTexts.enumerated().map { index, text in
            Row(
                values: [
                    .string(String(format: "%032x", index)), .string("INC\(1_000_000 + index)"), .string(text),
                    index % 3 == 0 ? nil : .string(String(format: "%032x", 1_000 + index)),
                    .int(index - 3), .bool(index % 2 == 0), .dateTime(secondsSinceEpoch: 1_709_258_400 + index),
                    .date(daysSinceEpoch: 19_000 + index), .duration(seconds: 93_784 + index), .decimal("1.50"),
                ],
                displayValues: [nil, nil, nil, index % 3 == 1 ? text : nil, nil, nil, nil, nil, nil, nil])
        }
    }

    @Test(arguments: [XMLSinkOptions.Format.records, .unload], [false, true])
    func awkwardTextRoundTrips(format: XMLSinkOptions.Format, gzip: Bool) async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = XMLSink(
                options: try SinkTestSupport.options(directory, "{table}.xml" + (gzip ? ".gz" : "")),
                xml: XMLSinkOptions(format: format))
            let files = try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: sink)
            #expect(files.first?.format == (format == .unload ? "xml-unload" : "xml-records"))
            // Two texts hold forbidden characters: 5 C0 controls (NUL among them), U+FFFE and U+FFFF.
            #expect(sink.replacedCharacterCount == 7)
            let path = directory + "/" + files[0].path
            let bytes = gzip ? try await SinkTestSupport.gunzip(path) : try SinkTestSupport.read(path)
            let plainPath = directory + "/plain.xml"
            try bytes.write(to: URL(fileURLWithPath: plainPath))
            let lint = try await SinkTestSupport.run("xmllint", ["--noout", plainPath])
            #expect(lint.status == 0, "xmllint: \(lint.stderr)")

            let document = try await SinkTestSupport.pythonXML(bytes)
            #expect(document.root == (format == .unload ? "unload" : "xml"))
            #expect(document.rootAttrib == (format == .unload ? ["unload_date": "2024-03-01 02:00:00"] : [:]))
            #expect(document.records.count == Self.rows.count)
            for (index, record) in document.records.enumerated() {
                let text = SinkTestSupport.awkwardTexts[index]
                #expect(record.tag == "incident")
                #expect(record.attrib == (format == .unload ? ["action": "INSERT_OR_UPDATE"] : [:]))
                #expect(record.fields.map(\.tag) == Self.schema.columns.map(\.name))
                #expect(record.fields[2].text == Self.xmlText(text), "record \(index)")
                #expect(record.fields[2].attrib.isEmpty)
                let caller = record.fields[3]
                #expect(caller.text == (index % 3 == 0 ? "" : String(format: "%032x", 1_000 + index)))
                #expect(caller.attrib == ["display_value": index % 3 == 1 ? Self.xmlText(text) : ""], "record \(index)")
                #expect(record.fields[4].text == String(index - 3))
                #expect(record.fields[5].text == (index % 2 == 0 ? "true" : "false"))
            }
            let first = document.records[0].fields.map(\.text)
            #expect(
                Array(first[6...]) == ["2024-03-01 02:00:00", "2022-01-08", "1970-01-02 02:03:04", "1.50"])
        }
    }

    @Test func xpathReadsTheValuesBack() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = XMLSink(
                options: try SinkTestSupport.options(directory, "{table}.xml"), xml: XMLSinkOptions(format: .unload))
            try await SinkTestSupport.export(Self.rows, schema: Self.schema, into: sink)
            let path = directory + "/incident.xml"
            func xpath(_ expression: String) async throws -> String {
                // xmllint ends its answer with a line break of its own.
                let out = try await SinkTestSupport.output("xmllint", ["--xpath", expression, path])
                return String(decoding: out.last == 0x0A ? out.dropLast() : out, as: UTF8.self)
            }
            #expect(try await xpath("string(/unload/@unload_date)") == "2024-03-01 02:00:00")
            #expect(try await xpath("count(/unload/incident[@action='INSERT_OR_UPDATE'])") == "\(Self.rows.count)")
            #expect(try await xpath("string(/unload/incident[3]/short_description)") == "comma, inside")
            #expect(try await xpath("string(/unload/incident[12]/short_description)") == "<&> \"xml\" 'apos' &amp;")
            #expect(
                try await xpath("string(/unload/incident[13]/short_description)") == "]]> ends CDATA ]]]]><![CDATA[>")
            #expect(try await xpath("string(/unload/incident[14]/short_description)") == "日本語のテキスト、カンマ，全角")
            #expect(
                try await xpath("string(/unload/incident[14]/caller_id/@display_value)")
                    == SinkTestSupport.awkwardTexts[13]
            )
            #expect(try await xpath("string(/unload/incident[14]/caller_id)") == String(format: "%032x", 1_013))
            #expect(try await xpath("string(/unload/incident[5]/caller_id/@display_value)") == "quote \" inside")
            // <caller_id display_value=""/>
            #expect(try await xpath("count(/unload/incident[1]/caller_id/node())") == "0")
        }
    }

    @Test func unloadShapeMatchesAnInstanceExport() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: [
                ColumnSchema(name: "active", type: .bool), ColumnSchema(name: "assigned_to", isReference: true),
                ColumnSchema(name: "caller_id", isReference: true), ColumnSchema(name: "short_description"),
                ColumnSchema(name: "sys_class_name"),
            ])
            let rows = [
                Row(
                    values: [
                        .bool(true), nil, .string("5137153cc611227c000bbd1bd8cd2005"), .string(""), .string("incident"),
                    ],
                    displayValues: [nil, nil, "Fred Luddy", nil, nil]),
                Row(values: [.bool(false), nil, nil, .string("a"), .string("task")], recordTable: "problem"),
                Row(values: [.bool(false), nil, nil, .string("b"), .string("change_request")]),
            ]
            let sink = XMLSink(
                options: try SinkTestSupport.options(directory, "task.xml"), xml: XMLSinkOptions(format: .unload))
            try await SinkTestSupport.export(rows, schema: schema, into: sink, context: SinkTestSupport.context("task"))
            let text = String(decoding: try SinkTestSupport.read(directory + "/task.xml"), as: UTF8.self)
            #expect(
                text == """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <unload unload_date="2024-03-01 02:00:00">
                    <incident action="INSERT_OR_UPDATE">
                    <active>true</active>
                    <assigned_to display_value=""/>
                    <caller_id display_value="Fred Luddy">5137153cc611227c000bbd1bd8cd2005</caller_id>
                    <short_description/>
                    <sys_class_name>incident</sys_class_name>
                    </incident>
                    <problem action="INSERT_OR_UPDATE">
                    <active>false</active>
                    <assigned_to display_value=""/>
                    <caller_id display_value=""/>
                    <short_description>a</short_description>
                    <sys_class_name>task</sys_class_name>
                    </problem>
                    <change_request action="INSERT_OR_UPDATE">
                    <active>false</active>
                    <assigned_to display_value=""/>
                    <caller_id display_value=""/>
                    <short_description>b</short_description>
                    <sys_class_name>change_request</sys_class_name>
                    </change_request>
                    </unload>

                    """)
        }
    }

    @Test func recordsShapeNamesRecordsAfterTheTable() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: [ColumnSchema(name: "number"), ColumnSchema(name: "sys_class_name")])
            let rows = [Row(values: [.string("INC1"), .string("incident")], recordTable: "incident")]
            let sink = XMLSink(
                options: try SinkTestSupport.options(directory, "task.xml"), xml: XMLSinkOptions(format: .records))
            #expect(XMLSinkOptions().format == .unload, "the default, as in a pipeline file")
            try await SinkTestSupport.export(rows, schema: schema, into: sink, context: SinkTestSupport.context("task"))
            let text = String(decoding: try SinkTestSupport.read(directory + "/task.xml"), as: UTF8.self)
            #expect(
                text == """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <xml>
                    <task>
                    <number>INC1</number>
                    <sys_class_name>incident</sys_class_name>
                    </task>
                    </xml>

                    """)
            // An empty table is an empty, well-formed document.
            let empty = XMLSink(options: try SinkTestSupport.options(directory, "empty.xml"))
            try await SinkTestSupport.export([], schema: schema, into: empty)
            let lint = try await SinkTestSupport.run("xmllint", ["--noout", directory + "/empty.xml"])
            #expect(lint.status == 0, "\(lint.stderr)")
        }
    }

    @Test(arguments: ["1abc", "with space", "a<b", "", "-x", "é"])
    func namesThatAreNotXMLNamesAreRejected(name: String) async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = XMLSink(options: try SinkTestSupport.options(directory, "x.xml"))
            await #expect {
                try await sink.open(schema: RowSchema(names: ["ok", name]), context: SinkTestSupport.context())
            } throws: { error in
                (error as? NowETLError)?.code == .invalidSchema
            }
            let unload = XMLSink(
                options: try SinkTestSupport.options(directory, "u.xml"), xml: XMLSinkOptions(format: .unload))
            await #expect {
                try await SinkTestSupport.export(
                    [Row(values: [.string("x")], recordTable: name.isEmpty ? "a b" : name)],
                    schema: RowSchema(names: ["ok"]),
                    into: unload)
            } throws: { error in
                (error as? NowETLError)?.code == .invalidSchema
            }
            #expect(try SinkTestSupport.listing(directory).isEmpty)
        }
    }

    @Test func dotPathColumnNamesAreFine() {
        #expect(XMLRowEncoder.isXMLName("caller_id.display_value"))
        #expect(XMLRowEncoder.isXMLName("_x-1"))
        #expect(XMLRowEncoder.xmlSafe("clean 日本語 \t\r\n") == nil)
        #expect(XMLRowEncoder.xmlSafe("a\u{0}b\u{FFFF}")?.0 == "a\u{FFFD}b\u{FFFD}")
    }
}
