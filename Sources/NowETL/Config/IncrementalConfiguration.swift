import NowData

/// How an incremental table reads only what changed since the last committed run: the `mode:
/// incremental` keys of a table.
///
/// ```yaml
/// - table: incident
///   mode: incremental              # full (default) | incremental
///   cursor: sys_updated_on         # the default; a glide_date_time field
///   lag_seconds: 0                 # 0…604800: leave the last N seconds for the next run
///   deletes: true                  # also capture deletions from sys_audit_delete (default false)
///   start: "2024-01-01 00:00:00"   # optional first cursor (UTC); default: the whole table
/// ```
///
/// The rules (the run's side is ``IncrementalWindow``):
/// * The first run, and every run with `--full-refresh`, reads everything the filter matches (from
///   `start` when given); later runs read the rows whose `(cursor, sys_id)` is greater than the
///   greatest pair the last committed run delivered. The boundary second is read again
///   (`cursor>=T`) and only its rows after the saved sys_id are taken, so many rows sharing one
///   second are neither lost nor doubled.
/// * Every run is bounded by its signpost: the last whole second before the run started, minus
///   `lag_seconds`. Rows updated while the run goes on are left for the next run.
/// * The table must export `sys_id` (a consumer merges by it) and read the cursor's stored value:
///   `display_value: true` sends only the display value in the API user's time zone, which cannot
///   serve as a cursor.
/// * The outputs must keep every run: a path with `{run_id}`, or publish mode `directories`.
public struct IncrementalConfiguration: Sendable, Hashable {
    /// The default cursor field.
    public static let defaultCursor = "sys_updated_on"
    /// The allowed `lag_seconds` (up to a week).
    public static let lagRange = 0...604_800

    /// The field whose stored value orders the changes (`glide_date_time`).
    public var cursor: String
    /// Seconds before the run's start left for the next run (clock skew, slow commits).
    public var lagSeconds: Int
    /// Whether deletions (from `sys_audit_delete`) become records of the outputs.
    public var deletes: Bool
    /// The first run's lower bound, `YYYY-MM-DD HH:MM:SS` UTC (inclusive); `nil` for the whole table.
    public var start: String?

    /// Creates settings with the file format's defaults.
    public init(
        cursor: String = IncrementalConfiguration.defaultCursor, lagSeconds: Int = 0, deletes: Bool = false,
        start: String? = nil
    ) {
        self.cursor = cursor
        self.lagSeconds = lagSeconds
        self.deletes = deletes
        self.start = start
    }
}

/// `mode:` of a table.
public enum TableMode: String, Sendable, Hashable, CaseIterable, Decodable {
    /// Every run reads everything the filter matches (the default).
    case full
    /// Runs read what changed since the last committed run (``IncrementalConfiguration``).
    case incremental
}
