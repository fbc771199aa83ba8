import Foundation
import NowData

/// Reconciles a pipeline's tables between its source and a target instance — the engine of
/// `nowetl reconcile`: per table, the fields from the source's dictionary (``TableReconciliation/comparedFields(of:)``),
/// the table's filter, then ``TableReconciliation`` over both instances. The first failure stops it
/// (the report names it and the tables not reached), as a run stops without `--keep-going`.
///
/// Both sides read with the source's page size, one request at a time each.
public struct PipelineReconciliation: Sendable {
    /// The pipeline (source settings, tables).
    public let configuration: PipelineConfiguration
    /// The tables to reconcile, in pipeline order.
    public var tables: [TableConfiguration]
    /// How much each table's result lists.
    public var limits = TableReconciliation.Limits()
    /// The sys_id maps of the last committed migration (``ReconcileMaps``), when the pipeline's
    /// output coalesces tables: coalesced tables are compared through them, references in every table
    /// in their mapped form. `nil`: records match by sys_id only.
    public var maps: ReconcileMaps?
    private let sourceService: NowTableService
    private let targetService: NowTableService
    private let secrets: [String]
    private let decoder: any PageDecoding

    /// A reconciliation of `tables` between the source of `configuration` and `target`.
    ///
    /// - Parameters:
    ///   - secrets: values never shown in the report besides the pipeline's own credentials (the
    ///     target's password).
    ///   - coreServiceProvider: the source's HTTP stack, `nil` for libcurl (NowData's default).
    ///   - transportEvents: receives the source's retries and slow requests (for the log).
    public init(
        configuration: PipelineConfiguration, target: NowTableService, tables: [TableConfiguration],
        secrets: [String] = [], decoder: any PageDecoding = FastPageDecoder(),
        coreServiceProvider: (any NowCoreServiceProviding)? = nil,
        transportEvents: (@Sendable (TransportEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.tables = tables
        targetService = target
        sourceService = NowTableService(
            configuration: configuration.source.serviceConfiguration(
                maximumConnectionsPerHost: 2, eventHandler: transportEvents),
            coreServiceProvider: coreServiceProvider)
        self.secrets = configuration.secretValues + secrets
        self.decoder = decoder
    }

    /// Reconciles every table; `finished` hears of each table's result as it comes.
    public func run(finished: @Sendable (TableReconciliationResult) -> Void = { _ in }) async
        -> ReconciliationReport
    {
        let started = Date()
        let clock = ContinuousClock.now
        let pageSize = configuration.source.pageSize
        let source = TableReconciliation.Side(role: "source", service: sourceService, pageSize: pageSize)
        let target = TableReconciliation.Side(role: "target", service: targetService, pageSize: pageSize)
        let discovery = FieldDiscovery(service: sourceService, decoder: decoder)
        var results: [TableReconciliationResult] = []
        var failure: ReconciliationReport.Failure?
        for (index, table) in tables.enumerated() {
            do {
                let dictionary: [DictionaryField]
                do {
                    dictionary = try await discovery.fields(of: table.table)
                } catch {
                    throw error.labelled("source")
                }
                if dictionary.isEmpty {
                    throw NowETLError(
                        .failed, table: table.table, "source: sys_dictionary lists no fields for the table")
                }
                let reconciliation = TableReconciliation(
                    table: table.table, dictionary: dictionary, filter: table.query, secrets: secrets, limits: limits,
                    maps: maps)
                var result = try await reconciliation.run(source: source, target: target, decoder: decoder)
                if !table.wholeRecord.isEmpty,
                    table.wholeRecord.attachments != nil || !table.wholeRecord.journal.isEmpty
                {
                    result.wholeRecord = try await WholeRecordReconciliation(
                        table: table.table, filter: table.query, selection: table.wholeRecord, maps: maps,
                        limits: limits
                    ).run(source: sourceService, target: targetService, pageSize: pageSize)
                }
                results.append(result)
                finished(result)
            } catch {
                // A 401 or 403 names who asked and what is needed, as run's do.
                let error = NowETLError.refusal(in: error, accounts: configuration.accounts) ?? error
                // The failure names the table: a table error's detail says the rest (the side, the step, the cause).
                let message = (error as? NowETLError)?.detail ?? NowETLError.text(of: error)
                failure = ReconciliationReport.Failure(
                    table: table.table, message: redact(message),
                    exitCode: NowETLExitCode.code(for: error))
                let notRun = tables[(index + 1)...].map(\.table)
                return report(started, clock, results, failure: failure, notRun: notRun)
            }
        }
        return report(started, clock, results, failure: nil, notRun: [])
    }

    private func report(
        _ started: Date, _ clock: ContinuousClock.Instant, _ results: [TableReconciliationResult],
        failure: ReconciliationReport.Failure?, notRun: [String]
    ) -> ReconciliationReport {
        ReconciliationReport(
            source: configuration.source.instance.absoluteString,
            target: targetService.configuration.instanceURL.absoluteString, started: started,
            seconds: TableReconciliation.seconds(ContinuousClock.now - clock), tables: results, failure: failure,
            notRun: notRun, maps: maps?.used)
    }

    private func redact(_ text: String) -> String {
        secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}
