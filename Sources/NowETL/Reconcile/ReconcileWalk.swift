import Foundation
import NowData

/// One side of a reconciliation: a table's records in sys_id order, one keyset page at a time, walked
/// exactly as a run walks a range (``PageStep``): keyset pages after the cursor through the instance's
/// request limiter, a smaller page after a cancelled transaction, windows stepping over records hidden
/// by ACLs, and an empty page ending the walk only when the instance counts nothing beyond the cursor.
///
/// Values: the walk's ``State`` goes in, the next page and the new state come out, so both sides of
/// a reconciliation can be fetched at once without sharing mutable state.
struct ReconcileWalk: Sendable {
    /// Where the walk stands.
    struct State: Sendable {
        var position = PageStep.Position()
        var ended = false
        /// Pages that came back (empty windows included).
        var pages = 0
        /// HTTP requests, retries and counts included.
        var requests = 0
        /// The last sys_id returned, to check the instance's order is the merge's.
        var last: String?
    }

    let step: PageStep

    /// A walk of `plan`'s table (one range: the whole key space) through `source`.
    init(plan: TablePlan, source: any PageSource, limiter: RequestLimiter, decoder: any PageDecoding) {
        step = PageStep(
            plan: plan, source: source, decoder: decoder,
            transformer: RecordTransformer(columns: [], displayValue: plan.displayValue),
            rejects: RejectCollector(table: plan.table, policy: RejectPolicy(mode: .skip)), limiter: limiter,
            sizes: AdaptivePageSize(maximum: plan.pageSize))
    }

    /// The next records in sys_id order (never empty unless the walk ended) and the state after them.
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`); a record without a sys_id is an error.
    func next(_ state: State) async throws -> (records: [Record], state: State) {
        var state = state
        while !state.ended {
            try Task.checkCancellation()
            let fetched = try await step.fetch(range: SysIDRange(), at: state.position, partition: 0, page: state.pages)
            state.pages += 1
            state.requests += fetched.attempts
            if !fetched.records.isEmpty {
                guard fetched.records.allSatisfy({ $0.sysID?.isEmpty == false }) else {
                    throw NowETLError(
                        .failed, table: step.plan.table,
                        "a record came back without its sys_id: records cannot be matched", page: state.pages - 1)
                }
                // The merge join compares sys_ids byte-wise; an instance that sorts them otherwise (a
                // case-insensitive collation with mixed-case sys_ids) would make equal tables look
                // different, so that is an error rather than a report.
                for record in fetched.records {
                    let sysID = record.sysID ?? ""
                    if let last = state.last, !(last < sysID) {
                        throw NowETLError(
                            .failed, table: step.plan.table,
                            "the instance returned sys_id \(sysID) after \(last): it orders sys_ids otherwise than "
                                + "byte by byte, so the two sides cannot be matched in order",
                            page: state.pages - 1)
                    }
                    state.last = sysID
                }
                state.position = try step.advanced(
                    from: state.position, past: fetched.records, partition: 0, page: state.pages - 1)
                return (fetched.records, state)
            }
            let empty = try await step.afterEmptyWindow(
                fetched, position: &state.position, partition: 0, page: state.pages)
            state.requests += empty.attempts
            state.ended = empty.ends
        }
        return ([], state)
    }

    /// The records the instance counts in the table's filter (before ACLs, hidden ones included).
    func count(_ state: inout State) async throws -> Int {
        let counted = try await step.count(range: SysIDRange(), after: nil, partition: 0, page: state.pages)
        state.requests += counted.attempts
        return counted.count
    }
}
