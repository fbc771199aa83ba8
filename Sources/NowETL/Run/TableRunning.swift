import Foundation
import NowData

/// What happened to one table in a run; shown in the summary and written to `--summary-json`.
public struct TableSummary: Sendable, Hashable, Codable {
    /// The table.
    public var table: String
    /// Rows written to every output.
    public var rows: Int
    /// The counts that add up (``TableCounter``: pages, requests, retries, …), one list read by counter:
    /// `counts[.pages]`.
    public var counts = TableCounts()
    /// Records rejected by the table's reject policy (skipped or dead-lettered).
    public var rejects: Int
    /// The instance's count for the filter (Aggregate API) before extraction, when it was read.
    public var sourceCount: Int?
    /// Wall time, seconds.
    public var seconds: Double
    /// The files committed (empty until the run commits).
    public var files: [OutputFile]
    /// The database tables loaded (empty until the run commits).
    public var databaseTables: [DatabaseTableLoad] = []
    /// The tables written into other instances. Written when the table is prepared, and an instance
    /// has no rollback: listed whether the run commits or not.
    public var instanceTables: [InstanceTableLoad] = []
    /// The configured `concurrency` (requests in flight).
    public var concurrency: Int?
    /// The lowest concurrency the instance's request limiter ran at (lowered after 429 answers).
    public var lowestConcurrency: Int?
    /// Records the instance counts that were hidden from the reading user (row ACLs): per sys_id range,
    /// the instance's count of the range when the range was done minus the records received in it,
    /// summed. Exact when the table does not change during the export; the journal keeps it for a
    /// resumed run. Rows that changed during the export are the difference that remains between
    /// ``sourceCount`` and rows + rejects + hidden rows.
    public var hiddenRows: Int
    /// Deletion records written (incremental tables with `deletes: true`); counted in ``rows`` too.
    public var deleted: Int = 0

    /// Creates a summary.
    public init(
        table: String, rows: Int = 0, counts: TableCounts, rejects: Int = 0, sourceCount: Int? = nil,
        seconds: Double = 0, files: [OutputFile] = [], lowestConcurrency: Int? = nil, hiddenRows: Int = 0
    ) {
        self.table = table
        self.rows = rows
        self.counts = counts
        self.rejects = rejects
        self.sourceCount = sourceCount
        self.seconds = seconds
        self.files = files
        self.lowestConcurrency = lowestConcurrency
        self.hiddenRows = hiddenRows
    }

    /// Creates a summary with these counts (the form of the tests and of older callers).
    public init(
        table: String, rows: Int = 0, pages: Int = 0, requests: Int = 0, retries: Int = 0, rejects: Int = 0,
        sourceCount: Int? = nil, seconds: Double = 0, files: [OutputFile] = [], resumedPages: Int = 0,
        resumedRows: Int = 0, lowestConcurrency: Int? = nil, rangeSplits: Int = 0, hiddenRows: Int = 0,
        pageSizeReductions: Int = 0
    ) {
        var counts = TableCounts()
        counts[.pages] = pages
        counts[.requests] = requests
        counts[.retries] = retries
        counts[.resumedPages] = resumedPages
        counts[.resumedRows] = resumedRows
        counts[.rangeSplits] = rangeSplits
        counts[.pageSizeReductions] = pageSizeReductions
        self.init(
            table: table, rows: rows, counts: counts, rejects: rejects, sourceCount: sourceCount, seconds: seconds,
            files: files, lowestConcurrency: lowestConcurrency, hiddenRows: hiddenRows)
    }
}

