import Foundation
import NowSimTesting
import Synchronization

@testable import NowETL

/// A stand-in for the extractor only: it makes no requests, but writes its rows through the real
/// sinks of the pipeline's outputs and prepares them, so the run's commit, manifests, files and
/// summaries are real.
struct FakeTableRunner: TableRunning {
    /// What the fake does for one table.
    enum Behaviour: Sendable {
        /// Writes `rows` rows and reports `rejects` and `sourceCount`.
        case rows(Int, rejects: Int = 0, sourceCount: Int? = nil)
        /// Throws `error` before writing anything.
        case fail(any Error & Sendable)
        /// Writes `rows` rows into its sinks, calls `started`, then waits until the task is cancelled
        /// (a table whose pages take forever) and aborts its sinks.
        case rowsThenWaitForCancellation(Int, started: @Sendable () -> Void)
    }

    var behaviours: [String: Behaviour]
    let calls = CallLog()

    init(_ behaviours: [String: Behaviour]) {
        self.behaviours = behaviours
    }

    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        calls.append(table.table + "@" + context.runID)
        let behaviour = behaviours[table.table] ?? .rows(3)
        var waitsForCancellation: (@Sendable () -> Void)?
        let count: Int
        let rejects: Int
        let sourceCount: Int?
        switch behaviour {
        case .rows(let rows, let rejected, let counted): (count, rejects, sourceCount) = (rows, rejected, counted)
        case .fail(let error): throw error
        case .rowsThenWaitForCancellation(let rows, let started):
            (count, rejects, sourceCount, waitsForCancellation) = (rows, 0, nil, started)
        }
        progress(.counted(table: table.table, count: sourceCount ?? count))
        let schema = RowSchema(columns: [ColumnSchema(name: "sys_id"), ColumnSchema(name: "number", type: .int)])
        let sinks = outputs.map { $0.makeSink() }
        var prepared: [PreparedOutput] = []
        do {
            for sink in sinks { try await sink.open(schema: schema, context: context) }
            var batch = RowBatch(schema: schema, capacity: count)
            for index in 0..<count {
                batch.append(Row(values: [.string(String(format: "%032x", index)), .int(index)]))
            }
            for sink in sinks { try await sink.write(batch) }
            progress(.page(table: table.table, rows: count, totalRows: count, pages: 1))
            if let started = waitsForCancellation {
                started()
                try await Task.sleep(for: .seconds(3600))
            }
            for sink in sinks { prepared.append(try await sink.prepare()) }
        } catch {
            for sink in sinks { await sink.abort() }
            throw error
        }
        let summary = TableSummary(
            table: table.table, rows: count, pages: 1, requests: 2, retries: 1, rejects: rejects,
            sourceCount: sourceCount, seconds: 0.5)
        let result = PreparedTable(summary: summary, outputs: prepared, sinks: sinks, journalDirectory: nil)
        result.summary.files = result.files
        progress(.finished(result.summary))
        return result
    }
}

/// The tables a fake runner was asked for, in order (`table@run_id`).
final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    var tables: [String] { all.map { String($0.split(separator: "@")[0]) } }
}

/// An error with an exit code, as the extractor's errors will have.
struct CodedError: Error, Sendable, ExitCodeProviding, CustomStringConvertible {
    var exitCode: Int32
    var description: String
}

/// Captured standard output and standard error.
final class CapturedStreams: Sendable {
    private let out = Mutex("")
    private let err = Mutex("")
    let isTerminal: Bool

    init(isTerminal: Bool = false) {
        self.isTerminal = isTerminal
    }

    var standardOutput: String { out.withLock { $0 } }
    var standardError: String { err.withLock { $0 } }
    var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }

    var console: Console { Console { text in self.err.withLock { $0 += text } } }

    var streams: CommandStreams {
        CommandStreams(
            standardOutput: { text in self.out.withLock { $0 += text } }, standardError: console,
            standardErrorIsTerminal: isTerminal)
    }
}

/// A temporary directory with a two-table pipeline file whose outputs go to `out/` inside it.
struct RunFixture {
    static let password = "s3cret-pw-42"
    static let environment = ["SN_INSTANCE": "http://127.0.0.1:9", "SN_PASSWORD": password]

    let directory: URL
    var pipelinePath: String { directory.appendingPathComponent("pipeline.yaml").path }
    var outputDirectory: String { directory.appendingPathComponent("out").path }
    var manifestPath: String { outputDirectory + "/manifest.json" }

    /// Writes the pipeline into `directory` (which exists).
    init(in directory: URL) throws {
        self.directory = directory
        try PipelineYAML(
            auth: PipelineYAML.etlAuth, outputDirectory: directory.appendingPathComponent("out").path,
            tables: """
                  - table: incident
                  - table: problem
                    reject: { mode: skip, max: 1 }
                """,
            outputs: """
                  - csv: { path: "{table}.csv" }
                  - json: { path: "{table}-{run_id}.jsonl.gz" }
                """
        ).write("pipeline.yaml", in: directory)
    }

    func configuration() throws -> PipelineConfiguration {
        try PipelineLoader.load(path: pipelinePath, environment: Self.environment)
    }

    /// Runs `body` with a fixture in a scratch directory, removed afterwards.
    static func with<Value>(
        _ label: String = #function, _ body: (RunFixture) async throws -> Value
    ) async throws -> Value {
        try await withScratchDirectory(label) { (directory: URL) in try await body(RunFixture(in: directory)) }
    }

    /// The synchronous form of ``with(_:_:)-async``.
    static func with<Value>(_ label: String = #function, _ body: (RunFixture) throws -> Value) throws -> Value {
        try withScratchDirectory(label) { (directory: URL) in try body(RunFixture(in: directory)) }
    }

    /// The manifest as JSON, when there is one.
    func manifest() throws -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: manifestPath) else { return nil }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
