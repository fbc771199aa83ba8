import Foundation
import NowData

/// One table's export as one value: page source → page decoder → record transformer → reject
/// collector → sink set. `nowetl run`, `nowetl preview` (a ``MemorySink`` with a row limit) and the
/// tests (a scripted ``PageSource``) build this value and differ only in the stages they put in.
///
/// Two ways to drive it:
/// * ``extract(into:concurrency:alreadyRows:progress:)`` then ``join(from:context:deletions:)`` — a run: every sys_id range is
///   fetched concurrently into its spill part (journaled, resumable), then the parts are replayed into
///   the sinks in sys_id order, so the outputs are the same bytes whatever the concurrency.
/// * ``stream(isFull:deliver:)`` — a preview: one range, pages straight into the sinks, stopping as soon as
///   they are full.
///
/// Not `Sendable`: the sinks are owned by the task that drives the pipeline.
struct TablePipeline {
    /// The fetch stages (``PageStep``): plan, page source, decoder, transformer, reject collector,
    /// request limiter and the page size shared by the partition tasks.
    var step: PageStep
    /// The outputs.
    var sinks: [any RecordSink]
    /// Where dead letters go (`reject: dead_letter`), written in sys_id order with the rows.
    var deadLetters: DeadLetterFile?

    /// What to fetch: table, filter, columns, partitions, page size.
    var plan: TablePlan {
        get { step.plan }
        set { step.plan = newValue }
    }
    /// What happens to rejected records.
    var rejects: RejectCollector { step.rejects }

    /// Assembles a pipeline; the transformer follows from the plan.
    init(
        plan: TablePlan, source: any PageSource, decoder: any PageDecoding = FastPageDecoder(),
        rejects: RejectCollector, limiter: RequestLimiter, sinks: [any RecordSink]
    ) {
        self.step = PageStep(
            plan: plan, source: source, decoder: decoder,
            transformer: RecordTransformer(
                columns: plan.columns, unloadColumns: plan.unloadColumns, displayValue: plan.displayValue,
                refusesNUL: plan.refusesNUL),
            rejects: rejects, limiter: limiter, sizes: AdaptivePageSize(maximum: plan.pageSize))
        self.sinks = sinks
    }

    // MARK: - Run

