import Foundation
import NowData
import Synchronization

/// The deletions an incremental table with `deletes: true` delivers in one run: the
/// `sys_audit_delete` rows of the table in the run's deletion window, read at the run's start.
///
/// An instance with auditing on writes one `sys_audit_delete` row per deleted record:
/// `tablename` (the record's own class — so a table that others extend, such as `task`, asks for
/// its child classes' names too), `documentkey` (its sys_id) and `sys_created_on` (when it was
/// deleted). The window works like the rows' (``IncrementalWindow`` on `sys_created_on`, with the
/// audit rows' own sys_ids): after the saved `(deletes_cursor, deletes_sys_id)`, at most the run's
/// signpost. On a table's first run it is empty — it starts one second after the signpost, since the
/// run's full read does not see the records deleted before it.
///
/// Read at the start, the query doubles as the access check: a user who may not read
/// `sys_audit_delete` (on an instance, only `admin` may) fails the table before any page is fetched
/// (exit 77), instead of exporting without deletions. The pages go through the same walk as the
/// table's (``TablePipeline/stream(isFull:deliver:)``: keyset pages, hidden rows, smaller pages after a
/// cancelled transaction); they are few — one run's deletions — and held in memory.
struct DeletionCapture {
    /// The audit table.
    static let auditTable = "sys_audit_delete"
    /// The time field of an audit row: the deletion time.
    static let timeField = "sys_created_on"

    /// The incremental table.
    let table: String
    /// The deletion window (on ``timeField``).
    let window: IncrementalWindow
    /// The tables extending ``table`` (``FieldDiscovery/descendants(of:)``): their records are read
    /// through the table and audited under their own class's name, so their deletions count too.
    var childTables: [String] = []

    /// One deleted record.
    struct Deletion: Sendable, Hashable {
        /// The deleted record's sys_id.
        var sysID: String
        /// When it was deleted, seconds since 1970 (UTC).
        var deletedAt: Int
    }

    /// What a run's deletion window held.
    struct Captured: Sendable {
        /// One per deleted record (the latest deletion of a record deleted twice), in sys_id order.
        var deletions: [Deletion]
        /// The greatest `(sys_created_on, audit sys_id)` read: where the next run continues after.
        var high: CursorMark?
        /// Audit rows read.
        var auditRows: Int
        /// HTTP requests it took (retries included).
        var requests: Int
    }

    /// The window of a run whose signpost is `signpost`, after the saved `state`: after its deletions'
    /// cursor; without one (`deletes: true` is new for the table) from the second after the last
    /// committed run's signpost; and without a state at all (a first run, whose full read cannot have
    /// seen the records deleted before it) empty, starting right after `signpost`.
    static func window(after state: IncrementalTableState?, signpost: String) -> IncrementalWindow {
        if let cursor = state?.deletesCursor {
            return IncrementalWindow(
                field: timeField, cursor: cursor, sysID: state?.deletesSysID, signpost: signpost)
        }
        let from = state?.signpost ?? signpost
        let next = (TableAPIDateFormat.seconds(fromDateTime: from) ?? 0) + 1
        return IncrementalWindow(
            field: timeField, cursor: TableAPIDateFormat.string(fromSeconds: next), signpost: signpost)
    }

    /// The plan that reads the window's audit rows: `tablename=<table>` and the window, the three
    /// fields needed, one range.
    func plan(pageSize: Int) -> TablePlan {
        let tableCondition = EncodedQuery.Term(conditions: [
            childTables.isEmpty
                ? EncodedQuery.Condition(field: "tablename", op: .equals, value: .literal(table))
                : EncodedQuery.Condition(field: "tablename", op: .isIn, value: .list([table] + childTables))
        ])
        let filter = EncodedQuery().and([tableCondition] + window.terms)
        let names = ["documentkey", Self.timeField, "sys_id"]
        var plan = TablePlan(
            table: Self.auditTable, filter: filter, displayValue: .actual,
            readConfiguration: FieldReadConfiguration(
                includeFields: names, options: [.actualValues, .excludeReferenceLink]),
            columns: names.map { PlannedColumn(path: RecordPath($0), schema: ColumnSchema(name: $0)) },
            partitions: [SysIDRange()], pageSize: pageSize)
        plan.incremental = window
        return plan
    }

    /// Reads the window through `source` (the instance's pages, under the run's request limiter).
    ///
    /// - Throws: ``NowETLError`` naming the table — code ``NowETLError/Code/authentication`` (exit
    ///   77) when the user may not read `sys_audit_delete`.
    func read(
        source: any PageSource, decoder: any PageDecoding, limiter: RequestLimiter, pageSize: Int
    ) async throws -> Captured {
        let plan = plan(pageSize: pageSize)
        let sink = MemorySink()
        let counted = CountingPageSource(source: source)
        let pipeline = TablePipeline(
            plan: plan, source: counted, decoder: decoder,
            rejects: RejectCollector(table: Self.auditTable, policy: .fail), limiter: limiter, sinks: [sink])
        do {
            try await sink.open(
                schema: plan.schema, context: SinkContext(table: Self.auditTable, runID: "", runStarted: Date()))
            try await pipeline.stream(isFull: { false })
        } catch let error as NowETLError where error.context.table != nil {
            // The audit table's error, told as the exported table's.
            var failure = error.labelled(
                error.code == .authentication
                    ? "deletes: true reads \(Self.auditTable), which this user may not read (on an instance "
                        + "only the admin role may, unless an ACL grants it)"
                    : "reading the deletions from \(Self.auditTable)")
            failure.context = NowETLError.Context(table: table, url: error.context.url)
            throw failure
        }
        var latest: [String: Deletion] = [:]
        var high: CursorMark?
        let rows = sink.rows
        for row in rows {
            // A deleted record whose sys_id breaks the rule was never delivered as a row (it was
            // rejected), so there is no deletion of it to deliver either.
            guard case .string(let key)? = row.values[0], case .string(let created)? = row.values[1],
                case .string(let auditID)? = row.values[2], SysIDRule.accepts(key),
                let seconds = TableAPIDateFormat.seconds(fromDateTime: created)
            else { continue }
            high = CursorMark.max(high, CursorMark(value: created, sysID: auditID))
            if let seen = latest[key], seen.deletedAt >= seconds { continue }
            latest[key] = Deletion(sysID: key, deletedAt: seconds)
        }
        return Captured(
            deletions: latest.values.sorted { $0.sysID < $1.sysID }, high: high, auditRows: rows.count,
            requests: counted.requests.load(ordering: .relaxed))
    }
}

/// A page source that counts the HTTP requests its pages and counts took, for a walk that keeps no
/// counters of its own (``TablePipeline/stream(isFull:deliver:)``: deletion capture, ``SourceScan``).
final class CountingPageSource: PageSource {
    let source: any PageSource
    let requests = Atomic<Int>(0)

    init(source: any PageSource) {
        self.source = source
    }

    func page(of plan: TablePlan, _ window: PageWindow) async throws -> SourcePage {
        let page = try await source.page(of: plan, window)
        requests.add(page.attempts, ordering: .relaxed)
        return page
    }

    func page(of plan: TablePlan, _ window: PageWindow, decoder: any PageDecoding) async throws -> SourcePage {
        let page = try await source.page(of: plan, window, decoder: decoder)
        requests.add(page.attempts, ordering: .relaxed)
        return page
    }

    func count(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> KeysetCount {
        let counted = try await source.count(of: plan, range: range, after: after)
        requests.add(counted.attempts, ordering: .relaxed)
        return counted
    }
}
