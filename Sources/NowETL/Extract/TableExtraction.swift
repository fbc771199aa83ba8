import Foundation
import NowData
import Synchronization

/// The fetch side of a table's pipeline: page source → decoder → transformer → reject collector,
/// for one sys_id range at a time.
///
/// It also decides how a range is walked, so the run and the preview walk it the same way:
/// * keyset pages after the cursor; a short page is not the end by itself (ACLs shorten pages);
/// * a range ends with its last page when that page carries the instance's count of the range beyond
///   the cursor (`X-Total-Count`, counted before ACLs and whatever `sysparm_limit` and `sysparm_offset`
///   say), came back short (fewer records than the limit) and its window reached every record counted:
///   `count ≤ offset + limit`. The instance applies the limit before ACLs (ref §2.1), so such a window
///   covered the rest whether or not some of it is hidden; an instance that applied ACLs first would
///   have filled the page had any visible record been left. A full page never ends a range, even when
///   the count says it took the last record: a header that lies consistently (a proxy's constant) could
///   otherwise end every range after its first page, while without ACLs a short page is the end anyway,
///   so a lie can only cost what a lying Aggregate API count costs. The page after a full last one asks
///   for the count too and comes back empty, ending the range without an Aggregate API request. A count
///   below `offset + records returned` contradicts the page (a record inserted between the two queries,
///   a proxy's header): it ends nothing, and the walk asks for no more counts; neither does it after an
///   answer without a usable count (absent, negative, not a number, beyond ``InstanceCount/maximum``:
///   NowData drops it where it enters). Then the range ends as below;
/// * the first page's count is the range's count for the hidden-record figure only when the range
///   ended by a page's count (the counts agreed with every page up to the last) and it is not below
///   the records received; a range that ended otherwise is counted through the Aggregate API as before;
/// * the count is a second query on the instance, as costly as the records it counts (the reason for
///   `sysparm_no_count`), so a walk asks for it only where it pays (``Position/Rest``): on its first
///   keyset page, whose count of the whole range the run needs anyway for the hidden-record figure
///   (it used to be a separate Aggregate API request at the range's end), and on keyset pages while the
///   records counted but not yet received are at most ``countingPages`` pages — the count then costs
///   about what the page costs, the page before the last refreshes the estimate (records inserted
///   meanwhile) and the last one ends the range. Stepping windows never ask. A walk that does not want
///   counts (a preview, a comparison) never asks, and ends as below;
/// * an empty keyset page that did not end the range is the end only when the Aggregate API counts
///   nothing left beyond the cursor (counts are taken before ACLs; the page's own count does not start
///   a step: a header that lies large would have the step walk for ever, so where ACLs hide rows the
///   Aggregate API confirms); otherwise the records right after the cursor are hidden from
///   the reader, and windows at growing offsets from the same cursor step over them until records
///   appear, from whose last one keyset paging goes on. Consecutive windows overlap by an eighth, so
///   a hidden record deleted meanwhile cannot make them skip a visible one; they cover only hidden
///   records, so the overlap never returns a record twice. The step ends when the windows covered
///   every record counted beyond the cursor;
/// * only a sys_id that keeps to ``SysIDRule`` becomes the cursor. A record whose sys_id breaks it is
///   rejected (the reject policy decides what that means), and when such records come last in a window,
///   the next window starts past them by offset from the last usable cursor (``Position/skip``), so the
///   walk neither loops on them nor puts them into a query;
/// * every window with records must bring a sys_id beyond the greatest received so far: an instance
///   or proxy that ignores the `sys_id>` bound fails the range (``advanced(from:past:partition:page:)``)
///   instead of being asked for the same page for ever;
/// * a page the instance gave up on (a cancelled transaction, a cut body) is retried at half the
///   page size (``AdaptivePageSize``).
struct PageStep: Sendable {
    /// What to fetch; a catch-up after a resumed window fetches another window with the same stages.
    var plan: TablePlan
    let source: any PageSource
    let decoder: any PageDecoding
    let transformer: RecordTransformer
    let rejects: RejectCollector
    let limiter: RequestLimiter
    let sizes: AdaptivePageSize

