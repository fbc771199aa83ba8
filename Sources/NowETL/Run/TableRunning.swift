import NowData

/// What happened to one table in a run; shown in the summary and written to `--summary-json`.
public struct TableSummary: Sendable, Hashable, Codable {
    /// The table.
    public var table: String
    /// Rows written to every output.
    public var rows: Int
    /// Pages fetched.
    public var pages: Int
    /// HTTP requests sent, retries included.
    public var requests: Int
    /// Requests retried after 429/5xx/connection errors.
    public var retries: Int
    /// Records rejected by the table's reject policy (skipped or dead-lettered).
    public var rejects: Int
    /// The instance's count for the filter (Aggregate API) before extraction, when it was read.
    public var sourceCount: Int?
    /// Wall time, seconds.
    public var seconds: Double
    /// The files committed.
    public var files: [OutputFile]

    /// Creates a summary.
    public init(
        table: String, rows: Int = 0, pages: Int = 0, requests: Int = 0, retries: Int = 0, rejects: Int = 0,
        sourceCount: Int? = nil, seconds: Double = 0, files: [OutputFile] = []
    ) {
        self.table = table
        self.rows = rows
        self.pages = pages
        self.requests = requests
        self.retries = retries
        self.rejects = rejects
        self.sourceCount = sourceCount
        self.seconds = seconds
        self.files = files
    }
}

/// Progress of one table, for the terminal display and the periodic log lines.
public enum TableProgress: Sendable, Hashable {
    /// The instance counted `count` matching records (the ETA's denominator).
    case counted(table: String, count: Int)
    /// A page arrived: `rows` in it, `totalRows` so far, `pages` so far.
    case page(table: String, rows: Int, totalRows: Int, pages: Int)
    /// The table's files were committed.
    case finished(TableSummary)
}

/// Exports one table: count, keyset extraction over sys_id partitions, transform, sinks, commit.
///
/// The contract between the run orchestration (CLI, summary, manifest) and the extractor: the
/// runner calls it once per table with the sink specs of the pipeline's outputs; it commits every
/// sink or none (an error aborts them all, leaving earlier good files in place).
public protocol TableRunning: Sendable {
    /// Runs `table` into `outputs`, reporting progress; throws on failure after aborting the sinks.
    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> TableSummary
}
