import Foundation
import NowData
import Synchronization

/// The fetch side of a table's pipeline: page source → decoder → transformer → reject collector,
/// for one sys_id range at a time.
struct PageStep: Sendable {
    let plan: TablePlan
    let source: any PageSource
    let decoder: any PageDecoding
    let transformer: RecordTransformer
    let rejects: RejectCollector
    let limiter: RequestLimiter

    /// A fetched page, cut at the range's upper bound and transformed.
    struct Page {
        var batch: RowBatch
        var rejections: [Rejection]
        /// Records the instance returned (before the cut).
        var records: Int
        /// Whether the range is exhausted after this page (an empty page, or rows at/after the bound).
        var ends: Bool
        /// The cursor to continue after.
        var cursor: SysID?
        var attempts: Int
        /// sys_ids of the first and last record, when the page was full (for work stealing).
        var fullPageSpan: (first: SysID?, last: SysID?)?
        /// Records whose invalid UTF-8 was replaced by U+FFFD (`invalid_utf8: replace`).
        var repaired = 0

        /// Neither rows nor rejections: nothing to spill or journal.
        var isEmpty: Bool { batch.isEmpty && rejections.isEmpty }
    }

    /// A fetched page's records, and where the page held invalid UTF-8 (`nil` for a valid page).
    struct Decoded {
        var records: [Record]
        var invalidUTF8: InvalidUTF8Scan?
    }

    /// Fetches the page of `range` after `cursor`, through the instance's request limiter.
    func fetch(range: SysIDRange, after cursor: SysID?, partition: Int, page index: Int) async throws
        -> (SourcePage, Decoded)
    {
        try await limiter.acquire()
        let fetched: SourcePage
        do {
            fetched = try await source.page(of: plan, range: range, after: cursor)
        } catch {
            limiter.release((error as? TableRunError)?.limiterOutcome ?? .failed)
            if Task.isCancelled { throw CancellationError() }
            if var error = error as? TableRunError {
                error.partition = partition
                error.page = index
                throw error
            }
            throw error
        }
        limiter.release(.healthy)
        do {
            return (fetched, Decoded(records: try decoder.records(in: fetched.body)))
        } catch {
            // Only a page that failed is scanned: a valid page costs nothing extra.
            if let scan = InvalidUTF8Scan(fetched.body), let records = try? decoder.records(in: scan.repaired) {
                return (fetched, Decoded(records: records, invalidUTF8: scan))
            }
            throw TableRunError(
                table: plan.table, kind: .other, "cannot decode the page: \(error)", partition: partition,
                page: index)
        }
    }

    /// The part of `records` before `upper`, transformed; the reject policy applied.
    ///
    /// A record that held invalid UTF-8 is rejected (naming its first damaged field) unless the policy
    /// says `invalid_utf8: replace`; then it is transformed as repaired and counted in
    /// ``Page/repaired``.
    func transform(
        _ fetched: SourcePage, _ decoded: Decoded, upper: SysID?, partition: Int, page index: Int
    ) throws(TableRunError) -> Page {
        let records = decoded.records
        var kept = records[...]
        if let upper, let cut = records.firstIndex(where: { ($0.sysID ?? "") >= upper }) {
            kept = records[..<cut]
        }
        let crossed = kept.count < records.count
        var batch = RowBatch(schema: transformer.schema, capacity: kept.count)
        var rejections: [Rejection]
        var repaired = 0
        if let scan = decoded.invalidUTF8 {
            let damaged = Set(scan.sites.map(\.record).filter { $0 < kept.count })
            if rejects.policy.invalidUTF8 == .replace {
                repaired = damaged.count
                rejections = transformer.transform(Array(kept), into: &batch)
            } else {
                var clean: [Record] = []
                var invalid: [Rejection] = []
                for (position, record) in kept.enumerated() {
                    guard damaged.contains(position), let field = scan.fields(ofRecord: position).first else {
                        clean.append(record)
                        continue
                    }
                    invalid.append(
                        Rejection(
                            sysID: record.sysID ?? "", column: field, type: .string,
                            value: record.text(at: RecordPath(field), plainForm: transformer.plainForm) ?? "",
                            record: record.jsonLine(), problem: .invalidUTF8))
                }
                // Records come in sys_id order; so do their dead letters.
                rejections = (transformer.transform(clean, into: &batch) + invalid).sorted { $0.sysID < $1.sysID }
            }
        } else {
            rejections = transformer.transform(Array(kept), into: &batch)
        }
        try rejects.collect(rejections, partition: partition, page: index)
        let full = records.count >= plan.pageSize && !crossed
        return Page(
            batch: batch, rejections: rejections, records: records.count, ends: records.isEmpty || crossed,
            cursor: crossed ? kept.last?.sysID : fetched.lastSysID, attempts: fetched.attempts,
            fullPageSpan: full ? (records.first?.sysID, records.last?.sysID) : nil, repaired: repaired)
    }
}