    /// Where the walk of a range stands between two windows.
    struct Position: Sendable, Hashable {
        /// The cursor: the greatest usable sys_id received (``SysIDRule``).
        var after: SysID?
        /// While stepping over hidden records: the next window's offset past `after` and ``skip``
        /// (0: a keyset page).
        var offset = 0
        /// While stepping: the records the instance counted beyond `after` and ``skip`` when the step began.
        var remaining = 0
        /// While stepping: the next window's size.
        var stepLimit = 0
        /// Records right after `after` already received whose sys_id cannot be a cursor: every window
        /// starts this many records past `after`.
        var skip = 0
        /// The greatest sys_id received in the walk, usable or not: the next window's records must
        /// bring a greater one.
        var high: SysID?
        /// What the walk knows of the records the instance counts beyond it: whether the next keyset
        /// page asks for their count.
        var rest = Rest.unasked

        /// The window's `sysparm_offset` past `after`.
        var windowOffset: Int { skip.addingReportingOverflow(offset).overflow ? Int.max : skip + offset }

        /// Whether the window of `limit` records at this position asks the instance for its count: a
        /// keyset page (not a step over hidden records) while the rest is unknown or at most
        /// ``PageStep/countingPages`` such pages.
        func asksCount(limit: Int) -> Bool {
            guard offset == 0 else { return false }
            switch rest {
            case .unknown: return true
            case .atMost(let records): return records / PageStep.countingPages < max(1, limit)
            case .unasked: return false
            }
        }

        /// The records the instance counts beyond a walk's position that it has not returned yet.
        enum Rest: Sendable, Hashable {
            /// Not known: the next keyset page asks for the count (a run's first page of a range).
            case unknown
            /// At most this many: the last count past its window's offset, less the records received
            /// since (hidden records stepped over or records deleted meanwhile only make it smaller).
            case atMost(Int)
            /// Not asked for: the walk does not want counts, or the instance answered without a usable
            /// one; an empty page is checked by the Aggregate API as before.
            case unasked
        }
    }

    /// A walk asks for counts while the records left are at most this many pages.
    static let countingPages = 2

    /// A fetched window and its records.
    struct Fetched {
        var page: SourcePage
        var records: [Record]
        /// The window as finally asked (smaller than planned after a cancelled transaction).
        var window: PageWindow
        /// HTTP requests, the failed tries at larger sizes included.
        var attempts: Int
        /// Where the page held invalid UTF-8 (`nil` for a valid page); ``records`` are then decoded
        /// from the repaired body.
        var invalidUTF8: InvalidUTF8Scan?
    }

    /// A fetched page, cut at the range's upper bound and transformed.
    struct Page {
        var batch: RowBatch
        var rejections: [Rejection]
        /// Records the instance returned (before the cut).
        var records: Int
        /// Whether the page held records at or after the bound: the range is exhausted.
        var crossed: Bool
        /// The cursor to continue after.
        var cursor: SysID?
        var attempts: Int
        /// sys_ids of the first and last record, when the keyset page was full (for work stealing).
        var fullPageSpan: (first: SysID?, last: SysID?)?
        /// Records whose invalid UTF-8 was replaced by U+FFFD (`invalid_utf8: replace`).
        var repaired = 0
        /// For an incremental table: the greatest `(cursor, sys_id)` of the records kept (rows and
        /// rejections alike: the next run continues after both).
        var high: CursorMark?

        /// Neither rows nor rejections: nothing to spill or journal.
        var isEmpty: Bool { batch.isEmpty && rejections.isEmpty }
    }

