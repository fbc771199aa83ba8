import Foundation
import NowQuery
import NowSimTesting
import Synchronization

@testable import NowETL

/// A table in memory served as keyset pages — the page source stage of a ``TablePipeline`` in tests.
///
/// It answers like the instance: the records of the range after the cursor, in sys_id order, at most
/// the plan's page size. It counts requests, records the most requests in flight at once, can wait a
/// little per page (so partitions overlap), and can fail or stall at a chosen request.
final class ScriptedPageSource: PageSource {
    struct Record: Sendable {
        var sysID: String
        var number: Int
    }

    let records: [Record]
    private let delay: Duration
    private let state = Mutex(State())

    struct State {
        var requests = 0
        var inFlight = 0
        var mostInFlight = 0
        var failAt: Int?
    }

    /// `count` records whose sys_ids are spread over the key space (`skew: false`) or crowded into one
    /// sixteenth of it, the way imported records often are (`skew: true`, 90 % of them).
    init(count: Int, skew: Bool = false, delay: Duration = .zero, seed: UInt64 = 7) {
        var generator = SplitMix64(seed: seed)
        var ids = Set<String>()
        while ids.count < count {
            var value = UInt128(generator.next()) << 64 | UInt128(generator.next())
            if skew && generator.next() % 10 != 0 { value = value >> 4 | (UInt128(0x3) << 124) }
            ids.insert(KeySpace.id(at: value))
        }
        records = ids.sorted().enumerated().map { Record(sysID: $1, number: $0) }
        self.delay = delay
    }

    var requests: Int { state.withLock { $0.requests } }
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    /// Request number `request` (1-based, counted from now) and later ones fail.
    func fail(fromRequest request: Int) {
        state.withLock { $0.failAt = $0.requests + request }
    }

    func page(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> SourcePage {
        let number: Int = try state.withLock { state in
            state.requests += 1
            if let failAt = state.failAt, state.requests >= failAt {
                throw TableRunError(
                    table: plan.table, kind: .transient, "scripted failure at request \(state.requests)")
            }
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return state.requests
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        _ = number
        let selected = records.lazy.filter { record in
            (range.lowerBound.map { record.sysID >= $0 } ?? true)
                && (range.upperBound.map { record.sysID < $0 } ?? true)
                && (after.map { record.sysID > $0 } ?? true)
        }.prefix(plan.pageSize)
        let page = Array(selected)
        var body = "{\"result\":["
        for (index, record) in page.enumerated() {
            if index > 0 { body += "," }
            body +=
                "{\"sys_id\":\"\(record.sysID)\",\"number\":\"\(record.number)\",\"short_description\":\"row \\\"\(record.number)\\\", ok\"}"
        }
        body += "]}"
        return SourcePage(body: Data(body.utf8), recordCount: page.count, lastSysID: page.last?.sysID, attempts: 1)
    }
}
