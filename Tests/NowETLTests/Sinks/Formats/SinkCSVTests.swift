import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The CSV sink, read back by Python's `csv` module.
@Suite(.timeLimit(.minutes(5))) struct SinkCSVTests {
    @Test func awkwardTextRoundTripsThroughPythonsCSVReader() async throws {
        try await withScratchDirectory { (directory: String) in
            // A round trip, so without the formula guard (on by default), which would add `'` to `=SUM(A1:A2)`.
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "{table}.csv"), csv: CSVSinkOptions(formulaGuard: false)
            )
            let files = try await SinkTestSupport.export(
                SinkTestSupport.awkwardRows, schema: SinkTestSupport.awkwardSchema, into: sink)
            #expect(files.map(\.path) == ["incident.csv"])
            #expect(files.first?.rows == SinkTestSupport.awkwardRows.count)

            let bytes = try SinkTestSupport.read(directory + "/incident.csv")
            #expect(bytes.starts(with: Array("id,short_description\r\n".utf8)))
            let rows = try await SinkTestSupport.pythonCSV(bytes)
            let expected =
                [["id", "short_description"]]
                + SinkTestSupport.awkwardTexts.enumerated().map { [String($0.offset), $0.element] }
                + [["-1", ""]]
            #expect(rows.count == expected.count)
            for (index, pair) in zip(rows, expected).enumerated() {
                #expect(pair.0 == pair.1, "row \(index)")
            }
            #expect(files.first?.bytes == bytes.count)
        }
    }

    @Test func gzipSemicolonLFAndByteOrderMark() async throws {
        try await withScratchDirectory { (directory: String) in
            let csv = CSVSinkOptions(delimiter: ";", lineEnding: .lf, byteOrderMark: true, formulaGuard: false)
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "out/{table}-{run_date}.csv.gz"), csv: csv)
            let files = try await SinkTestSupport.export(
                SinkTestSupport.awkwardRows, schema: SinkTestSupport.awkwardSchema, into: sink)
            #expect(files.map(\.path) == ["out/incident-2024-03-01.csv.gz"])

            let bytes = try await SinkTestSupport.gunzip(directory + "/out/incident-2024-03-01.csv.gz")
            #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF] + Array("id;short_description\n".utf8)))
            #expect(Array(bytes.suffix(4)) == Array("-1;\n".utf8))
            let rows = try await SinkTestSupport.pythonCSV(bytes, delimiter: ";")
            #expect(rows.count == SinkTestSupport.awkwardRows.count + 1)
            #expect(rows.dropFirst().map(\.[1]) == SinkTestSupport.awkwardTexts + [""])
        }
    }

    @Test func typedValuesHaveOneCanonicalText() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: SinkTestSupport.typedColumns)
            let opened = ValueConverter.dateTimeSeconds("2016-02-29 23:59:07")!
            let rows = [
                Row(values: [
                    .int(-42), .decimal("12.50"), .bool(true), .dateTime(secondsSinceEpoch: opened),
                    .date(daysSinceEpoch: ValueConverter.dateDays("1999-12-31")!), .duration(seconds: 93_784), nil,
                ]),
                Row(values: [
                    .int(Int.min), .decimal("-0.000001"), .bool(false), .dateTime(secondsSinceEpoch: -1),
                    .date(daysSinceEpoch: 0), .duration(seconds: 0), .string(""),
                ]),
            ]
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "t.csv"), csv: CSVSinkOptions(lineEnding: .lf))
            try await SinkTestSupport.export(rows, schema: schema, into: sink)
            let text = String(decoding: try SinkTestSupport.read(directory + "/t.csv"), as: UTF8.self)
            #expect(
                text == """
                    i,d,b,dt,day,dur,n
                    -42,12.50,true,2016-02-29 23:59:07,1999-12-31,93784,
                    -9223372036854775808,-0.000001,false,1969-12-31 23:59:59,1970-01-01,0,""

                    """)
        }
    }

    @Test func nullsAndEmptyStringsStayDistinguishable() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(names: ["a", "b", "c"])
            let rows = [Row(values: [nil, .string(""), .string("NULL")])]
            let plain = CSVSink(options: try SinkTestSupport.options(directory, "plain.csv"))
            try await SinkTestSupport.export(rows, schema: schema, into: plain)
            #expect(try SinkTestSupport.read(directory + "/plain.csv") == Data("a,b,c\r\n,\"\",NULL\r\n".utf8))

            let withNullText = CSVSink(
                options: try SinkTestSupport.options(directory, "null.csv"), csv: CSVSinkOptions(nullText: "NULL"))
            try await SinkTestSupport.export(rows, schema: schema, into: withNullText)
            #expect(try SinkTestSupport.read(directory + "/null.csv") == Data("a,b,c\r\nNULL,,\"NULL\"\r\n".utf8))
        }
    }

    /// A typed value whose text is the null text (`null: "0"`, `null: "false"`) is quoted, as text is.
    @Test(arguments: [
        ("0", ColumnValue.int(0), ColumnType.int, "\"0\""), ("false", .bool(false), .bool, "\"false\""),
        ("0", .int(10), .int, "10"),
    ])
    func typedValuesEqualToTheNullTextAreQuoted(
        nullText: String, value: ColumnValue, type: ColumnType, written: String
    ) async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "t.csv"),
                csv: CSVSinkOptions(header: false, nullText: nullText, lineEnding: .lf))
            let schema = RowSchema(columns: [ColumnSchema(name: "v", type: type), ColumnSchema(name: "n")])
            try await SinkTestSupport.export([Row(values: [value, nil])], schema: schema, into: sink)
            #expect(try SinkTestSupport.read(directory + "/t.csv") == Data("\(written),\(nullText)\n".utf8))
        }
    }

    @Test func formulaGuardPrefixesTextThatASpreadsheetWouldRun() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: [ColumnSchema(name: "=text"), ColumnSchema(name: "n", type: .int)])
            // (text, what the guard writes): signed plain numbers and ISO dates are numbers/dates to a
            // spreadsheet, not formulas, and stay as they are.
            let cases = [
                ("=SUM(A1)", "'=SUM(A1)"), ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@cmd", "'@cmd"), ("\tx", "'\tx"),
                ("\rx", "'\rx"), ("-", "'-"), ("+", "'+"), ("-.", "'-."), ("-1e", "'-1e"),
                ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
                ("-5", "-5"), ("+1", "+1"), ("-2.50", "-2.50"), ("-.5", "-.5"), ("+3.", "+3."), ("-1.5e3", "-1.5e3"),
                ("-2E-7", "-2E-7"), ("2026-12-01", "2026-12-01"), ("2026-12-01 08:39:23", "2026-12-01 08:39:23"),
                ("safe", "safe"), ("a=b", "a=b"), ("", ""),
            ]
            let texts = cases.map(\.0)
            let rows = texts.map { Row(values: [.string($0), .int(-5)]) }
            let guarded = CSVSink(options: try SinkTestSupport.options(directory, "guarded.csv"))  // the default
            try await SinkTestSupport.export(rows, schema: schema, into: guarded)
            let read = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/guarded.csv"))
            #expect(read.first == ["=text", "n"])  // the header is not changed
            #expect(read.dropFirst().map(\.[0]) == cases.map(\.1))
            #expect(read.dropFirst().allSatisfy { $0[1] == "-5" })  // numbers are not text

            let unguarded = CSVSink(
                options: try SinkTestSupport.options(directory, "plain.csv"), csv: CSVSinkOptions(formulaGuard: false))
            try await SinkTestSupport.export(rows, schema: schema, into: unguarded)
            let plain = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/plain.csv"))
            #expect(plain.dropFirst().map(\.[0]) == texts)
        }
    }

    /// Whatever the delimiter — also one that guarded text (`'`), date-times (`:`, `-`, ` `, `T`, `Z`,
    /// digits) or `true`/`false` contain — every field is quoted where it must be, so Python's `csv`
    /// with that delimiter reads back exactly the values written: the guarded text with its `'`, the
    /// typed values and ISO 8601 date-times (typed, and rewritten from a date-time field's text).
    @Test(arguments: ["'", ":", "-", " ", "T", "Z", "0", "5", "t", "e", ",", ";", "|", "="])
    func everyFieldReadsBackWhateverTheDelimiter(delimiter: String) async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: [
                ColumnSchema(name: "text"), ColumnSchema(name: "opened_at", isDateTimeField: true),
                ColumnSchema(name: "closed_at", type: .dateTime), ColumnSchema(name: "i", type: .int),
                ColumnSchema(name: "d", type: .decimal), ColumnSchema(name: "b", type: .bool),
                ColumnSchema(name: "day", type: .date), ColumnSchema(name: "took", type: .duration),
            ])
            let closed = try #require(ValueConverter.dateTimeSeconds("2026-12-01 08:39:23"))
            let day = try #require(ValueConverter.dateDays("2026-12-01"))
            let texts = ["=SUM(A1:A2)", "-2+3", "@cmd", "it's", "a:b", "plain", "-5", "x y", "2026-12-01 08:39:23"]
            let rows = texts.enumerated().map { index, text in
                Row(values: [
                    .string(text), .string("2026-12-01 08:39:23"), .dateTime(secondsSinceEpoch: closed),
                    .int(index.isMultiple(of: 2) ? -1_050 : 42), .decimal("-0.5"), .bool(index.isMultiple(of: 2)),
                    .date(daysSinceEpoch: day), .duration(seconds: 305),
                ])
            }
            for format in DateTimeFormat.allCases {
                let path = "\(format).csv"
                let csv = CSVSinkOptions(delimiter: Character(delimiter), dateTimeFormat: format)
                let sink = CSVSink(options: try SinkTestSupport.options(directory, path), csv: csv)
                try await SinkTestSupport.export(rows, schema: schema, into: sink)
                let read = try await SinkTestSupport.pythonCSV(
                    try SinkTestSupport.read(directory + "/" + path), delimiter: delimiter)
                let dateTime = format == .iso8601 ? "2026-12-01T08:39:23Z" : "2026-12-01 08:39:23"
                let guarded = [
                    "'=SUM(A1:A2)", "'-2+3", "'@cmd", "it's", "a:b", "plain", "-5", "x y", "2026-12-01 08:39:23",
                ]
                let expected =
                    [schema.columns.map(\.name)]
                    + guarded.enumerated().map { index, text in
                        [
                            text, dateTime, dateTime, index.isMultiple(of: 2) ? "-1050" : "42", "-0.5",
                            index.isMultiple(of: 2) ? "true" : "false", "2026-12-01", "305",
                        ]
                    }
                #expect(read == expected, "delimiter \(delimiter.debugDescription), \(format)")
            }
        }
    }

    @Test(arguments: ["\"", "\n", "\r", "ab", "é"])
    func delimiterMustBeOneSafeASCIICharacter(delimiter: String) async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "t.csv"),
                csv: CSVSinkOptions(delimiter: Character(delimiter.count == 1 ? delimiter : "\u{1F600}")))
            await #expect {
                try await sink.open(schema: SinkTestSupport.awkwardSchema, context: SinkTestSupport.context())
            } throws: { error in
                (error as? NowETLError)?.code == .invalidSchema && (error as? NowETLError)?.context.path == "t.csv"
            }
            #expect(try SinkTestSupport.listing(directory).isEmpty)
        }
    }

    @Test func tabDelimitedWorks() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(
                options: try SinkTestSupport.options(directory, "t.tsv"),
                csv: CSVSinkOptions(delimiter: "\t", formulaGuard: false))
            try await SinkTestSupport.export(
                SinkTestSupport.awkwardRows, schema: SinkTestSupport.awkwardSchema, into: sink)
            let rows = try await SinkTestSupport.pythonCSV(
                try SinkTestSupport.read(directory + "/t.tsv"), delimiter: "\t")
            #expect(rows.dropFirst().map(\.[1]) == SinkTestSupport.awkwardTexts + [""])
        }
    }
}
