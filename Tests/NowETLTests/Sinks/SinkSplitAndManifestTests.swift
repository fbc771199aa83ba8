import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// Splitting into parts, their names, stale parts, and the manifest against `sha256sum`.
@Suite(.timeLimit(.minutes(5))) struct SinkSplitAndManifestTests {
    static let schema = RowSchema(columns: [ColumnSchema(name: "n", type: .int), ColumnSchema(name: "text")])

    static func rows(_ count: Int) -> [Row] {
        (0..<count).map { Row(values: [.int($0), .string("row \($0) " + String(repeating: "x", count: $0 % 50))]) }
    }

    @Test(arguments: [
        ("out/incident.csv.gz", "out/incident-0002.csv.gz"),
        ("incident.csv", "incident-0002.csv"),
        ("incident", "incident-0002"),
        ("a.b/incident.2024-03-01.csv", "a.b/incident.2024-03-01-0002.csv"),
        ("incident.gz", "incident-0002.gz"),
        (".hidden", ".hidden-0002"),
    ])
    func partNumberGoesBeforeTheExtension(path: String, expected: String) async throws {
        #expect(OutputPathTemplate.insertingPartNumber(2, into: path) == expected)
        #expect(try OutputPathTemplate(path).resolve(table: "t", runDate: "d", runID: "r", part: 2) == expected)
    }

    @Test func splitByRowsNamesPartsAndRepeatsTheHeader() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv.gz", split: .rows(3)))
            let files = try await SinkTestSupport.export(Self.rows(7), schema: Self.schema, into: sink, batchSize: 2)
            #expect(files.map(\.path) == ["incident-0001.csv.gz", "incident-0002.csv.gz", "incident-0003.csv.gz"])
            #expect(files.map(\.rows) == [3, 3, 1])
            #expect(files.map(\.part) == [1, 2, 3])
            var numbers: [String] = []
            for file in files {
                let rows = try await SinkTestSupport.pythonCSV(
                    try await SinkTestSupport.gunzip(directory + "/" + file.path))
                #expect(rows.first == ["n", "text"])
                numbers += rows.dropFirst().map(\.[0])
            }
            #expect(numbers == (0..<7).map(String.init))

            // Exactly a multiple of the limit: no empty trailing part.
            let exact = CSVSink(options: try SinkTestSupport.options(directory, "exact.csv", split: .rows(3)))
            #expect(try await SinkTestSupport.export(Self.rows(6), schema: Self.schema, into: exact).count == 2)
        }
    }

    @Test func aShorterRunRemovesStaleParts() async throws {
        try await withScratchDirectory { (directory: String) in
            let options = try SinkTestSupport.options(directory, "{run_id}/{table}-{part}.jsonl", split: .rows(2))
            let sink = JSONSink(options: options)
            try await SinkTestSupport.export(Self.rows(7), schema: Self.schema, into: sink)
            #expect(try SinkTestSupport.listing(directory + "/run-1") == (1...4).map { "incident-000\($0).jsonl" })
            // The shorter run finds the stale parts when it prepares and leaves them to the run's commit.
            try await sink.open(schema: Self.schema, context: SinkTestSupport.context())
            var batch = RowBatch(schema: Self.schema)
            for row in Self.rows(3) { batch.append(row) }
            try await sink.write(batch)
            let prepared = try await sink.prepare()
            #expect(
                prepared.removals == [
                    directory + "/run-1/incident-0003.jsonl", directory + "/run-1/incident-0004.jsonl",
                ])
            #expect(prepared.staged.map(\.targetPath) == prepared.artifacts.compactMap(\.outputFile?.absolutePath))
            #expect(try SinkTestSupport.listing(directory + "/run-1").filter { !$0.hasPrefix(".") }.count == 4)
            let record = CommitRecord(runID: "run-1", outputs: [prepared])
            try RunCommit.write(record, outputDirectory: directory)
            _ = try await sink.commit()
            try RunCommit.apply(record, outputDirectory: directory)
            #expect(
                try SinkTestSupport.listing(directory + "/run-1") == ["incident-0001.jsonl", "incident-0002.jsonl"])
            #expect(try SinkTestSupport.listing(directory) == ["run-1"], "no commit record or state directory is left")
        }
    }

    @Test func aStagedManifestAppearsOnlyWhenTheRunCommits() async throws {
        try await withScratchDirectory { (directory: String) in
            let files = try await SinkTestSupport.export(
                Self.rows(2), schema: Self.schema,
                into: CSVSink(options: try SinkTestSupport.options(directory, "t.csv")))
            let manifest = Manifest(runID: "run-1", runStarted: SinkTestSupport.runStarted, files: files)
            let staged = try manifest.stage(toDirectory: directory)
            #expect(staged.targetPath == directory + "/manifest.json" && staged.displayPath == "manifest.json")
            #expect(AtomicFile.isTemporaryName((staged.temporaryPath as NSString).lastPathComponent))
            #expect(try SinkTestSupport.listing(directory).filter { !$0.hasPrefix(".") } == ["t.csv"])
            try RunCommit.apply(CommitRecord(runID: "run-1", manifest: staged), outputDirectory: directory)
            #expect(try SinkTestSupport.listing(directory) == ["manifest.json", "t.csv"])
            #expect(try SinkTestSupport.read(directory + "/manifest.json") == (try manifest.jsonData()))

            // A manifest the run does not commit is removed by its owner.
            let unused = try manifest.stage(toDirectory: directory, name: "other.json")
            unused.removeTemporaryFile()
            #expect(try SinkTestSupport.listing(directory) == ["manifest.json", "t.csv"])
        }
    }

    @Test(arguments: [Compression.none, .gzip(level: 1)])
    func splitByBytesKeepsPartsNearTheLimit(compression: Compression) async throws {
        try await withScratchDirectory { (directory: String) in
            let limit = compression == .none ? 60_000 : 20_000
            let sink = XMLSink(
                options: try SinkTestSupport.options(
                    directory, compression == .none ? "{table}.xml" : "{table}.xml.gz", compression: compression,
                    split: .bytes(limit)),
                xml: XMLSinkOptions(format: .unload))
            var state: UInt64 = 0x2545_F491_4F6C_DD1D
            let rows = (0..<1_500).map { index in
                // Pseudo-random hex text: gzip cannot shrink it below half, so compressed parts still split.
                var text = ""
                for _ in 0..<5 {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    text += String(state, radix: 16)
                }
                return Row(values: [.int(index), .string(text)])
            }
            let files = try await SinkTestSupport.export(rows, schema: Self.schema, into: sink, batchSize: 500)
            #expect(files.count >= 2)
            for file in files.dropLast() {
                #expect(file.bytes >= limit)
                #expect(file.bytes < limit + 65_536, "a part overshoots by about one row plus the block zlib holds")
            }
            let paths = files.map { directory + "/" + $0.path }
            if compression != .none {
                let test = try await SinkTestSupport.run("gzip", ["-t"] + paths)
                #expect(test.status == 0, "\(test.stderr)")
            }
            let lint = try await SinkTestSupport.run("xmllint", ["--noout"] + paths)
            #expect(lint.status == 0, "\(lint.stderr)")
            let documents = try await SinkTestSupport.pythonXML(files: paths)
            #expect(documents.map(\.records.count) == files.map(\.rows))
            let total = files.map(\.rows).reduce(0, +)
            #expect(total == rows.count)
        }
    }

    @Test func manifestChecksumsMatchSha256sum() async throws {
        try await withScratchDirectory { (directory: String) in
            var files: [OutputFile] = []
            files += try await SinkTestSupport.export(
                Self.rows(10), schema: Self.schema,
                into: CSVSink(options: try SinkTestSupport.options(directory, "csv/{table}.csv.gz", split: .rows(4))))
            files += try await SinkTestSupport.export(
                Self.rows(10), schema: Self.schema,
                into: JSONSink(options: try SinkTestSupport.options(directory, "{table}.jsonl")),
                context: SinkTestSupport.context("problem"))
            let manifest = Manifest(runID: "run-1", runStarted: SinkTestSupport.runStarted, files: files)
            let path = try manifest.write(toDirectory: directory)
            #expect(path == directory + "/manifest.json")

            struct Entry: Decodable {
                var path: String
                var table: String
                var rows: Int
                var bytes: Int
                var sha256: String
            }
            struct Document: Decodable {
                var version: Int
                var runID: String
                var runStarted: String
                var files: [Entry]

                enum CodingKeys: String, CodingKey {
                    case version, files
                    case runID = "run_id"
                    case runStarted = "run_started"
                }
            }
            let document = try JSONDecoder().decode(Document.self, from: try SinkTestSupport.read(path))
            #expect(document.version == 1 && document.runID == "run-1" && document.runStarted == "2024-03-01T02:00:00Z")
            #expect(
                document.files.map(\.path) == [
                    "csv/incident-0001.csv.gz", "csv/incident-0002.csv.gz", "csv/incident-0003.csv.gz", "problem.jsonl",
                ])
            #expect(document.files.map(\.rows) == [4, 4, 2, 10])
            // sha256sum -c, run in the manifest's directory, confirms every entry.
            let checklist = document.files.map { "\($0.sha256)  \($0.path)\n" }.joined()
            let check = try await SinkTestSupport.run(
                "sh", ["-c", "cd '\(directory)' && sha256sum -c --strict -"], stdin: Data(checklist.utf8))
            #expect(check.status == 0, "\(check.stderr) \(String(decoding: check.stdout, as: UTF8.self))")
            for entry in document.files {
                let size = try FileManager.default.attributesOfItem(atPath: directory + "/" + entry.path)[.size] as? Int
                #expect(size == entry.bytes)
            }
            #expect(try SinkTestSupport.listing(directory) == ["csv", "manifest.json", "problem.jsonl"])
        }
    }
}
