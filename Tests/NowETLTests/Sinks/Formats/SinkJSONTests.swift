import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The JSON sink, read back by Python's `json` module (per line for JSON Lines, whole for the array).
@Suite(.timeLimit(.minutes(5))) struct SinkJSONTests {
    static var expectedAwkward: [[[String]]] {
        SinkTestSupport.awkwardTexts.enumerated().map {
            [["id", "int", String($0.offset)], ["short_description", "str", $0.element]]
        } + [[["id", "int", "-1"], ["short_description", "null", ""]]]
    }

    @Test(arguments: [JSONSinkOptions.Layout.lines, .array], [false, true])
    func awkwardTextRoundTripsThroughPythonsJSONReader(layout: JSONSinkOptions.Layout, gzip: Bool) async throws {
        try await withScratchDirectory { (directory: String) in
            let path = "{table}." + (layout == .lines ? "jsonl" : "json") + (gzip ? ".gz" : "")
            let sink = JSONSink(
                options: try SinkTestSupport.options(directory, path), json: JSONSinkOptions(layout: layout))
            let files = try await SinkTestSupport.export(
                SinkTestSupport.awkwardRows, schema: SinkTestSupport.awkwardSchema, into: sink)
            #expect(files.first?.format == (layout == .lines ? "jsonl" : "json"))
            let file = directory + "/" + files[0].path
            let bytes = gzip ? try await SinkTestSupport.gunzip(file) : try SinkTestSupport.read(file)
            if gzip { #expect(try SinkTestSupport.read(file).starts(with: [0x1F, 0x8B])) }
            let rows = try await SinkTestSupport.pythonJSON(bytes, array: layout == .array)
            #expect(rows.count == Self.expectedAwkward.count)
            for (index, pair) in zip(rows, Self.expectedAwkward).enumerated() {
                #expect(pair.0 == pair.1, "row \(index)")
            }
            // Every object is on its own line; no raw control characters or line separators inside.
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == SinkTestSupport.awkwardRows.count + (layout == .lines ? 1 : 3))
            #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
            #expect(!String(decoding: bytes, as: UTF8.self).contains("\u{2028}"))
        }
    }

    @Test func typedValues() async throws {
        try await withScratchDirectory { (directory: String) in
            let schema = RowSchema(columns: SinkTestSupport.typedColumns + [ColumnSchema(name: "key \"quoted\"\n")])
            let rows = [
                Row(values: [
                    .int(9_007_199_254_740_993), .decimal("12345678901234567890.123456789"), .bool(true),
                    .dateTime(secondsSinceEpoch: 1_709_258_400), .date(daysSinceEpoch: -1), .duration(seconds: 93_784),
                    nil, .string("k"),
                ])
            ]
            let plain = JSONSink(options: try SinkTestSupport.options(directory, "plain.jsonl"))
            try await SinkTestSupport.export(rows, schema: schema, into: plain)
            let text = String(decoding: try SinkTestSupport.read(directory + "/plain.jsonl"), as: UTF8.self)
            #expect(
                text == """
                    {"i":9007199254740993,"d":"12345678901234567890.123456789","b":true,"dt":"2024-03-01 02:00:00",\
                    "day":"1969-12-31","dur":93784,"n":null,"key \\"quoted\\"\\n":"k"}

                    """)
            let read = try await SinkTestSupport.pythonJSON(Data(text.utf8), array: false)
            #expect(read.first?.first == ["i", "int", "9007199254740993"])  // exact in Python
            #expect(read.first?[1] == ["d", "str", "12345678901234567890.123456789"])

            let numbers = JSONSink(
                options: try SinkTestSupport.options(directory, "numbers.jsonl"),
                json: JSONSinkOptions(decimalsAsNumbers: true))
            let decimals = ["12.50", "-0.5", "1e10", "007", "1.", "abc", "", "-", "0", "1E+2"]
            try await SinkTestSupport.export(
                decimals.map { Row(values: [.decimal($0)]) }, schema: RowSchema(names: ["d"]), into: numbers)
            let cells = try await SinkTestSupport.pythonJSON(
                try SinkTestSupport.read(directory + "/numbers.jsonl"), array: false)
            #expect(
                cells.map { $0[0][1] } == [
                    "float", "float", "float", "str", "str", "str", "str", "str", "int", "float",
                ])
        }
    }

    @Test func emptyTableGivesAnEmptyArrayOrAnEmptyFile() async throws {
        try await withScratchDirectory { (directory: String) in
            let array = JSONSink(
                options: try SinkTestSupport.options(directory, "a.json.gz"), json: JSONSinkOptions(layout: .array))
            let files = try await SinkTestSupport.export([], schema: SinkTestSupport.awkwardSchema, into: array)
            #expect(files.first?.rows == 0)
            let bytes = try await SinkTestSupport.gunzip(directory + "/a.json.gz")
            #expect(String(decoding: bytes, as: UTF8.self) == "[\n]\n")
            #expect(try await SinkTestSupport.pythonJSON(bytes, array: true).isEmpty)

            let lines = JSONSink(options: try SinkTestSupport.options(directory, "l.jsonl"))
            try await SinkTestSupport.export([], schema: SinkTestSupport.awkwardSchema, into: lines)
            #expect(try SinkTestSupport.read(directory + "/l.jsonl").isEmpty)
        }
    }

    @Test func compressionLevelIsSettable() async throws {
        try await withScratchDirectory { (directory: String) in
            let rows = (0..<500).map { Row(values: [.int($0), .string("the same text again and again \($0 % 7)")]) }
            var sizes: [Int] = []
            for level in [0, 9] {
                let sink = JSONSink(
                    options: try SinkTestSupport.options(
                        directory, "l\(level).jsonl.gz", compression: .gzip(level: level)))
                sizes.append(
                    try await SinkTestSupport.export(
                        rows, schema: SinkTestSupport.awkwardSchema, into: sink, batchSize: 100)[0].bytes)
                #expect(
                    try await SinkTestSupport.pythonJSON(
                        try await SinkTestSupport.gunzip(directory + "/l\(level).jsonl.gz"), array: false
                    ).count == 500)
            }
            #expect(sizes[0] > sizes[1] * 5)
        }
    }

    @Test func duplicateColumnNamesAreRejected() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = JSONSink(options: try SinkTestSupport.options(directory, "x.jsonl"))
            await #expect(throws: NowETLError.self) {
                try await sink.open(schema: RowSchema(names: ["a", "b", "a"]), context: SinkTestSupport.context())
            }
        }
    }
}
