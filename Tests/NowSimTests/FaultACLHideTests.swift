import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// `acl-hide:fraction=F,run=K`: whole runs of K records in sys_id order hidden after `sysparm_limit`,
/// the same records whatever window a query asks for, while every count still includes them (an
/// instance counts before ACLs, ref §3.2).
@Suite(.timeLimit(.minutes(5))) struct FaultACLHideTests {
    @Test(arguments: [
        ("acl-hide:fraction=0.5,run=20", Fault.Kind.aclHide(fraction: 0.5, run: 20), "acl-hide:fraction=0.5,run=20"),
        ("acl-hide:fraction=0.3", .aclHide(fraction: 0.3, run: 1), "acl-hide:fraction=0.3"),
        (
            "acl-hide:run=1,fraction=1,table=incident", .aclHide(fraction: 1, run: 1),
            "acl-hide:fraction=1.0,table=incident"
        ),
    ])
    func specsParseAndPrintBack(_ spec: String, _ kind: Fault.Kind, _ printed: String) throws {
        let fault = try Fault(parsing: spec)
        #expect(fault.kind == kind)
        #expect(fault.description == printed)
        #expect(try Fault(parsing: fault.description) == fault)
    }

    @Test(arguments: [
        "acl-hide:fraction=0.5,run=0", "acl-hide:fraction=0.5,run=x", "acl-hide:run=5", "acl-hide:fraction=0.5,runs=5",
    ])
    func badSpecsAreRefused(_ spec: String) {
        #expect(throws: Fault.ParseError.self) { try Fault(parsing: spec) }
    }

    static func sysIDs(_ response: NowSimTesting.NowSimInstance.Response) -> [String] {
        response.resultList.compactMap { $0["sys_id"] as? String }
    }

    @Test func wholeRunsAreHiddenTheSameWhateverTheWindowAndStillCounted() async throws {
        try await withNowSim(arguments: ["--seed", "incident=400", "--seed-value", "3"]) { sim in
            func list(_ query: [(String, String)]) async throws -> NowSimTesting.NowSimInstance.Response {
                try await sim.request("/api/now/table/incident", query: [("sysparm_fields", "sys_id")] + query)
            }
            let all = Self.sysIDs(try await list([("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "10000")]))
            try #require(all.count == 400)
            try await sim.setFaults(["acl-hide:fraction=0.5,run=20,table=incident"])

            // One request covering everything sees exactly the visible records.
            let visible = Self.sysIDs(try await list([("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "10000")]))
            let hidden = Set(all).subtracting(visible)
            #expect(hidden.count >= 60 && hidden.count <= 340, "\(hidden.count) hidden")
            #expect(hidden.count % 20 == 0, "whole runs of 20")
            for start in stride(from: 0, to: all.count, by: 20) {
                let run = all[start..<min(all.count, start + 20)]
                #expect(run.allSatisfy(hidden.contains) || !run.contains(where: hidden.contains), "run at \(start)")
            }

            // Keyset pages of 10 over a filtered window hide the same records; some come back empty
            // while visible records follow, and counts still include what they hide.
            let from = all[95]
            var cursor = from
            var seen: [String] = []
            var emptyThenMore = 0
            var sawEmpty = false
            var pages = 0
            while pages < 60 {
                pages += 1
                let page = try await list([
                    ("sysparm_query", "sys_id>\(cursor)^ORDERBYsys_id"), ("sysparm_limit", "10"),
                ])
                #expect(page.header("X-Total-Count") == String(all.filter { $0 > cursor }.count))
                let ids = Self.sysIDs(page)
                if ids.isEmpty {
                    sawEmpty = true
                    // Step over the hidden window by position, as the extractor does.
                    guard let next = all.first(where: { $0 > cursor }) else { break }
                    guard let index = all.firstIndex(of: next), index + 10 <= all.count else { break }
                    cursor = all[index + 9]
                    continue
                }
                if sawEmpty { emptyThenMore += 1 }
                sawEmpty = false
                seen += ids
                cursor = ids[ids.count - 1]
            }
            #expect(seen == visible.filter { $0 > from })
            #expect(emptyThenMore > 0, "runs of 20 at pages of 10 empty whole pages")

            let counted = try await sim.request(
                "/api/now/stats/incident", query: [("sysparm_count", "true"), ("sysparm_query", "sys_id>\(from)")])
            let stats = counted.resultObject["stats"] as? [String: Any]
            #expect(stats?["count"] as? String == "304", "the Aggregate API counts before ACLs")

            let hiddenID = try #require(all.first(where: hidden.contains))
            #expect(try await sim.request("/api/now/table/incident/\(hiddenID)").status == 404)
            let visibleID = try #require(visible.first)
            #expect(try await sim.request("/api/now/table/incident/\(visibleID)").status == 200)
        }
    }
}
