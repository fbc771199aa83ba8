import Foundation
import NowData
import Synchronization

/// Extracts one table at a time and prepares its outputs — the ``TableRunning`` the run calls.
///
/// - **Plan** (``TablePlanner``): fields (configured, or discovered from `sys_dictionary`), columns,
///   partitions (`source.concurrency` consecutive sys_id ranges).
/// - **Count**: one Aggregate API request for the filter's count, for progress and the
///   ``TableSummary/countWarning``; a failed count is no failure.
/// - **Journal** (``TableJournal``): a table whose previous run was interrupted continues from what
///   that run fetched, if the plan is the same; `restart` (`--restart`) discards it.
/// - **Extract** (``TablePipeline/extract(into:concurrency:alreadyRows:progress:)``): `concurrency`
///   partition tasks, each fetching one sys_id range at a time into its spill part, sharing one
///   ``RequestLimiter`` for the instance (lowered on 429, raised again when answers are healthy);
///   a task that runs out of ranges splits the busiest one.
/// - **Join and prepare**: the spills, in sys_id order, into every sink — identical bytes whatever the
///   concurrency — and the sinks prepared (staged beside their targets). The run commits them.
/// - **Rejects** (``RejectCollector``): `fail` fails the table, `skip` and `dead_letter` count (and for
///   `dead_letter` write `<output_dir>/<table>.rejects.jsonl`); more than `max` fails it (exit 2).
public struct TableRunner: TableRunning {
    /// The pipeline (source settings and output directory).
    public let configuration: PipelineConfiguration
    /// The instance's request limiter, shared by every table this runner exports.
    let limiter: RequestLimiter
    private let decoder: any PageDecoding
    private let coreServiceProvider: (any NowCoreServiceProviding)?

    /// Creates a runner for the tables of `configuration`.
    ///
    /// - Parameters:
    ///   - decoder: the page decoder (Foundation's by default).
    ///   - coreServiceProvider: the HTTP stack, `nil` for libcurl (NowData's default).
    public init(
        configuration: PipelineConfiguration, decoder: any PageDecoding = FoundationPageDecoder(),
        coreServiceProvider: (any NowCoreServiceProviding)? = nil
    ) {
        self.configuration = configuration
        self.decoder = decoder
        self.coreServiceProvider = coreServiceProvider
        self.limiter = RequestLimiter(maximum: configuration.source.concurrency)
    }

    /// Extracts `table` and prepares `outputs`; throws ``TableRunError`` (or `CancellationError`) after
    /// aborting every output. The journal keeps what was fetched.
    public func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        let clock = ContinuousClock()
        let start = clock.now
        let retries = Atomic<Int>(0)
        let limiter = self.limiter
        let service = makeService { event in
            if case .retry = event { retries.add(1, ordering: .relaxed) }
            limiter.observe(event)
        }
        let plan = try await TablePlanner(
            discovery: FieldDiscovery(service: service, decoder: decoder), source: configuration.source
        ).plan(table)
        var summary = TableSummary(table: table.table)
        if let (count, attempts) = await count(plan, service: service) {
            summary.sourceCount = count
            summary.requests += attempts
            progress(.counted(table: table.table, count: count))
        }
        let directory = TableJournal.directory(outputDirectory: configuration.outputDirectory, table: table.table)
        let journal: TableJournal
        let opening: ResumeState
        do {
            (journal, opening) = try TableJournal.open(
                directory: directory, fingerprint: fingerprint(of: plan), partitions: plan.partitions,
                restart: restart)
        } catch {
            throw Self.tableError(error, table: table.table)
        }
        defer { journal.close() }
        let resumed = journal.allParts
        summary.resumedPages = resumed.reduce(0) { $0 + $1.pages }
        summary.resumedRows = resumed.reduce(0) { $0 + $1.rows }
        progress(.journal(table: table.table, opening))
        var pipeline = TablePipeline(
            plan: plan, source: InstancePageSource(service: service), decoder: decoder,
            rejects: RejectCollector(
                table: table.table, policy: table.reject, alreadyRejected: resumed.reduce(0) { $0 + $1.rejects }),
            limiter: limiter, sinks: outputs.map { $0.makeSink() })
        if table.reject.mode == .deadLetter {
            // Beside the outputs: output_dir, or the run's own directory in publish mode.
            let directory = outputs.first?.options.outputDirectory ?? configuration.outputDirectory
            pipeline.deadLetters = DeadLetterFile(outputDirectory: directory, table: table.table)
        }
        let prepared: [PreparedOutput]
        do {
            let counters = try await pipeline.extract(
                into: journal, concurrency: configuration.source.concurrency, alreadyRows: summary.resumedRows,
                progress: progress)
            summary.pages = counters.pages.load(ordering: .relaxed)
            summary.requests += counters.requests.load(ordering: .relaxed)
            summary.rangeSplits = counters.splits.load(ordering: .relaxed)
            prepared = try await pipeline.join(from: journal, context: context)
        } catch {
            await pipeline.abort()
            throw Self.tableError(error, table: table.table)
        }
        let parts = journal.allParts
        summary.rows = parts.reduce(0) { $0 + $1.rows }
        summary.rejects = parts.reduce(0) { $0 + $1.rejects }
        summary.retries = retries.load(ordering: .relaxed)
        summary.concurrency = configuration.source.concurrency
        summary.lowestConcurrency = limiter.lowestLimit
        let elapsed = clock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let table = PreparedTable(
            summary: summary, outputs: prepared, sinks: pipeline.sinks, deadLetters: pipeline.deadLetters,
            journalDirectory: directory)
        table.summary.files = table.files
        progress(.finished(table.summary))
        return table
    }

    /// What makes two runs' rows the same: instance, table, filter, page size, display values, columns.
    /// A journal written under another fingerprint is not resumed.
    func fingerprint(of plan: TablePlan) -> String {
        var text = "v1\n\(configuration.source.instance.absoluteString)\n\(plan.table)\n\(plan.filter)\n"
        text += "\(plan.pageSize)\n\(plan.displayValue)\n\(plan.readConfiguration.queryItems)\n"
        for column in plan.columns {
            text += "\(column.path.text)\t\(column.schema.name)\t\(column.schema.type.rawValue)"
            text += "\t\(column.schema.isReference)\n"
        }
        return SHA256.hash(Array(text.utf8)).hexString
    }

    /// The instance's count for the filter (Aggregate API) and the attempts it took, or `nil` when it
    /// could not be read.
    private func count(_ plan: TablePlan, service: NowTableService) async -> (Int, Int)? {
        guard
            let counted = try? await service.count(
                from: plan.table, filter: plan.filter == EncodedQuery() ? nil : Filter(encodedQuery: plan.filter))
        else { return nil }
        return (counted.count, counted.attempts)
    }

    private func makeService(events: @escaping @Sendable (TransportEvent) -> Void) -> NowTableService {
        let source = configuration.source
        var service = NowServiceConfiguration(
            instanceURL: source.instance, authentication: source.auth.authentication,
            requestTimeout: source.timeoutSeconds, allowsInsecureHTTP: source.allowInsecureHTTP,
            maximumConnectionsPerHost: source.concurrency + 1, eventHandler: events)
        service.applyTransportSettings(of: source)
        return NowTableService(configuration: service, coreServiceProvider: coreServiceProvider)
    }

    private static func tableError(_ error: any Error, table: String) -> any Error {
        switch error {
        case let error as TableRunError: return error
        case is CancellationError: return error
        case let error as SinkError: return TableRunError(table: table, kind: .other, "output: \(error)")
        default: return TableRunError(table: table, kind: .other, "\(error)")
        }
    }
}