    /// Fetches the window of `range` at `position` through the instance's request limiter, at half the
    /// size again and again while the instance gives up on it (down to ``AdaptivePageSize/minimum``,
    /// where it is asked up to ``floorRetries`` more times before the error stands).
    func fetch(range: SysIDRange, at position: Position, partition: Int, page index: Int) async throws -> Fetched {
        var limit = position.offset > 0 ? max(1, position.stepLimit) : sizes.current
        var failedTries = 0
        var floorRetries = 0
        while true {
            let window = PageWindow(
                range: range, after: position.after, limit: limit, offset: position.windowOffset,
                counts: position.asksCount(limit: limit))
            try await limiter.acquire()
            let fetched: SourcePage
            do {
                fetched = try await source.page(of: plan, window, decoder: decoder)
            } catch {
                limiter.release((error as? NowETLError)?.limiterOutcome ?? .failed)
                if Task.isCancelled { throw CancellationError() }
                guard var error = error as? NowETLError else { throw error }
                if error.smallerPageMayHelp {
                    // A failed try counts with every request it made (a 429 or 503 retried by the
                    // transport before the instance cancelled the transaction).
                    if let smaller = sizes.reduce(after: limit) {
                        failedTries += error.requests
                        limit = smaller
                        continue
                    }
                    // At the floor a smaller page cannot help, but a cancellation that came from the
                    // instance's load rather than the page may not come again: ask again a few times
                    // (at once, through the request limiter like any request) before giving up.
                    if floorRetries < Self.floorRetries {
                        floorRetries += 1
                        failedTries += error.requests
                        continue
                    }
                }
                error.context.partition = partition
                error.context.page = index
                throw error
            }
            limiter.release(.healthy)
            sizes.healthy()
            do {
                return Fetched(
                    page: fetched, records: try fetched.records ?? decoder.records(in: fetched.body), window: window,
                    attempts: fetched.attempts + failedTries)
            } catch {
                // Only a page that failed is scanned: a valid page costs nothing extra.
                if let scan = InvalidUTF8Scan(fetched.body), let records = try? decoder.records(in: scan.repaired) {
                    return Fetched(
                        page: fetched, records: records, window: window, attempts: fetched.attempts + failedTries,
                        invalidUTF8: scan)
                }
                throw NowETLError(
                    .failed, table: plan.table, "cannot decode the page", partition: partition, page: index,
                    cause: error)
            }
        }
    }

    /// The instance's count of `range` after `after` (before ACLs), through the request limiter; asked
    /// again up to ``countTries`` times in all when the instance gives up on it (a cancelled
    /// transaction, a cut body: the Aggregate API has a quota too).
    func count(range: SysIDRange, after: SysID?, partition: Int, page index: Int) async throws -> KeysetCount {
        var tries = 0
        var failedRequests = 0
        while true {
            tries += 1
            try await limiter.acquire()
            do {
                let counted = try await source.count(of: plan, range: range, after: after)
                limiter.release(.healthy)
                return KeysetCount(count: counted.count, attempts: counted.attempts + failedRequests)
            } catch {
                limiter.release((error as? NowETLError)?.limiterOutcome ?? .failed)
                if Task.isCancelled { throw CancellationError() }
                guard var error = error as? NowETLError else { throw error }
                if error.smallerPageMayHelp, tries < Self.countTries {
                    failedRequests += error.requests
                    continue
                }
                error.context.partition = partition
                error.context.page = index
                throw error
            }
        }
    }

    /// Tries of a count the instance gives up on.
    static let countTries = 3

    /// Retries of a page at the floor size the instance gives up on, before its error stands.
    static let floorRetries = 3

    /// What a window without records means.
    struct EmptyWindow {
        /// The range is exhausted.
        var ends: Bool
        /// The instance's count of the whole range, when it was read on the way.
        var rangeCount: Int?
        /// HTTP requests the counts took.
        var attempts = 0
    }

    /// After `fetched` came back without records: whether the range ends, or `position` moved to the
    /// next window of the step over hidden records.
    ///
    /// Only the count beyond the cursor decides that the range ends: a count of the whole range
    /// compared with the records received would end it early when received records were deleted or left
    /// the filter meanwhile. Before the range's first record that count is the whole range's
    /// (``EmptyWindow/rangeCount``, for the hidden-record figure).
    ///
    /// Windows of the step overlap by an eighth (at least one record) and grow by doubling up to the
    /// page size the keyset pages use, which the instance is known to serve whole: an instance that caps
    /// `sysparm_limit` below a larger window would make the step jump over records it never showed.
    func afterEmptyWindow(
        _ fetched: Fetched, position: inout Position, partition: Int, page index: Int
    ) async throws -> EmptyWindow {
        let window = fetched.window
        let covered = max(1, window.limit - max(1, window.limit / 8))
        if position.offset > 0 {
            let stepped = position.offset
            position.offset += covered
            position.stepLimit = min(window.limit * 2, sizes.maximum)
            return EmptyWindow(ends: stepped + covered >= position.remaining)
        }
        let counted = try await count(range: window.range, after: window.after, partition: partition, page: index)
        var outcome = EmptyWindow(ends: false, attempts: counted.attempts)
        if window.after == nil, position.skip == 0 { outcome.rangeCount = counted.count }
        // The records skipped past the cursor were counted too.
        let left = max(0, counted.count - position.skip)
        if left == 0 {
            outcome.ends = true
            return outcome
        }
        position.offset = covered
        position.remaining = left
        position.stepLimit = min(window.limit * 2, sizes.maximum)
        outcome.ends = covered >= left
        return outcome
    }

