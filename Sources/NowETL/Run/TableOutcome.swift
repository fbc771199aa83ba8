/// How one selected table of a run ended.
public struct TableOutcome: Sendable, Hashable {
    /// The end of a table.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Exported; rejects (if any) within `reject.max`.
        case ok
        /// Exported, but more records were rejected than `reject.max` allows (exit 2).
        case rejectsOverThreshold = "rejects_over_threshold"
        /// Not exported: the runner threw; the table's previous files are untouched.
        case failed
        /// Not started, because an earlier table failed and the run stops at the first failure.
        case notRun = "not_run"
        /// Extracted and prepared, but not committed because another table failed (without
        /// `--keep-going`) or the run was stopped: its previous files stay, its journal lets the next
        /// run reuse what was fetched.
        case notCommitted = "not_committed"
    }

    /// The table.
    public var table: String
    /// How it ended.
    public var status: Status
    /// The runner's summary, for ``Status/ok`` and ``Status/rejectsOverThreshold``.
    public var summary: TableSummary?
    /// Why it failed (redacted), for ``Status/failed``.
    public var error: String?
    /// The exit code the failure stands for, for ``Status/failed``.
    public var exitCode: Int32?
    /// The failure's kind (``RunFailure/kind``: `authentication`, `unreachable`, …), for ``Status/failed``.
    public var errorKind: String?
    /// Wall time, seconds (the summary's, or measured around a failed table).
    public var seconds: Double

    /// Creates an outcome.
    public init(
        table: String, status: Status, summary: TableSummary? = nil, error: String? = nil, exitCode: Int32? = nil,
        errorKind: String? = nil, seconds: Double = 0
    ) {
        self.table = table
        self.status = status
        self.summary = summary
        self.error = error
        self.exitCode = exitCode
        self.errorKind = errorKind
        self.seconds = seconds
    }
}
