import Foundation
import NowData
import NowQuery
import NowSimTesting
import Synchronization

@testable import NowETL

/// A table in memory served as keyset pages — the page source stage of a ``TablePipeline`` in tests.
///
/// It answers like the instance: the records of the range after the cursor, in sys_id order, at most
/// the window's limit past its offset, with the records in `hidden` taken out after the limit (as
/// row ACLs are) and counts that include them. It counts requests, records the most requests in
/// flight at once, can wait a little per page (so partitions overlap), can fail at a chosen request
/// and can give up on pages larger than a size (a cancelled transaction).
final class ScriptedPageSource: PageSource {
    struct Record: Sendable {
        var sysID: String
        var number: Int
    }

    let records: [Record]
    /// sys_ids the reader may not see.
    let hidden: Set<String>
    private let delay: Duration
    private let state = Mutex(State())

    struct State {
        var requests = 0
        var counts = 0
        var inFlight = 0
        var mostInFlight = 0
        var failAt: Int?
        var cancelAbove: Int?
        var cancelNext = 0
        var cancelled = 0
    }

    /// `count` records whose sys_ids are spread over the key space (`skew: false`) or crowded into one
    /// sixteenth of it, the way imported records often are (`skew: true`, 90 % of them); with
    /// `hiddenRuns` (`fraction`, `run`), runs of `run` consecutive records (in sys_id order) are hidden,
    /// each with probability `fraction` (seeded).
    init(
        count: Int, skew: Bool = false, delay: Duration = .zero, seed: UInt64 = 7,
        hiddenRuns: (fraction: Double, run: Int)? = nil
    ) {
        var generator = SplitMix64(seed: seed)
        var ids = Set<String>()
        while ids.count < count {
            var value = UInt128(generator.next()) << 64 | UInt128(generator.next())
            if skew && generator.next() % 10 != 0 { value = value >> 4 | (UInt128(0x3) << 124) }
            ids.insert(KeySpace.id(at: value))
        }
        records = ids.sorted().enumerated().map { Record(sysID: $1, number: $0) }
        var hidden = Set<String>()
        if let (fraction, run) = hiddenRuns {
            for start in stride(from: 0, to: records.count, by: max(1, run))
            where Double(generator.next() % 1000) < fraction * 1000 {
                for record in records[start..<min(records.count, start + run)] { hidden.insert(record.sysID) }
            }
        }
        self.hidden = hidden
        self.delay = delay
    }

    /// The records the reader may see, in sys_id order.
    var visible: [Record] { records.filter { !hidden.contains($0.sysID) } }

    var requests: Int { state.withLock { $0.requests } }
    var counts: Int { state.withLock { $0.counts } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Pages of more than `size` records are cancelled by the "instance" from now on (`nil`: none).
    func cancelPages(above size: Int?) {
        state.withLock { $0.cancelAbove = size }
    }
    /// The next `requests` page requests are cancelled by the "instance", whatever their size.
    func cancelNext(_ requests: Int) {
        state.withLock { $0.cancelNext = requests }
    }
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    /// Request number `request` (1-based, counted from now) and later ones fail.
    func fail(fromRequest request: Int) {
        state.withLock { $0.failAt = $0.requests + request }
    }

    func page(of plan: TablePlan, _ window: PageWindow) async throws -> SourcePage {
        let number: Int = try state.withLock { state in
            state.requests += 1
            if let failAt = state.failAt, state.requests >= failAt {
                throw NowETLError(.transient, table: plan.table, "scripted failure at request \(state.requests)")
            }
            let cancelAnyway = state.cancelNext > 0
            if cancelAnyway { state.cancelNext -= 1 }
            if cancelAnyway || state.cancelAbove.map({ window.limit > $0 }) == true {
                state.cancelled += 1
                // A cancelled transaction as the instance's answer: a smaller page may help.
                throw NowETLError(
                    table: plan.table, during: "transaction cancelled",
                    .transactionCancelled(ResponseContext(method: "GET", url: "scripted")))
            }
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return state.requests
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        _ = number
        // The limit applies before the ACLs, as on an instance.
        let selected = matching(window.range, after: window.after).dropFirst(window.offset).prefix(window.limit)
        let page = selected.filter { !hidden.contains($0.sysID) }
        var body = "{\"result\":["
        for (index, record) in page.enumerated() {
            if index > 0 { body += "," }
            body +=
                "{\"sys_id\":\"\(record.sysID)\",\"number\":\"\(record.number)\",\"short_description\":\"row \\\"\(record.number)\\\", ok\"}"
        }
        body += "]}"
        return SourcePage(body: Data(body.utf8), recordCount: page.count, lastSysID: page.last?.sysID, attempts: 1)
    }

    func count(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> KeysetCount {
        state.withLock { $0.counts += 1 }
        return KeysetCount(count: matching(range, after: after).count, attempts: 1)
    }

    private func matching(_ range: SysIDRange, after: SysID?) -> [Record] {
        records.filter { record in
            (range.lowerBound.map { record.sysID >= $0 } ?? true)
                && (range.upperBound.map { record.sysID < $0 } ?? true)
                && (after.map { record.sysID > $0 } ?? true)
        }
    }
}
