import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// Helpers of the sink tests: scratch directories, external tools (gzip, xmllint, python3, sha256sum),
/// and the awkward text every format must carry.
enum SinkTestSupport {
    /// One column of each typed kind (i, d, b, dt, day, dur) and an untyped one (n): the typed-values
    /// tests of the CSV and JSON sinks.
    static let typedColumns = [
        ColumnSchema(name: "i", type: .int), ColumnSchema(name: "d", type: .decimal),
        ColumnSchema(name: "b", type: .bool), ColumnSchema(name: "dt", type: .dateTime),
        ColumnSchema(name: "day", type: .date), ColumnSchema(name: "dur", type: .duration), ColumnSchema(name: "n"),
    ]

    /// An integer id and a text column: the schema of ``awkwardRows``.
    static let awkwardSchema = RowSchema(columns: [
        ColumnSchema(name: "id", type: .int), ColumnSchema(name: "short_description"),
    ])

    /// One row per ``awkwardTexts`` entry (its index as the id), and a last row (id -1) with no text: what
    /// the CSV and JSON suites round-trip through their readers.
    static var awkwardRows: [Row] {
        awkwardTexts.enumerated().map { Row(values: [.int($0.offset), .string($0.element)]) }
            + [Row(values: [.int(-1), nil])]
    }

    /// A fresh empty directory under the system's temporary directory.
    static func scratchDirectory(_ label: String = #function) throws -> String {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "nowetl-sinks-\(safe)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    struct ToolResult {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs a tool (from `/usr/bin`, else found on `PATH`) with `stdin`, through the one subprocess
    /// helper (output in files, no pipe deadlocks, waited for on a thread of its own).
    static func run(_ tool: String, _ arguments: [String], stdin: Data = Data()) async throws -> ToolResult {
        let result = try await Subprocess.run(Subprocess.tool(tool), arguments, input: stdin, timeout: 300)
        return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderrText)
    }

    /// Runs a tool and returns its standard output, recording an issue when it fails.
    static func output(
        _ tool: String, _ arguments: [String], stdin: Data = Data(), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Data {
        let result = try await run(tool, arguments, stdin: stdin)
        #expect(
            result.status == 0, "\(tool) \(arguments.joined(separator: " ")) failed: \(result.stderr)",
            sourceLocation: sourceLocation)
        return result.stdout
    }

