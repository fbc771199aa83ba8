import Foundation
import NowData
import Synchronization

/// Exports one table at a time: plan, count, keyset extraction over sys_id partitions, transform,
/// sinks, commit — the ``TableRunning`` the run orchestration calls.
///
/// - **Plan** (``TablePlanner``): fields (configured, or discovered from `sys_dictionary`), columns,
///   partitions (`source.concurrency` consecutive sys_id ranges).
/// - **Count**: one Aggregate API request for the filter's count, for progress
///   and the ``TableSummary/countWarning``; a failed count is no failure.
/// - **Extract** (``PartitionExtractor``): every partition pages concurrently, at most one request in
///   flight each, at most ``pagesBufferedPerPartition`` pages ahead of the writer.
/// - **Write**: partition 0's pages, then partition 1's, …, so rows reach the sinks in sys_id order
///   and the files are identical whatever the concurrency.
/// - **Rejects**: a record whose value will not convert fails the table (`reject: fail`), is counted
///   and left out (`skip`), or is also written to `<output_dir>/<table>.rejects.jsonl`
///   (`dead_letter`); more than `max` rejects fails the table (exit 2).
/// - **Commit**: when the table is complete every sink prepares its files and they are committed
///   together through one commit record (``RunCommit``); any error before the record aborts them all,
///   so the previous good files stay in place.
public struct TableRunner: TableRunning {
    /// The pipeline (source settings and output directory).
    public let configuration: PipelineConfiguration
    /// Pages a partition may fetch ahead of the writer before it waits.
    public let pagesBufferedPerPartition: Int
    private let decoder: any PageDecoding
    private let coreServiceProvider: (any NowCoreServiceProviding)?

    /// Creates a runner for the tables of `configuration`.
    ///
    /// - Parameters:
    ///   - decoder: the page decoder (Foundation's by default).
    ///   - pagesBufferedPerPartition: how far a partition may run ahead of the writer, in pages.
    ///   - coreServiceProvider: the HTTP stack, `nil` for URLSession.
    public init(
        configuration: PipelineConfiguration, decoder: any PageDecoding = FoundationPageDecoder(),
        pagesBufferedPerPartition: Int = 2, coreServiceProvider: (any NowCoreServiceProviding)? = nil
    ) {
        self.configuration = configuration
        self.decoder = decoder
        self.pagesBufferedPerPartition = max(1, pagesBufferedPerPartition)
        self.coreServiceProvider = coreServiceProvider
    }

    /// Runs `table` into `outputs`; throws ``TableRunError`` (or `CancellationError`) after aborting
    /// every sink.
    public func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> TableSummary {
        let clock = ContinuousClock()
        let start = clock.now
        let retries = Atomic<Int>(0)
        let service = makeService { event in
            if case .retry = event { retries.add(1, ordering: .relaxed) }
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
        let sinks = outputs.map { $0.makeSink() }
        let deadLetters = DeadLetterFile(outputDirectory: configuration.outputDirectory, table: table.table)
        do {
            for sink in sinks { try await sink.open(schema: plan.schema, context: context) }
            try await extract(plan, service: service, table: table, summary: &summary, progress: progress) { page in
                for rejection in page.rejections {
                    if table.reject.mode == .deadLetter { try deadLetters.append(rejection) }
                }
                if !page.batch.isEmpty {
                    for sink in sinks { try await sink.write(page.batch) }
                }
            }
            let directory = configuration.outputDirectory
            summary.files = try await RunCommit.commitOutputs(
                of: sinks, deadLetters: deadLetters, runID: context.runID, outputDirectory: directory
            ).compactMap(\.outputFile)
        } catch {
            for sink in sinks { await sink.abort() }
            deadLetters.abort()
            throw Self.tableError(error, table: table.table)
        }
        summary.retries = retries.load(ordering: .relaxed)
        let elapsed = clock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        progress(.finished(summary))
        return summary
    }

    // MARK: - Steps

    /// Fetches every partition concurrently and hands the pages to `write` in sys_id order.
    private func extract(
        _ plan: TablePlan, service: NowTableService, table: TableConfiguration, summary: inout TableSummary,
        progress: @escaping @Sendable (TableProgress) -> Void, write: (ExtractedPage) async throws -> Void
    ) async throws {
        let extractor = PartitionExtractor(
            service: service, plan: plan,
            transformer: RecordTransformer(columns: plan.columns, displayValue: plan.displayValue),
            decoder: decoder)
        let channels = plan.partitions.indices.map { _ in
            PageChannel<ExtractedPage>(capacity: pagesBufferedPerPartition)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, channel) in channels.enumerated() {
                group.addTask { await extractor.run(partition: index, into: channel) }
            }
            do {
                for channel in channels {
                    while let page = try await channel.receive() {
                        summary.pages += 1
                        summary.requests += page.attempts
                        try applyRejectPolicy(page.rejections, table: table, summary: &summary, page: page)
                        try await write(page)
                        summary.rows += page.batch.count
                        progress(
                            .page(
                                table: table.table, rows: page.batch.count, totalRows: summary.rows,
                                pages: summary.pages))
                    }
                }
            } catch {
                for channel in channels { channel.close() }
                group.cancelAll()
                throw error
            }
        }
    }

    private func applyRejectPolicy(
        _ rejections: [Rejection], table: TableConfiguration, summary: inout TableSummary, page: ExtractedPage
    ) throws(TableRunError) {
        guard let first = rejections.first else { return }
        switch table.reject.mode {
        case .fail:
            throw TableRunError(
                table: table.table, kind: .other,
                "\(first) (reject: fail; use reject: { mode: skip } or dead_letter to leave such records out)",
                partition: page.partition, page: page.index)
        case .skip, .deadLetter:
            summary.rejects += rejections.count
            if let maximum = table.reject.maximum, summary.rejects > maximum {
                throw TableRunError(
                    table: table.table, kind: .rejectsOverThreshold,
                    "more than \(maximum) records rejected (reject max); the last: \(rejections.last!)",
                    partition: page.partition, page: page.index)
            }
        }
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
        let service = NowServiceConfiguration(
            instanceURL: source.instance, authentication: source.auth.authentication,
            requestTimeout: source.timeoutSeconds, allowsInsecureHTTP: source.allowInsecureHTTP,
            maximumConnectionsPerHost: source.concurrency + 1, eventHandler: events)
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