    /// Fetches every unfinished part of `journal` into its spill.
    func extract(
        into journal: TableJournal, concurrency: Int, alreadyRows: Int,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> ExtractionCounters {
        try await extraction(into: journal, concurrency: concurrency, progress: progress).run(alreadyRows: alreadyRows)
    }

    /// The extraction ``extract(into:concurrency:alreadyRows:progress:)`` runs, as a value another task
    /// can run.
    func extraction(
        into journal: TableJournal, concurrency: Int, progress: @escaping @Sendable (TableProgress) -> Void
    ) -> SpilledExtraction {
        SpilledExtraction(step: step, journal: journal, concurrency: concurrency, progress: progress)
    }

    /// Replays the spills of `journal` in sys_id order into every sink (and the dead-letter file),
    /// then the deletion records, then prepares the sinks; returns what each prepared, how many
    /// deletion records were written and how many journaled rows a newer form replaced. On error the sinks are left for the caller to abort.
    ///
    /// A deletion record (`deletes: true`) has only the sys_id column and ``TablePlan/deletedAtColumn``
    /// filled. A record delivered as a row in this run is not also delivered as deleted: the row was
    /// read after the deletion (every row is read after the signpost that bounds the deletions), so
    /// the record exists again.
    func join(from journal: TableJournal, context: SinkContext, deletions: [DeletionCapture.Deletion] = [])
        async throws -> Joined
    {
        try await join(
            spills: journal.spills, context: context,
            deletions: deletions)
    }

    /// As ``join(from:context:deletions:)``, from spill parts given as paths and journaled lengths, in
    /// sys_id order — the merge of a sharded run joins the parts of every shard's journal this way.
    ///
    /// A resumed incremental run that caught up joins its resumed window's spills (the first
    /// `oldSpills`) before the catch-up's, and each record once: a row the catch-up read again (it
    /// changed since) is delivered in its newer form only. The resumed rows were read before the run's
    /// deletions were, so they outweigh only the deletions up to the resumed window's signpost
    /// (`oldSignpost`, seconds since 1970); a record deleted after its row was read is delivered as
    /// deleted, and its row is left out (each record once in a run's outputs).
    func join(
        spills: [(path: String, length: Int)], context: SinkContext, deletions: [DeletionCapture.Deletion] = [],
        oldSpills: Int = 0, oldSignpost: Int? = nil
    ) async throws -> Joined {
        for sink in sinks { try await sink.open(schema: plan.schema, context: context) }
        let consumers = sinks.compactMap { $0 as? any SourceScan.Consumer }
        var pending = Set(deletions.map(\.sysID))
        let deletedAt = Dictionary(deletions.map { ($0.sysID, $0.deletedAt) }, uniquingKeysWith: max)
        let sysIDColumn = deletions.isEmpty ? nil : plan.sysIDColumn
        var superseded: Set<String> = []
        var replaced = 0
        if oldSpills > 0, oldSpills < spills.count, let column = plan.sysIDColumn {
            for spill in spills[oldSpills...] {
                try await SpillReader(path: spill.path).forEachPage(length: spill.length, schema: plan.schema) { page in
                    for row in 0..<page.batch.count {
                        if case .string(let sysID)? = page.batch[row, column] { superseded.insert(sysID) }
                    }
                }
            }
        }
        for (index, spill) in spills.enumerated() {
            let readBefore = index < oldSpills ? (oldSignpost ?? Int.min) : nil
            try await SpillReader(path: spill.path).forEachPage(
                length: spill.length, schema: plan.schema
            ) { page in
                try Task.checkCancellation()
                if let deadLetters {
                    for rejection in page.rejections { try deadLetters.append(rejection) }
                }
                if !page.rejections.isEmpty {
                    let rejected = page.rejections.map(\.sysID)
                    for consumer in consumers { try await consumer.keep(rejected: rejected) }
                }
                var page = page
                if let readBefore, let column = plan.sysIDColumn, !superseded.isEmpty || !deletedAt.isEmpty {
                    // A resumed row read again by the catch-up, or deleted after it was read: the newer
                    // form (the catch-up's row, the deletion record) is the one delivered.
                    let batch = page.batch
                    page.batch = batch.filter { row in
                        guard case .string(let sysID)? = batch[row, column] else { return true }
                        return !superseded.contains(sysID) && (deletedAt[sysID] ?? Int.min) <= readBefore
                    }
                    replaced += batch.count - page.batch.count
                }
                guard !page.batch.isEmpty else { return }
                if let column = sysIDColumn, !pending.isEmpty {
                    for row in 0..<page.batch.count {
                        guard case .string(let sysID)? = page.batch[row, column] else { continue }
                        pending.remove(sysID)
                    }
                }
                for sink in sinks { try await sink.write(page.batch) }
            }
        }
        var deleted = 0
        if let column = sysIDColumn, let deletedAt = plan.schema.index(of: TablePlan.deletedAtColumn) {
            var batch = RowBatch(schema: plan.schema, capacity: min(pending.count, 1000))
            for deletion in deletions where pending.contains(deletion.sysID) {
                let row = batch.appendRow(recordTable: plan.table)
                batch[row, column] = .string(deletion.sysID)
                batch[row, deletedAt] = .dateTime(secondsSinceEpoch: deletion.deletedAt)
                deleted += 1
                if batch.count >= 1000 {
                    for sink in sinks { try await sink.write(batch) }
                    batch.removeAll()
                }
            }
            if !batch.isEmpty {
                for sink in sinks { try await sink.write(batch) }
            }
        }
        let scanRequests = try await scan(for: consumers)
        var prepared: [PreparedOutput] = []
        for sink in sinks { prepared.append(try await sink.prepare()) }
        if let deadLetters { prepared.append(try deadLetters.prepare()) }
        CrashPoint.reached("table-prepared")
        return Joined(prepared: prepared, deleted: deleted, superseded: replaced, scanRequests: scanRequests)
    }

    /// What a join did.
    struct Joined {
        /// What each sink (and the dead-letter file) prepared.
        var prepared: [PreparedOutput]
        /// Deletion records written.
        var deleted: Int
        /// Journaled rows a newer form replaced.
        var superseded: Int
        /// HTTP requests of the ``SourceScan`` the outputs asked for (0 for none).
        var scanRequests: Int
    }

    /// Runs the ``SourceScan`` that the open `consumers` ask for (a database output's prune or backfill
    /// of an incremental table), once for all of them; returns its requests.
    private func scan(for consumers: [any SourceScan.Consumer]) async throws -> Int {
        var requests: [SourceScan.Request] = []
        var asking: [any SourceScan.Consumer] = []
        for consumer in consumers {
            guard let request = await consumer.scanRequest else { continue }
            requests.append(request)
            asking.append(consumer)
        }
        guard !asking.isEmpty, let scan = SourceScan(of: plan, for: requests) else { return 0 }
        return try await scan.run(with: step, into: asking)
    }

    /// Throws away whatever the sinks (and the dead-letter file) hold.
    func abort() async {
        for sink in sinks { await sink.abort() }
        deadLetters?.abort()
    }

    // MARK: - Preview

    /// Streams the first range straight into the sinks — or with `deliver`, into it, rejections
    /// included — until `isFull` says so or the table ends.
    func stream(isFull: () -> Bool, deliver: ((PageStep.Page) async throws -> Void)? = nil) async throws {
        let step = self.step
        var position = PageStep.Position()
        var index = 0
        while !isFull() {
            try Task.checkCancellation()
            let fetched = try await step.fetch(range: SysIDRange(), at: position, partition: 0, page: index)
            let next =
                fetched.records.isEmpty
                ? position : try step.advanced(from: position, past: fetched.records, partition: 0, page: index)
            let page = try step.transform(fetched, upper: nil, partition: 0, page: index)
            if let deliver {
                try await deliver(page)
            } else if !page.batch.isEmpty {
                for sink in sinks { try await sink.write(page.batch) }
            }
            index += 1
            if page.records > 0 {
                position = next
                continue
            }
            // Hidden records are not the end: the same walk as a run's (without the hidden-row figure).
            let empty = try await step.afterEmptyWindow(
                fetched, position: &position, partition: 0, page: index)
            if empty.ends { return }
        }
    }
}