/// Counters of one table's extraction, shared by its partition tasks.
final class ExtractionCounters: Sendable {
    let pages = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let rows = Atomic<Int>(0)
    let splits = Atomic<Int>(0)
    /// Records exported with invalid UTF-8 replaced (pages fetched by this run).
    let utf8Repaired = Atomic<Int>(0)
}

/// Fetches every unfinished part of a table's journal into its spill, `concurrency` parts at a time,
/// with work stealing (``PartitionScheduler``) — the extraction of `nowetl run`.
///
/// Each task owns one part at a time: fetch a page (through the shared ``RequestLimiter``), cut it at
/// the part's current upper bound, transform it, append it to the part's spill and journal it
/// (``TableJournal/appendPage(_:frame:to:expectedUpper:cursor:rows:rejects:requests:)``). So at most
/// `concurrency` requests are in flight, memory holds at most one page per task, and everything
/// journaled survives a crash. The first error cancels the other tasks; what they journaled stays.
struct SpilledExtraction: Sendable {
    let step: PageStep
    let journal: TableJournal
    let concurrency: Int
    let progress: @Sendable (TableProgress) -> Void

    /// Runs until every part is done; returns the counters of this run (resumed pages not included).
    func run(alreadyRows: Int) async throws -> ExtractionCounters {
        let counters = ExtractionCounters()
        counters.rows.store(alreadyRows, ordering: .relaxed)
        let scheduler = PartitionScheduler(journal: journal)
        let tasks = max(1, concurrency)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    while true {
                        switch try scheduler.claim() {
                        case .part(let id):
                            try await fetch(part: id, scheduler: scheduler, counters: counters)
                            scheduler.finished(id)
                        case .wait(let generation):
                            try Task.checkCancellation()
                            await scheduler.waitForChange(after: generation)
                        case .done:
                            return
                        }
                    }
                }
            }
            // next() rethrows a task's error at once (waitForAll would wait for every task first, and a
            // task waiting for a range to split would wait forever); leaving the group cancels the rest.
            while try await group.next() != nil {}
        }
        counters.splits.store(scheduler.steals, ordering: .relaxed)
        return counters
    }

    private func fetch(part id: Int, scheduler: PartitionScheduler, counters: ExtractionCounters) async throws {
        guard let start = journal.part(id), !start.done else { return }
        let spill = try journal.spillWriter(for: id)
        defer { spill.close() }
        var cursor = start.cursor
        var index = start.pages
        while true {
            try Task.checkCancellation()
            let range = SysIDRange(lowerBound: start.range.lowerBound, upperBound: scheduler.upperBound(of: id))
            let (fetched, records) = try await step.fetch(range: range, after: cursor, partition: id, page: index)
            counters.pages.add(1, ordering: .relaxed)
            counters.requests.add(fetched.attempts, ordering: .relaxed)
            var page: PageStep.Page
            while true {
                // A split may move the upper bound while the page is on its way: cut again and retry.
                let upper = scheduler.upperBound(of: id)
                page = try step.transform(fetched, records, upper: upper, partition: id, page: index)
                if page.isEmpty { break }
                let frame = SpillFrame.encode(page.batch, rejections: page.rejections)
                if try journal.appendPage(
                    id, frame: frame, to: spill, expectedUpper: upper, cursor: page.cursor, rows: page.batch.count,
                    rejects: page.rejections.count, requests: fetched.attempts)
                {
                    break
                }
            }
            if page.repaired > 0 { counters.utf8Repaired.add(page.repaired, ordering: .relaxed) }
            if !page.batch.isEmpty {
                let rows = counters.rows.add(page.batch.count, ordering: .relaxed).newValue
                progress(
                    .page(
                        table: step.plan.table, rows: page.batch.count, totalRows: rows,
                        pages: counters.pages.load(ordering: .relaxed)))
            }
            if let span = page.fullPageSpan { scheduler.observeFullPage(id, first: span.first, last: span.last) }
            if page.ends {
                // A journaled page carried its requests; an empty one's are counted here.
                try journal.recordDone(id, requests: page.isEmpty ? fetched.attempts : 0)
                return
            }
            cursor = page.cursor
            index += 1
        }
    }
}
