import Foundation

/// The run's outcome as JSON: what `--summary-json PATH` writes, for monitoring and scripts.
///
/// ```json
/// { "version": 1, "run_id": "20240301T020000Z-7f3a", "run_started": "2024-03-01T02:00:00Z",
///   "status": "ok", "exit_code": 0, "seconds": 1.9, "manifest": "/…/out/demo/manifest.json",
///   "log_writes_dropped": 0,
///   "totals": { "rows": 2200, "pages": 5, "requests": 7, "retries": 0, "rejects": 0, "files": 6 },
///   "tables": [ { "table": "incident", "status": "ok", "rows": 2000, "source_count": 2000, … ,
///                 "files": [ { "path": "incident.csv.gz", "rows": 2000, "bytes": 81234, "sha256": "…" } ],
///                 "database_tables": [ { "database": "/…/out/report.db", "table": "incident",
///                                        "source_table": "incident", "mode": "merge",
///                                        "rows": 2000, "deleted": 0, "skipped": false, "recreated": false,
///                                        "load_id": "…" } ] } ] }
/// ```
/// A database table is listed once its run COMMITted it; `skipped` marks a load the database had
/// already (a rerun after a crash between the database's COMMIT and the run's commit record).
public struct RunReport: Sendable, Hashable, Codable {
    /// One table; its counts (``TableCounter``: `pages`, `requests`, `retries`, `resumed_pages`, …) stand
    /// beside it, each under its own key (``WithCounts``).
    public struct Table: Sendable, Hashable, Codable {
        /// The table.
        public var table: String
        /// `ok`, `rejects_over_threshold`, `failed`, `not_run` or `not_committed`.
        public var status: TableOutcome.Status
        /// Rows written (0 unless exported).
        public var rows: Int
        /// Rejected records.
        public var rejects: Int
        /// The instance's count, when read.
        public var sourceCount: Int?
        /// Wall time, seconds.
        public var seconds: Double
        /// Rows per second, when there was time.
        public var rowsPerSecond: Double?
        /// Why it failed.
        public var error: String?
        /// The failure's exit code.
        public var exitCode: Int32?
        /// The failure's kind (``RunFailure/kind``), as the run's ``RunReport/error`` has it.
        public var errorKind: String?
        /// The committed files.
        public var files: [Manifest.File]
        /// The configured `concurrency`.
        public var concurrency: Int?
        /// The lowest concurrency the request limiter ran at (below `concurrency` after 429 answers).
        public var lowestConcurrency: Int?
        /// Records the instance counts that were hidden from the reading user (``TableSummary/hiddenRows``).
        public var hiddenRows: Int
        /// Deletion records written (``TableSummary/deleted``; counted in ``rows`` too).
        public var deleted: Int
        /// The committed database tables.
        public var databaseTables: [DatabaseTable]
        /// The tables written into other instances (written whether the run committed or not).
        public var instanceTables: [InstanceTableLoad]

        enum CodingKeys: String, CodingKey {
            case table, status, rows, rejects
            case sourceCount = "source_count"
            case seconds
            case rowsPerSecond = "rows_per_second"
            case error
            case errorKind = "error_kind"
            case exitCode = "exit_code"
            case files
            case databaseTables = "database_tables"
            case instanceTables = "instance_tables"
            case concurrency
            case lowestConcurrency = "lowest_concurrency"
            case hiddenRows = "hidden_rows"
            case deleted
        }

        /// The report's entry for a table's outcome (its counts beside it: ``RunReport/tables``).
        init(_ outcome: TableOutcome) {
            let summary = outcome.summary
            table = outcome.table
            status = outcome.status
            rows = summary?.rows ?? 0
            rejects = summary?.rejects ?? 0
            sourceCount = summary?.sourceCount
            seconds = summary?.seconds ?? outcome.seconds
            rowsPerSecond = summary.flatMap { $0.seconds > 0 ? Double($0.rows) / $0.seconds : nil }
            error = outcome.error
            errorKind = outcome.errorKind
            exitCode = outcome.exitCode
            files = (summary?.files ?? []).map(\.entry)
            concurrency = summary?.concurrency
            lowestConcurrency = summary?.lowestConcurrency
            hiddenRows = summary?.hiddenRows ?? 0
            deleted = summary?.deleted ?? 0
            databaseTables = summary?.databaseTables ?? []
            instanceTables = summary?.instanceTables ?? []
        }
    }

    /// A database table a table's output loaded, as the sink described it.
    public typealias DatabaseTable = DatabaseTableLoad

