import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// The extractor against the real nowsim behaving as badly as instances do at once: row ACLs hiding
/// runs of records longer than a page (`acl-hide:…,run=K`, so keyset pages come back empty while
/// visible records follow), 429s with a short `Retry-After`, gateway 503s, cancelled transactions
/// in a 200 and bodies cut half-way (of pages: a table's count given up is no failure, but the summary
/// checked here needs it). The export must hold exactly the visible records at
/// concurrency 1 and 8, and the summary must count the hidden ones exactly.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ExtractHiddenRowsTests {
    static let rows = 500
    static let hiding = "acl-hide:fraction=0.5,run=30,table=incident"
    static let misbehaviour = [
        hiding, "rate-limit:every=19,retry-after=1,table=incident", "status:code=503,every=11,table=incident",
        "truncate:every=13,after=2,table=incident,api=table",
        "truncate:cut=true,every=17,after=5,table=incident,api=table",
    ]

    @Test func everyVisibleRecordIsExportedAndTheHiddenOnesCounted() async throws {
        try await withNowSim(
            arguments: seededNowSim("incident=\(Self.rows)", value: 11), logRequests: true
        ) { sim in
            let all = try await IncidentEdits.sysIDs(sim)
            try #require(all.count == Self.rows)
            try await sim.setFaults([Self.hiding])
            let visible = try await IncidentEdits.sysIDs(sim)
            let hidden = Set(all).subtracting(visible)
            try #require(hidden.count >= 90 && hidden.count <= 410, "\(hidden.count) hidden")
            // Whole pages of 10 are hidden: some keyset page after a visible record comes back empty.
            try #require(
                all.indices.dropLast(11).contains { index in
                    !hidden.contains(all[index]) && all[(index + 1)...(index + 10)].allSatisfy(hidden.contains)
                }, "no run of hidden records as long as a page after a visible one")

            var files: [Int: Data] = [:]
            for concurrency in [1, 8] {
                try await sim.setFaults(Self.misbehaviour)
                let directory = try SinkTestSupport.scratchDirectory("hidden-\(concurrency)")
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let export = try await TableRunnerSupport.exportSysIDs(
                    sim, directory: directory, concurrency: concurrency, pageSize: 10)
                try await sim.setFaults([])
                let (exported, bytes, summary) = (export.sysIDs, export.bytes, export.summary)
                let note = "concurrency \(concurrency): \(summary)"
                #expect(exported == visible, "exactly the visible records, in sys_id order (\(note))")
                #expect(summary.rows == visible.count, "\(note)")
                #expect(summary.hiddenRows == hidden.count, "\(note)")
                #expect(summary.sourceCount == Self.rows, "\(note)")
                #expect(summary.counts[.retries] > 0, "429s, 503s and cut bodies were retried (\(note))")
                #expect(
                    summary.counts[.pageSizeReductions] > 0, "cancelled transactions were retried smaller (\(note))")
                files[concurrency] = bytes
            }
            #expect(files[1] == files[8], "the same bytes at concurrency 1 and 8")
            #expect(
                sim.requestLog.contains { $0.contains("/api/now/table/incident?") && $0.contains("sysparm_offset=") },
                "hidden windows were stepped over by offset")
        }
    }
}
