import Foundation
import NowData

/// Fetches the first rows of one table exactly as `nowetl run` would extract and transform them, but
/// keeps them in memory and writes no file — the engine of `nowetl preview`.
///
/// It builds the same ``TablePipeline`` as a run — the instance's pages, the decoder, the transformer,
/// the reject stage — with a ``MemorySink`` that holds the rows asked for as its only sink. The plan
/// is ``TablePlanner``'s, with one partition (the whole sys_id key space) so the rows come in sys_id
/// order, and pages no larger than the rows asked for; pages stream straight into the sink (no
/// journal) and extraction stops after the page that completes the rows. Records that will not
/// convert follow the table's reject policy as in a run: `fail` fails the preview, `skip` and
/// `dead_letter` leave them out (no dead-letter file is written, and `max` does not apply).
public struct TablePreview: Sendable {
    /// The first rows of a table.
    public struct Result: Sendable {
        /// The columns, as the pipeline's plan names them.
        public var schema: RowSchema
        /// At most the rows asked for, in sys_id order.
        public var rows: [[ColumnValue?]]
        /// Records left out because they would not convert (`reject: skip` or `dead_letter`).
        public var rejects: Int
    }

    /// The pipeline (source settings).
    public let configuration: PipelineConfiguration
    private let decoder: any PageDecoding
    private let coreServiceProvider: (any NowCoreServiceProviding)?
    private let transportEvents: (@Sendable (TransportEvent) -> Void)?

    /// Creates a preview over the source of `configuration`.
    ///
    /// - Parameters:
    ///   - decoder: the page decoder (Foundation's by default).
    ///   - coreServiceProvider: the HTTP stack, `nil` for libcurl (NowData's default).
    ///   - transportEvents: receives NowData's retries and slow requests (for the log).
    public init(
        configuration: PipelineConfiguration, decoder: any PageDecoding = FastPageDecoder(),
        coreServiceProvider: (any NowCoreServiceProviding)? = nil,
        transportEvents: (@Sendable (TransportEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.decoder = decoder
        self.coreServiceProvider = coreServiceProvider
        self.transportEvents = transportEvents
    }

    /// The first `limit` rows of `table` (fewer when the table has fewer).
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`).
    public func rows(of table: TableConfiguration, limit: Int) async throws -> Result {
        let engine = TableRunner(
            configuration: configuration, decoder: decoder, coreServiceProvider: coreServiceProvider,
            maximumConcurrency: 1)
        do {
            return try await rows(of: table, limit: max(1, limit), engine: engine)
        } catch {
            // A 401 or 403 names who asked and what is needed, as run's do.
            throw engine.explaining(error)
        }
    }

    private func rows(of table: TableConfiguration, limit: Int, engine: TableRunner) async throws -> Result {
        let transportEvents = self.transportEvents
        var export = try await TableExport(
            table, outputs: [], engine: engine,
            connection: TableExport.Connection(table.table, engine: engine) { event in
                if case .transport(_, let event) = event { transportEvents?(event) }
            })
        export.plan.partitions = SysIDRange.partitions(1)
        export.plan.pageSize = min(export.plan.pageSize, limit)
        let rows = MemorySink(rowLimit: limit)
        let pipeline = export.pipeline(.preview(rows))
        try await rows.open(
            schema: export.plan.schema, context: SinkContext(table: table.table, runID: "preview", runStarted: Date()))
        try await pipeline.stream(isFull: { rows.isFull })
        return Result(schema: export.plan.schema, rows: rows.rows.map(\.values), rejects: pipeline.rejects.rejected)
    }
}
