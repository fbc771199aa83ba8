import NowData

/// A walk of every record a table's filter matches now — without an incremental run's window — for
/// what database outputs need to converge (``DatabaseLoad``'s prune and backfill): the sys_ids, and
/// the values of columns added to a copy. One range in sys_id order (keyset pages), through the
/// run's page source, decoder and request limiter; only the requested fields are read (`sys_id` alone
/// for a prune). A record the scan cannot transform is still in the source: its sys_id is handed on
/// as kept, and its row is not backfilled.
struct SourceScan {
    /// What one output needs from the scan: every page brings the sys_ids (a prune's key set), and these
    /// schema columns beside them, by name (a backfill; none for a prune alone).
    struct Request: Sendable, Hashable {
        /// The schema columns to fill.
        var columns: [String]
    }

    /// A sink that may ask for a scan once open (``DatabaseSink``).
    protocol Consumer: RecordSink {
        /// What the open sink needs from a scan, `nil` for nothing.
        var scanRequest: SourceScan.Request? { get async }
        /// Takes one page of the scan, rows of `schema` (sys_id first).
        func scanned(_ batch: RowBatch, schema: RowSchema) async throws
        /// Takes the sys_ids of records the run (or the scan) rejected: they are still in the source.
        func keep(rejected sysIDs: [String]) async throws
    }

    /// The scan's plan: `plan`'s table and unwindowed filter, the column named `sys_id` and `columns`.
    let plan: TablePlan

    /// The scan of `plan`'s table for `requests` (merged), `nil` when `plan` has no `sys_id` column.
    init?(of plan: TablePlan, for requests: [Request]) {
        guard let sysID = plan.columns.first(where: { $0.schema.name == "sys_id" }) else { return nil }
        let wanted = Set(requests.flatMap(\.columns))
        var scan = plan
        scan.filter = plan.unwindowedFilter ?? plan.filter
        scan.unwindowedFilter = nil
        scan.incremental = nil
        scan.capturesDeletes = false
        scan.unloadColumns = []
        scan.columns = [sysID] + plan.columns.filter { wanted.contains($0.schema.name) && $0.schema.name != "sys_id" }
        scan.partitions = [SysIDRange()]
        if wanted.isEmpty {
            scan.readConfiguration = FieldReadConfiguration(
                includeFields: ["sys_id"], options: plan.readConfiguration.options)
        }
        self.plan = scan
    }

    /// Walks the scan into `consumers`, through `step`'s source, decoder and limiter.
    ///
    /// - Returns: the HTTP requests it took.
    /// - Throws: ``NowETLError`` naming the table, `CancellationError`, a consumer's error.
    func run(with step: PageStep, into consumers: [any Consumer]) async throws -> Int {
        let source = CountingPageSource(source: step.source)
        let pipeline = TablePipeline(
            plan: plan, source: source, decoder: step.decoder,
            rejects: RejectCollector(table: plan.table, policy: RejectPolicy(mode: .skip)), limiter: step.limiter,
            sinks: [])
        let schema = plan.schema
        try await pipeline.stream(
            isFull: { false },
            deliver: { page in
                let rejected = page.rejections.map(\.sysID)
                for consumer in consumers {
                    if !page.batch.isEmpty { try await consumer.scanned(page.batch, schema: schema) }
                    if !rejected.isEmpty { try await consumer.keep(rejected: rejected) }
                }
            })
        return source.requests.load(ordering: .relaxed)
    }
}