    /// Where the walk goes after a window, and whether the range ends with it.
    struct Next {
        /// Where the walk goes on (the same position, its ``Position/rest`` updated, after an empty window).
        var position: Position
        /// The window came back short and reached every record the instance counted beyond the cursor:
        /// the range ends with it, and an empty window needs no
        /// ``afterEmptyWindow(_:position:partition:page:)``.
        var ends = false
        /// The instance's count of the whole range, when the window carried it (the range's first
        /// keyset page): for the hidden-record figure.
        var rangeCount: Int?
    }

    /// Where the walk goes on after `fetched` (``advanced(from:past:partition:page:)`` when it brought
    /// records) and whether its count ends the range (the rules above).
    ///
    /// Pure, so a caller checks a window before it keeps anything of it.
    /// - Throws: as ``advanced(from:past:partition:page:)``.
    func next(after fetched: Fetched, from position: Position, partition: Int, page index: Int) throws(NowETLError)
        -> Next
    {
        let received = fetched.records.count
        var next = Next(
            position: received == 0
                ? position : try advanced(from: position, past: fetched.records, partition: partition, page: index))
        let window = fetched.window
        guard window.counts else {
            if case .atMost(let records) = position.rest { next.position.rest = .atMost(max(0, records - received)) }
            return next
        }
        // The records counted from the window's start on; the window must not have returned more.
        let (rest, overflow) = (fetched.page.totalCount ?? -1).subtractingReportingOverflow(window.offset)
        guard let total = fetched.page.totalCount, !overflow, max(0, rest) >= received else {
            next.position.rest = .unasked
            return next
        }
        next.ends = received < window.limit && rest <= window.limit
        next.position.rest = .atMost(max(0, rest - received))
        if window.after == nil, window.offset == 0 { next.rangeCount = total }
        return next
    }

    /// Where the walk goes on after a window that brought `records` (all it returned, before any cut at
    /// the range's bound): keyset after the greatest usable sys_id among them, past the records beyond
    /// it (whose sys_ids cannot be cursors); or, when none of them can be a cursor beyond `position`'s,
    /// from the same cursor past all of them.
    ///
    /// Pure, so a caller checks a window before it keeps anything of it.
    /// - Throws: ``NowETLError`` when no record of the window lies beyond the greatest sys_id the walk
    ///   received so far: the instance did not honour the cursor, and asking again would loop.
    func advanced(
        from position: Position, past records: [Record], partition: Int, page index: Int
    ) throws(NowETLError) -> Position {
        var cursor: SysID?
        var high: SysID?
        for record in records {
            guard let sysID = record.sysID else { continue }
            if high.map({ $0 < sysID }) ?? true { high = sysID }
            if SysIDRule.accepts(sysID), cursor.map({ $0 < sysID }) ?? true { cursor = sysID }
        }
        let floor = position.high ?? position.after
        guard let high, floor.map({ $0 < high }) ?? true else {
            let last = high.map { "sys_id \(SysIDRule.escaped($0))" } ?? "no sys_id"
            let before = floor.map { "sys_id \(SysIDRule.escaped($0))" } ?? "the range's start"
            throw NowETLError(
                .failed, table: plan.table,
                "the instance returned \(records.count) records up to \(last), none after \(before): it does not "
                    + "honour the keyset cursor (sys_id>…; a proxy or a broken instance?), so the range stops here "
                    + "instead of asking for the same records again", partition: partition, page: index)
        }
        if let cursor, position.after.map({ $0 < cursor }) ?? true {
            let beyond = records.count { record in record.sysID.map { cursor < $0 } ?? false }
            return Position(after: cursor, skip: beyond, high: high, rest: position.rest)
        }
        let (skip, overflow) = position.windowOffset.addingReportingOverflow(records.count)
        return Position(after: position.after, skip: overflow ? Int.max : skip, high: high, rest: position.rest)
    }

