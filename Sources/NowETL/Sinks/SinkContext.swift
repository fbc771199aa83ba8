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

    /// Creates a context.
    public init(table: String, runID: String, runStarted: Date) {
        self.table = table
        self.runID = runID
        self.runStarted = runStarted
    }

    /// `runStarted` as whole seconds since the epoch.
    var runStartedSeconds: Int { Int(runStarted.timeIntervalSince1970.rounded(.down)) }
}
