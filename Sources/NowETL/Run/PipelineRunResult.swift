import Foundation

/// What a run did: every selected table's outcome, the manifest and the exit code.
public struct PipelineRunResult: Sendable, Hashable {
    /// The run's identifier.
    public var runID: String
    /// When the run started.
    public var runStarted: Date
    /// Wall time of the whole run, seconds.
    public var seconds: Double
    /// The selected tables in pipeline order.
    public var tables: [TableOutcome]
    /// The manifest's absolute path, when it was written (the run completed).
    public var manifestPath: String?
    /// A failure after the tables (the manifest could not be written), redacted.
    public var runError: String?
    /// The process exit code (``NowETLExitCode``).
    public var exitCode: Int32

    /// Creates a result.
    public init(
        runID: String, runStarted: Date, seconds: Double, tables: [TableOutcome], manifestPath: String?,
        runError: String?, exitCode: Int32
    ) {
        self.runID = runID
        self.runStarted = runStarted
        self.seconds = seconds
        self.tables = tables
        self.manifestPath = manifestPath
        self.runError = runError
        self.exitCode = exitCode
    }

    /// Every file committed, in table and output order.
    public var files: [OutputFile] { tables.flatMap { $0.summary?.files ?? [] } }
}