    /// The part of the records before `upper`, transformed; the reject policy applied.
    ///
    /// A record that held invalid UTF-8 is rejected (naming its first damaged field) unless the policy
    /// says `invalid_utf8: replace`; then it is transformed as repaired and counted in
    /// ``Page/repaired``.
    func transform(_ fetched: Fetched, upper: SysID?, partition: Int, page index: Int) throws(NowETLError) -> Page {
        let records = fetched.records
        var keptCount = records.count
        if let upper, let cut = records.firstIndex(where: { ($0.sysID ?? "") >= upper }) { keptCount = cut }
        let crossed = keptCount < records.count
        let scan = fetched.invalidUTF8
        let damaged = scan.map { Set($0.sites.map(\.record).filter { $0 < keptCount }) } ?? []
        let rejectsDamaged = rejects.policy.invalidUTF8 != .replace
        var clean: [Record] = []
        clean.reserveCapacity(keptCount)
        var refused: [Rejection] = []
        var repaired = 0
        var cursor: SysID?
        for position in 0..<keptCount {
            let record = records[position]
            // A record whose sys_id breaks the rule is rejected for that; nothing else of it is looked at.
            guard let sysID = record.sysID, SysIDRule.accepts(sysID) else {
                let sysID = record.sysID ?? ""
                refused.append(
                    Rejection(
                        sysID: sysID, column: "sys_id", type: .string, value: SysIDRule.escaped(sysID),
                        record: record.jsonLine(), problem: .invalidSysID))
                continue
            }
            if cursor.map({ $0 < sysID }) ?? true { cursor = sysID }
            if damaged.contains(position) {
                if !rejectsDamaged {
                    repaired += 1
                } else if let field = scan?.fields(ofRecord: position).first {
                    refused.append(
                        Rejection(
                            sysID: sysID, column: field, type: .string,
                            value: record.text(at: RecordPath(field), plainForm: transformer.plainForm) ?? "",
                            record: record.jsonLine(), problem: .invalidUTF8))
                    continue
                }
            }
            clean.append(record)
        }
        var batch = RowBatch(schema: transformer.schema, capacity: clean.count)
        // The text the records hold is at most the body they were decoded from.
        batch.reserveTextCapacity(fetched.page.body.count)
        var rejections = transformer.transform(clean, into: &batch)
        if !refused.isEmpty {
            // Records come in sys_id order; so do their dead letters.
            rejections = (rejections + refused).sorted { $0.sysID < $1.sysID }
        }
        try rejects.collect(rejections, partition: partition, page: index)
        let full = fetched.window.offset == 0 && records.count >= fetched.window.limit && !crossed
        let usable = records.lazy.compactMap(\.sysID).filter { SysIDRule.accepts($0) }
        return Page(
            batch: batch, rejections: rejections, records: records.count, crossed: crossed, cursor: cursor,
            attempts: fetched.attempts, fullPageSpan: full ? (usable.first, usable.last) : nil, repaired: repaired,
            high: plan.incremental.flatMap { Self.high(of: records[..<keptCount], field: $0.field) })
    }

    /// The greatest `(stored value of field, sys_id)` of `records`; records with an empty value (read
    /// by a first run, which takes them too) or a sys_id that breaks ``SysIDRule`` (it would go into the
    /// next run's query) do not count.
    static func high(of records: ArraySlice<Record>, field: String) -> CursorMark? {
        let path = RecordPath(field)
        var high: CursorMark?
        for record in records {
            guard let value = record.text(at: path, plainForm: .value), !value.isEmpty, let sysID = record.sysID,
                SysIDRule.accepts(sysID)
            else { continue }
            let mark = CursorMark(value: value, sysID: sysID)
            if high.map({ $0 < mark }) ?? true { high = mark }
        }
        return high
    }
}

