import Foundation

/// What a sink needs to know about the run and the table when it opens: the values of the path
/// template's placeholders and the XML unload date.
public struct SinkContext: Sendable, Hashable {
    /// The table being exported: `{table}` in paths, the record element name in XML.
    public var table: String
    /// The run's identifier: `{run_id}` in paths.
    public var runID: String
    /// When the run started: `{run_date}` (its UTC date, `yyyy-MM-dd`) in paths and `unload_date`
    /// (`yyyy-MM-dd HH:mm:ss` UTC) in XML unload files.
    ///
    /// Give every table of a run the same instant so that all files agree (and repeated runs with the
    /// same inputs produce identical bytes).
    public var runStarted: Date
    /// What makes this table's load the same load again: a database sink records it in the database
    /// (`_nowetl_loads`) in the transaction of the rows, and skips a load whose id is already there.
    ///
    /// ``TableRunner`` gives the table's run journal id, so the rerun of a run that crashed after its
    /// database COMMIT (and before the run's commit record) resumes the same journal and is skipped,
    /// while the next run (a fresh journal) loads. Default: the run id.
    public var loadID: String
    /// Whether the run reads only what changed (an incremental table): a database copy is then pruned
    /// against a scan of the filter's keys, and columns it gains are backfilled from a scan; a full
    /// table's rows are every record of the filter by themselves.
    public var readsChangesOnly = false
    /// `run --full-refresh` of an incremental table: a database output in `mode: merge` replaces its
    /// copy (or, with `deletes: soft`, merges and prunes it) in the run's transaction.
    public var fullRefresh = false
    /// `run --prune`: every database output in `mode: merge` prunes, whatever its `prune:`.
    public var forcePrune = false
    /// Where a database or instance output reports the rows it has loaded or written
    /// (``OutputProgress``); `nil` shows nothing.
    public var outputProgress: OutputProgress.Report?

    /// Creates a context; `loadID` defaults to `runID`.
    public init(table: String, runID: String, runStarted: Date, loadID: String? = nil) {
        self.table = table
        self.runID = runID
        self.runStarted = runStarted
        self.loadID = loadID ?? runID
    }

    /// `runStarted` as whole seconds since the epoch.
    var runStartedSeconds: Int { Int(runStarted.timeIntervalSince1970.rounded(.down)) }
}