    /// Sums over the tables.
    public struct Totals: Sendable, Hashable, Codable {
        /// Rows written.
        public var rows: Int
        /// Pages fetched.
        public var pages: Int
        /// HTTP requests.
        public var requests: Int
        /// Retried requests.
        public var retries: Int
        /// Rejected records.
        public var rejects: Int
        /// Files committed.
        public var files: Int
    }

    /// The report format's version (1).
    public var version: Int
    /// The run's identifier.
    public var runID: String
    /// When the run started, ISO 8601 UTC.
    public var runStarted: String
    /// `ok`, `rejects_over_threshold`, `interrupted` (SIGINT/SIGTERM) or `failed`.
    public var status: String
    /// The process exit code.
    public var exitCode: Int32
    /// Wall time of the run, seconds.
    public var seconds: Double
    /// The manifest's path, when it was written.
    public var manifest: String?
    /// Why the run failed: its kind and message (``RunFailure``). A run that failed before it started
    /// (a pipeline file that does not load, a wrong password, an unknown name, an unreachable instance,
    /// a busy `output_dir`) has it and no tables; a run whose table failed has the first failed table's
    /// (its kind, and its message naming the table); a failure after the tables is of kind `failed`.
    public var error: RunFailure?
    /// Sums.
    public var totals: Totals
    /// The selected tables in pipeline order, each with its counts.
    public var tables: [WithCounts<Table>]
    /// Log and result lines that could not be written to standard output or standard error (a full
    /// disk, a closed descriptor, a pipe without reader) and were dropped; the export went on.
    public var logWritesDropped: Int

    enum CodingKeys: String, CodingKey {
        case version
        case runID = "run_id"
        case runStarted = "run_started"
        case status
        case exitCode = "exit_code"
        case seconds, manifest, error, totals, tables
        case logWritesDropped = "log_writes_dropped"
    }

    /// The report of `result`; `logWritesDropped` counts the lines standard output and standard error lost.
    public init(_ result: PipelineRunResult, logWritesDropped: Int = 0) {
        version = 1
        self.logWritesDropped = logWritesDropped
        runID = result.runID
        runStarted = RunLogger.timestamp(result.runStarted)
        status =
            switch result.exitCode {
            case NowETLExitCode.ok: "ok"
            case NowETLExitCode.rejectsOverThreshold: "rejects_over_threshold"
            case NowETLExitCode.interrupted, NowETLExitCode.terminated: "interrupted"
            default: "failed"
            }
        exitCode = result.exitCode
        seconds = result.seconds
        manifest = result.manifestPath
        // The run's error is its own (a commit that failed), else the first failed table's: a monitor
        // reads one place whatever stage failed.
        error =
            result.runError.map { RunFailure(kind: NowETLError.Code.failed.rawValue, message: $0) }
            ?? result.tables.first { $0.status == .failed }.map { table in
                let message = table.error ?? "failed"
                return RunFailure(
                    kind: table.errorKind ?? NowETLError.Code.failed.rawValue,
                    message: message.hasPrefix("table \(table.table)") ? message : "table \(table.table): \(message)")
            }
        tables = result.tables.map { WithCounts(Table($0), counts: $0.summary?.counts ?? TableCounts()) }
        totals = Totals(
            rows: tables.reduce(0) { $0 + $1.rows }, pages: tables.reduce(0) { $0 + $1.counts[.pages] },
            requests: tables.reduce(0) { $0 + $1.counts[.requests] },
            retries: tables.reduce(0) { $0 + $1.counts[.retries] },
            rejects: tables.reduce(0) { $0 + $1.rejects }, files: tables.reduce(0) { $0 + $1.files.count })
    }

    /// The report of a run that ended before it started: `status` `failed`, `exitCode`, `failure`, and
    /// no tables.
    init(runID: String, started: Date, seconds: Double, exitCode: Int32, failure: RunFailure, logWritesDropped: Int) {
        version = 1
        self.runID = runID
        runStarted = RunLogger.timestamp(started)
        status = "failed"
        self.exitCode = exitCode
        self.seconds = seconds
        error = failure
        tables = []
        totals = Totals(rows: 0, pages: 0, requests: 0, retries: 0, rejects: 0, files: 0)
        self.logWritesDropped = logWritesDropped
    }

    /// The report as pretty-printed JSON with sorted keys and a final line break.
    public func jsonData() throws -> Data {
        try JSONDocument.data(self)
    }

    /// Writes the report to `path` atomically (a temporary file beside it, renamed into place),
    /// creating the directory if needed.
    public func write(toFile path: String) throws {
        try ReportFile.write(jsonData(), toFile: path)
    }
}