    /// The bytes of a file.
    static func read(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The bytes of a gzip file, decompressed by the `gzip` tool after `gzip -t` checked it.
    static func gunzip(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Data {
        let test = try await run("gzip", ["-t", path])
        #expect(test.status == 0, "gzip -t \(path): \(test.stderr)", sourceLocation: sourceLocation)
        return try await output("gzip", ["-dc", path], sourceLocation: sourceLocation)
    }

    /// Rows as Python's `csv` module reads them.
    static func pythonCSV(_ bytes: Data, delimiter: String = ",") async throws -> [[String]] {
        let out = try await output("python3", ["-c", SinkPythonReaders.csv, delimiter], stdin: bytes)
        return try JSONDecoder().decode([[String]].self, from: out)
    }

    /// Rows as Python's `json` module reads them: per row `[key, kind, text]` triples.
    static func pythonJSON(_ bytes: Data, array: Bool) async throws -> [[[String]]] {
        let out = try await output("python3", ["-c", SinkPythonReaders.json, array ? "array" : "lines"], stdin: bytes)
        return try JSONDecoder().decode([[[String]]].self, from: out)
    }

    /// A document as Python's `xml.etree` reads it.
    struct XMLDocument: Decodable {
        struct Record: Decodable {
            var tag: String
            var attrib: [String: String]
            var fields: [Field]
        }
        struct Field: Decodable {
            var tag: String
            var text: String
            var attrib: [String: String]

            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                tag = try container.decode(String.self)
                text = try container.decode(String.self)
                attrib = try container.decode([String: String].self)
            }
        }
        var root: String
        var rootAttrib: [String: String]
        var records: [Record]
    }

    static func pythonXML(_ bytes: Data) async throws -> XMLDocument {
        let out = try await output("python3", ["-c", SinkPythonReaders.xml], stdin: bytes)
        return try JSONDecoder().decode(XMLDocument.self, from: out)
    }

    /// Several XML files (gzip'd when their names end in `.gz`) as Python reads them, in one run.
    static func pythonXML(files: [String]) async throws -> [XMLDocument] {
        let out = try await output("python3", ["-c", SinkPythonReaders.xml] + files)
        return try JSONDecoder().decode([XMLDocument].self, from: out)
    }

    /// Names of the entries of a directory, sorted.
    static func listing(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// Text that breaks naive writers: separators, quotes, line breaks, markup, CDATA ends, CJK, emoji ZWJ
    /// sequences, formula starters, a 60 KB cell, C0 controls and XML-forbidden characters.
    static let awkwardTexts: [String] = [
        "plain",
        "",
        "comma, inside",
        "semi;colon|pipe",
        "quote \" inside",
        "\"starts with a quote",
        "line\nbreak",
        "carriage\rreturn",
        "crlf\r\ninside",
        "\r\n",
        "tab\there",
        "<&> \"xml\" 'apos' &amp;",
        "]]> ends CDATA ]]]]><![CDATA[>",
        "日本語のテキスト、カンマ，全角",
        "👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👍🏽",
        "=SUM(A1:A2)",
        "+1",
        "-2",
        "@cmd",
        "\tleading tab",
        "\rleading cr",
        " leading and trailing space ",
        "back\\slash \\n not a newline",
        "controls \u{01}\u{07}\u{1B}[31m\u{1F} nul\u{00}end",
        "nonchars \u{FFFE}\u{FFFF} and \u{FFFD}",
        "separators \u{2028}\u{2029}",
        "NULL",
        String(repeating: "long,\"cell\"\r\n<&>", count: 3_800),  // ~60 KB
    ]

    /// A fixed run start: 2024-03-01 02:00:00 UTC.
    static let runStarted = Date(timeIntervalSince1970: 1_709_258_400)

    static func context(_ table: String = "incident") -> SinkContext {
        SinkContext(table: table, runID: "run-1", runStarted: runStarted)
    }
}

extension SinkTestSupport {
    /// Opens `sink`, writes `rows` in batches of `batchSize`, commits and returns the files.
    @discardableResult
    static func export(
        _ rows: [Row], schema: RowSchema, into sink: any RecordSink, context: SinkContext = context(),
        batchSize: Int = 3
    ) async throws -> [OutputFile] {
        try await sink.open(schema: schema, context: context)
        var batch = RowBatch(schema: schema, capacity: batchSize)
        do {
            for row in rows {
                batch.append(row)
                if batch.count == batchSize {
                    try await sink.write(batch)
                    batch.removeAll()
                }
            }
            if !batch.isEmpty { try await sink.write(batch) }
            return try await commit([sink])
        } catch {
            await sink.abort()
            throw error
        }
    }

    /// Commits written `sinks` as a run does (prepare, commit record, hand-over, renames) and returns
    /// their files; the record goes into the first file sink's output directory.
    static func commit(_ sinks: [any RecordSink], runID: String = "run-1") async throws -> [OutputFile] {
        let directory = sinks.lazy.compactMap { ($0 as? FileSink)?.outputDirectory }.first ?? "."
        return try await RunCommit.commitOutputs(of: sinks, runID: runID, outputDirectory: directory)
            .compactMap(\.outputFile)
    }

    /// Options for a file sink writing `path` under `directory`.
    static func options(
        _ directory: String, _ path: String, compression: Compression? = nil, split: SplitPolicy = .none
    ) throws -> FileSinkOptions {
        FileSinkOptions(
            outputDirectory: directory, path: try OutputPathTemplate(path), compression: compression, split: split)
    }
}
