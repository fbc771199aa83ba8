import Foundation
import NowSimTesting
import Testing

/// Which answers the served `invalid-utf8` fault acts on: Table API answers in JSON only.
@Suite(.timeLimit(.minutes(3))) struct FaultInvalidUTF8ScopeTests {
    @Test func onlyTableAPIJSONIsCorrupted() async throws {
        // No table=: the fault strikes every request, so the other APIs must leave it alone.
        try await withNowSim(arguments: ["--seed", "incident=5"], faults: ["invalid-utf8"]) { sim in
            let list = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "2")])
            #expect(list.status == 200)
            #expect(list.body.contains(0xE9), "the Table API JSON answer carries the byte")
            #expect(String(data: list.body, encoding: .utf8) == nil)

            let stats = try await sim.request("/api/now/stats/incident", query: [("sysparm_count", "true")])
            #expect(stats.status == 200)
            #expect(!stats.body.contains(0xE9), "\(String(decoding: stats.body, as: UTF8.self))")
            let count =
                (((stats.json as? [String: Any])?["result"] as? [String: Any])?["stats"] as? [String: Any])?[
                    "count"] as? String
            #expect(count == "5")

            let grouped = try await sim.request(
                "/api/now/stats/incident", query: [("sysparm_count", "true"), ("sysparm_group_by", "priority")])
            #expect(grouped.status == 200 && !grouped.body.contains(0xE9))
            #expect(grouped.json != nil)

            let xml = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_limit", "2")], headers: ["Accept": "application/xml"])
            #expect(xml.status == 200 && xml.header("Content-Type")?.contains("xml") == true)
            #expect(!xml.body.contains(0xE9))
            #expect(String(data: xml.body, encoding: .utf8) != nil)
        }
    }
}
