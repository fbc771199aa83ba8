import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// How a sys_id range ends, against the real nowsim (``PageStep``'s rules): with its last page, by the
/// `X-Total-Count` that page asked for, in the common case — no empty page, no Aggregate API count;
/// with hidden rows every visible record still comes exactly once and the hidden ones are counted;
/// a mangled `X-Total-Count` (nowsim's `total-count` fault) falls back to the empty page and the
/// Aggregate API and never loses, repeats or loops.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ExtractRangeEndTests {
    static let rows = 450
    static let pageSize = 50

    /// What one export of the incident table delivered, and the requests nowsim logged for it.
    struct Export {
        var exported: [String]
        var summary: TableSummary
        /// nowsim's log lines of the export's keyset pages (`/api/now/table/incident?…`).
        var pages: [Substring]
        /// nowsim's log lines of the export's Aggregate API counts.
        var counts: [Substring]
    }

    /// Exports `sys_id` and `number` of every incident `user` reads, `concurrency` ranges at a time.
    static func export(
        _ sim: NowSimInstance, user: String = "admin", password: String = "admin", concurrency: Int
    ) async throws -> Export {
        let logged = sim.requestLog.count
        let directory = try SinkTestSupport.scratchDirectory("range-end-\(concurrency)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let export = try await TableRunnerSupport.exportSysIDs(
            sim, directory: directory, user: user, password: password, concurrency: concurrency, pageSize: pageSize)
        let log = sim.requestLog.dropFirst(logged)
        return Export(
            exported: export.sysIDs, summary: export.summary,
            pages: log.filter { $0.contains(" GET /api/now/table/incident?") },
            // The table's count for progress has no query; a range's count is bounded by sys_id.
            counts: log.filter { $0.contains(" GET /api/now/stats/incident?") && $0.contains("sysparm_query") })
    }

    /// The number of pages of `size` that hold `records`, at least one.
    static func pages(_ records: Int, size: Int) -> Int { max(1, (records + size - 1) / size) }

    @Test(arguments: [1, 4])
    func aRangeEndsWithItsLastPageWithoutACount(concurrency: Int) async throws {
        try await withNowSim(arguments: seededNowSim("incident=\(Self.rows)", value: 17), logRequests: true) { sim in
            let all = try await IncidentEdits.sysIDs(sim)
            try #require(all.count == Self.rows)
            let export = try await Self.export(sim, concurrency: concurrency)
            let note = "concurrency \(concurrency): \(export.summary)"
            #expect(export.exported == all, "every record once, in sys_id order (\(note))")
            #expect(export.summary.hiddenRows == 0, "\(note)")
            #expect(export.counts.isEmpty, "no range was counted through the Aggregate API: \(export.counts)")
            // Every range took its records' pages, plus one empty page only where its last page was full.
            let partitions = SysIDRange.partitions(concurrency)
            let most = partitions.reduce(0) { sum, range in
                let records = all.count { id in
                    range.lowerBound.map { $0 <= id } ?? true && range.upperBound.map { id < $0 } ?? true
                }
                return sum + Self.pages(records, size: Self.pageSize) + (records % Self.pageSize == 0 ? 1 : 0)
            }
            #expect(export.summary.counts[.pages] <= most, "\(note)")
            #expect(export.pages.count == export.summary.counts[.pages], "\(note)")
            let counted = export.pages.filter { !$0.contains("sysparm_no_count=true") }
            // Its first page and the last one or two (three after a full last page), never every page.
            #expect(counted.count >= partitions.count, "each range's first page counted it")
            #expect(counted.count <= 4 * partitions.count, "\(counted.count) counted pages (\(note))")
        }
    }

    /// A row rule hides records from the reader (`--row-acl`, after `sysparm_limit`, counted before):
    /// pages come back short or empty, every visible record still comes once and the summary counts
    /// the hidden ones from the ranges' counts.
    @Test(arguments: [1, 4])
    func rowRulesLoseNoVisibleRecordAndCountTheHiddenOnes(concurrency: Int) async throws {
        try await withNowSim(
            arguments: seededNowSim("incident=\(Self.rows)", value: 17) + [
                "--user", "etl:pw:itil", "--row-acl", "etl:incident:priority=1^ORpriority=2",
            ], logRequests: true
        ) { sim in
            let all = try await IncidentEdits.sysIDs(sim)
            let response = try await sim.request(
                "/api/now/table/incident",
                query: [("sysparm_fields", "sys_id"), ("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "10000")],
                user: "etl", password: "pw")
            let visible = response.resultList.compactMap { $0["sys_id"] as? String }
            try #require(visible.count > 0 && visible.count < all.count, "\(visible.count) of \(all.count) visible")
            let export = try await Self.export(sim, user: "etl", password: "pw", concurrency: concurrency)
            let note = "concurrency \(concurrency): \(export.summary)"
            #expect(export.exported == visible, "exactly the visible records, once each, in order (\(note))")
            #expect(export.summary.rows == visible.count, "\(note)")
            #expect(export.summary.hiddenRows == all.count - visible.count, "\(note)")
        }
    }

    /// A mangled `X-Total-Count` (absent where asked, not a number, negative, beyond any table, or a
    /// plausible lie: 0, 1, the page size, a trillion) costs at most the requests of the old way; the
    /// Aggregate API, which still counts truly, ends the ranges it did not.
    @Test(arguments: ["", "abc", "-1", "1e400", "99999999999999999999", "0", "1", "50", "1000000000000"])
    func aMangledTotalCountNeverLosesOrRepeatsARecord(value: String) async throws {
        try await withNowSim(
            arguments: seededNowSim("incident=\(Self.rows)", value: 17),
            faults: ["total-count:table=incident,value=\(value)"], logRequests: true
        ) { sim in
            let all = try await IncidentEdits.sysIDs(sim)
            try #require(all.count == Self.rows)
            for concurrency in [1, 4] {
                let export = try await Self.export(sim, concurrency: concurrency)
                let note = "X-Total-Count '\(value)', concurrency \(concurrency): \(export.summary)"
                #expect(export.exported == all, "every record once, in sys_id order (\(note))")
                #expect(export.summary.hiddenRows == 0, "\(note)")
                #expect(export.summary.sourceCount == Self.rows, "\(note)")
                // Each range: its pages, one empty page, and at most two Aggregate counts, as before.
                let partitions = SysIDRange.partitions(concurrency)
                #expect(export.counts.count <= 2 * partitions.count, "\(note)")
                #expect(export.pages.count <= Self.rows / Self.pageSize + 2 * partitions.count, "\(note)")
            }
        }
    }
}