/// Progress of one table, for the terminal display and the periodic log lines.
public enum TableProgress: Sendable, Hashable {
    /// The instance counted `count` matching records (the ETA's denominator).
    case counted(table: String, count: Int)
    /// A page arrived: `rows` in it, `totalRows` so far, `pages` so far.
    case page(table: String, rows: Int, totalRows: Int, pages: Int)
    /// The table's run journal was opened: fresh, resumed or discarded.
    case journal(table: String, ResumeState)
    /// The table's outputs were prepared (they become visible when the run commits).
    case finished(TableSummary)
    /// NowData's transport retried a request of the table or found it slow (for the log).
    case transport(table: String, TransportEvent)
    /// An incremental table's run reads these windows (the rows', and the deletions' with `deletes: true`).
    case window(table: String, IncrementalWindow, deletes: IncrementalWindow?)
    /// nowetl's clock is `seconds` ahead of the instance's (behind when negative), by the instance's
    /// `Date` header; the signpost follows the earlier clock.
    case clockSkew(table: String, seconds: Int)
    /// An output of the table loaded or wrote rows after the extraction (a database, another instance).
    case output(table: String, OutputProgress)
}

/// Where an incremental table's run starts from; ``PipelineRun`` reads the state file once per run.
public struct IncrementalRequest: Sendable, Hashable {
    /// The table's committed state, `nil` before its first committed run.
    public var saved: IncrementalTableState?
    /// `--full-refresh`: read everything again; only the deletions' cursor of ``saved`` is kept.
    public var fullRefresh: Bool
    /// When the run started (the signpost's clock).
    public var runStarted: Date

    /// Creates a request.
    public init(saved: IncrementalTableState?, fullRefresh: Bool = false, runStarted: Date) {
        self.saved = saved
        self.fullRefresh = fullRefresh
        self.runStarted = runStarted
    }
}

/// Extracts one table and prepares its outputs: the contract between the run orchestration (CLI,
/// summary, commit, manifest) and the extractor.
///
/// The runner calls ``run(_:outputs:context:restart:progress:)`` once per table. Nothing visible
/// changes: the outputs are staged (``PreparedTable``), and the run then commits every table's
/// outputs in one step or aborts them all (``PipelineRun``). On failure the runner has aborted the
/// table's outputs itself; what it fetched stays in the run journal for the next run to resume.
public protocol TableRunning: Sendable {
    /// Extracts `table` and prepares `outputs`, reporting progress; `restart` discards the table's journal.
    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable

    /// As ``run(_:outputs:context:restart:progress:)``, for an incremental table (`incremental` set for
    /// every table with `mode: incremental`): only what changed since `incremental.saved`, with the
    /// table's next state in ``PreparedTable/incrementalState``.
    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        incremental: IncrementalRequest?, progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable

    /// The names the tables named `tables` of `configuration` (every table for none) use that the
    /// instance does not know; `nowetl run` and `nowetl validate --online` call this before anything
    /// is fetched or written, and fail with exit 78 when it finds any.
    ///
    /// ``TableRunner`` checks against the instance's dictionary (``DictionaryNameCheck``). The default
    /// finds nothing: a runner that reads no instance (a test's scripted one) has no dictionary.
    func checkNames(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [DictionaryNameProblem]

    /// The order to write `tables` in, referenced tables first, computed from the instance's dictionary
    /// (``TableOrder/read(_:cache:discovery:)``); the run asks only when it needs one
    /// (``PipelineRun/tableOrder(for:tables:runner:)``).
    ///
    /// The default is the order of `tables`: a runner that reads no instance has no dictionary.
    func dependencyOrder(of tables: [String]) async throws -> TableOrder

    /// The pre-flight of every `instance:` output of `configuration` against its target for the tables
    /// named `tables` (every table for none), one report per output (``TargetPreflight``); `nowetl run`
    /// and `nowetl validate --online` call this before anything is written.
    ///
    /// The default finds nothing: a runner that reads no instance has no dictionary.
    func checkTargets(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [TargetPreflightReport]

    /// Read access to what a run reads besides the tables (``TableRunner`` checks `sys_audit_delete` for
    /// tables with `deletes: true`); `validate --online` calls it. The default checks nothing: a runner
    /// without an instance has none to ask.
    func checkAccess(in configuration: PipelineConfiguration, tables: [String]) async throws
}

extension TableRunning {
    /// A runner that knows nothing of incremental state (a test's scripted one) runs every table in full.
    public func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        incremental: IncrementalRequest?, progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        try await run(table, outputs: outputs, context: context, restart: restart, progress: progress)
    }

    /// No reports: a runner without an instance has no dictionary to check against.
    public func checkTargets(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [TargetPreflightReport]
    { [] }

    /// Nothing to check: a runner without an instance has none to ask.
    public func checkAccess(in configuration: PipelineConfiguration, tables: [String]) async throws {}

    /// No problems: a runner without an instance has no dictionary to check against.
    public func checkNames(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [DictionaryNameProblem]
    { [] }

    /// The order of `tables`: a runner without an instance knows no references.
    public func dependencyOrder(of tables: [String]) async throws -> TableOrder {
        .pipelineOrder(tables)
    }
}

/// A table whose outputs are prepared (staged, complete, synced) and wait for the run's commit.
///
/// The run either calls ``commit()`` — after it wrote the commit record that renames the staged
/// files — or ``abort()``, which removes them. Not `Sendable`: the task that drives the run owns it.
public final class PreparedTable {
    /// The table's summary (``TableSummary/files`` filled at commit).
    public var summary: TableSummary
    /// What every output staged.
    public let outputs: [PreparedOutput]
    /// The table's run journal, removed by the commit.
    public let journalDirectory: String?
    /// An incremental table's state once this run commits (``IncrementalState``, written in the same
    /// commit as the outputs); `nil` for a full table.
    public var incrementalState: IncrementalTableState?
    /// What a shard's extraction of the table holds (``ShardExtraction``), for the shard's manifest.
    var shardEntry: WithCounts<ShardManifest.Table>?
    private let sinks: [any RecordSink]
    private let deadLetters: DeadLetterFile?

    /// Wraps prepared sinks.
    public convenience init(
        summary: TableSummary, outputs: [PreparedOutput], sinks: [any RecordSink], journalDirectory: String?
    ) {
        self.init(
            summary: summary, outputs: outputs, sinks: sinks, deadLetters: nil, journalDirectory: journalDirectory)
    }

    init(
        summary: TableSummary, outputs: [PreparedOutput], sinks: [any RecordSink], deadLetters: DeadLetterFile?,
        journalDirectory: String?
    ) {
        self.summary = summary
        self.outputs = outputs
        self.sinks = sinks
        self.deadLetters = deadLetters
        self.journalDirectory = journalDirectory
    }

    /// The outputs' files as they will be once committed.
    public var files: [OutputFile] {
        outputs.flatMap(\.artifacts).compactMap { artifact in
            if case .file(let file) = artifact { return file }
            return nil
        }
    }

    /// The outputs' database tables as they will be once committed.
    public var databaseTables: [DatabaseTableLoad] { outputs.flatMap(\.artifacts).compactMap(\.databaseTable) }
    /// The tables the outputs wrote into other instances.
    public var instanceTables: [InstanceTableLoad] { outputs.flatMap(\.artifacts).compactMap(\.instanceTable) }

    /// COMMITs the open transaction of every ``TransactionalSink`` (a database output), in output order;
    /// the run's commit calls it for every table before it writes the commit record.
    ///
    /// - Throws: the first sink's error; the sinks after it are not committed (the caller aborts them).
    public func commitTransactions() async throws {
        for case let sink as any TransactionalSink in sinks { try await sink.commitTransaction() }
    }

    /// The run decided to commit (its record is written): the sinks stop owning their staged files,
    /// which the record renames. Every sink is handed over even when one throws (an abort must not
    /// remove a file the record needs); the first error is thrown afterwards.
    public func commit() async throws {
        var firstError: (any Error)?
        for sink in sinks {
            do {
                _ = try await sink.commit()
            } catch {
                firstError = firstError ?? error
            }
        }
        do {
            try deadLetters?.commit()
        } catch {
            firstError = firstError ?? error
        }
        summary.files = files
        summary.databaseTables = databaseTables
        if let firstError { throw firstError }
    }

    /// The run does not commit: every staged file is removed.
    public func abort() async {
        for sink in sinks { await sink.abort() }
        deadLetters?.abort()
    }
}