/// Fetches every unfinished part of a table's journal into its spill, `concurrency` parts at a time,
/// with work stealing (``PartitionScheduler``) — the extraction of `nowetl run`.
///
/// Each task owns one part at a time: fetch a page (through the shared ``RequestLimiter``), cut it at
/// the part's current upper bound, transform it, append it to the part's spill and journal it
/// (``TableJournal/appendPage(_:frame:to:expectedUpper:cursor:rows:rejects:requests:high:)``). So at most
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
        counters.store(.rangeSplits, scheduler.steals)
        counters.store(.pageSizeReductions, step.sizes.reductions)
        return counters
    }

    private func fetch(part id: Int, scheduler: PartitionScheduler, counters: ExtractionCounters) async throws {
        guard let start = journal.part(id), !start.done else { return }
        let spill = try journal.spillWriter(for: id)
        defer { spill.close() }
        // The first keyset page asks for the count: it may end the range, and it is the range's count
        // that finish(…) needs when the walk starts at the range's start.
        var position = PageStep.Position(after: start.cursor, rest: .unknown)
        var index = start.pages
        // Requests of windows that journaled nothing (empty windows, counts): recorded with the done line.
        var unjournaled = 0
        // The instance's count of the range and the upper bound it was counted with, once a page told it.
        var rangeCount: (count: Int, upper: SysID?)?
        while true {
            try Task.checkCancellation()
            let range = SysIDRange(lowerBound: start.range.lowerBound, upperBound: scheduler.upperBound(of: id))
            let fetched = try await step.fetch(range: range, at: position, partition: id, page: index)
            let pages = counters.add(.pages, 1)
            counters.add(.requests, fetched.attempts)
            counters.add(.responseBytes, fetched.page.body.count)
            // Checked before anything of the window is kept: a window that does not advance is not journaled.
            let next = try step.next(after: fetched, from: position, partition: id, page: index)
            if let count = next.rangeCount { rangeCount = (count, fetched.window.range.upperBound) }
            var page: PageStep.Page
            while true {
                // A split may move the upper bound while the page is on its way: cut again and retry.
                let upper = scheduler.upperBound(of: id)
                page = try step.transform(fetched, upper: upper, partition: id, page: index)
                if page.isEmpty { break }
                let frame = SpillFrame.encode(page.batch, rejections: page.rejections)
                if try journal.appendPage(
                    id, frame: frame, to: spill, expectedUpper: upper, cursor: page.cursor, rows: page.batch.count,
                    rejects: page.rejections.count, requests: fetched.attempts, high: page.high)
                {
                    break
                }
            }
            if page.isEmpty { unjournaled += fetched.attempts }
            if page.repaired > 0 { counters.add(.utf8Repaired, page.repaired) }
            if !page.batch.isEmpty {
                let rows = counters.rows.add(page.batch.count, ordering: .relaxed).newValue
                progress(
                    .page(
                        table: step.plan.table, rows: page.batch.count, totalRows: rows,
                        pages: pages))
            }
            if let span = page.fullPageSpan { scheduler.observeFullPage(id, first: span.first, last: span.last) }
            if page.crossed || next.ends {
                // The first page's count stands for the range only when the counts agreed up to its end.
                try await finish(
                    part: id, rangeCount: next.ends ? rangeCount : nil, requests: unjournaled, scheduler: scheduler,
                    counters: counters)
                return
            }
            index += 1
            position = next.position
            if page.records > 0 { continue }
            let empty = try await step.afterEmptyWindow(
                fetched, position: &position, partition: id, page: index)
            counters.add(.requests, empty.attempts)
            unjournaled += empty.attempts
            if empty.ends {
                try await finish(
                    part: id, rangeCount: empty.rangeCount.map { ($0, fetched.window.range.upperBound) },
                    requests: unjournaled, scheduler: scheduler, counters: counters)
                return
            }
        }
    }

    /// Records part `id` as done with the records of its range hidden from the reader: the instance's
    /// count of the range (`rangeCount`, when it was counted with the part's current upper bound and is
    /// not below the records received, or counted now) minus the records received in it. When a split
    /// moves the part's upper bound meanwhile, the range is counted again.
    private func finish(
        part id: Int, rangeCount: (count: Int, upper: SysID?)?, requests: Int, scheduler: PartitionScheduler,
        counters: ExtractionCounters
    ) async throws {
        var known = rangeCount
        var requests = requests
        while true {
            guard let part = journal.part(id) else { return }
            let upper = part.range.upperBound
            let total: Int
            // A count below the records received is contradicted (records inserted since, or a header's lie).
            if let known, known.upper == upper, known.count >= part.rows + part.rejects {
                total = known.count
            } else {
                let counted = try await step.count(range: part.range, after: nil, partition: id, page: part.pages)
                counters.add(.requests, counted.attempts)
                requests += counted.attempts
                total = counted.count
            }
            let hidden = max(0, total - part.rows - part.rejects)
            if try journal.recordDone(id, requests: requests, hidden: hidden, expectedUpper: .some(upper)) { return }
            known = nil
        }
    }
}
