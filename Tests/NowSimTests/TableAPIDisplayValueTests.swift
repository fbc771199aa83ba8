import Foundation
import NowSimTesting
import Testing

/// The value shapes of `sysparm_display_value` × `sysparm_exclude_reference_link` (ref §2.3).
@Suite(.timeLimit(.minutes(5))) struct TableAPIDisplayValueTests {
    let sim: NowSimInstance
    init() async throws { sim = try await SharedNowSim.get() }

    /// One incident with a caller and one without an assignee, read in one display mode.
    private func incident(_ query: String, display: String, exclude: Bool) async throws -> [String: Any] {
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", query + "^ORDERBYnumber"), ("sysparm_limit", "1"),
                ("sysparm_fields", "number,caller_id,assigned_to,priority,sys_mod_count,state"),
                ("sysparm_display_value", display), ("sysparm_exclude_reference_link", exclude ? "true" : "false"),
            ])
        #expect(response.status == 200)
        return try #require(response.resultList.first)
    }

    @Test func valuesWithLinks() async throws {
        let row = try await incident("caller_idISNOTEMPTY^assigned_toISEMPTY", display: "false", exclude: false)
        let caller = try #require(row["caller_id"] as? [String: String])
        #expect(Set(caller.keys) == ["link", "value"])
        #expect(caller["link"] == "\(sim.baseURL)/api/now/table/sys_user/\(caller["value"]!)")
        #expect(row["assigned_to"] as? String == "")
        #expect(row["number"] is String)
    }

    @Test func valuesWithoutLinks() async throws {
        let row = try await incident("caller_idISNOTEMPTY^assigned_toISEMPTY", display: "false", exclude: true)
        let caller = try #require(row["caller_id"] as? String)
        #expect(caller.count == 32)
        #expect(row["assigned_to"] as? String == "")
    }

    @Test func displayValuesWithLinks() async throws {
        let row = try await incident(
            "caller_idISNOTEMPTY^assigned_toISEMPTY^priority=1", display: "true", exclude: false)
        let caller = try #require(row["caller_id"] as? [String: String])
        #expect(Set(caller.keys) == ["display_value", "link"])
        #expect(caller["display_value"]?.isEmpty == false)
        #expect(row["priority"] as? String == "1 - Critical")
        #expect(row["assigned_to"] as? String == "")
    }

    @Test func displayValuesWithoutLinks() async throws {
        let row = try await incident("caller_idISNOTEMPTY^priority=1", display: "true", exclude: true)
        let caller = try #require(row["caller_id"] as? String)
        #expect(!caller.isEmpty && caller.count != 32)
    }

    @Test func allWithLinks() async throws {
        let row = try await incident(
            "caller_idISNOTEMPTY^assigned_toISEMPTY^priority=2", display: "all", exclude: false)
        let caller = try #require(row["caller_id"] as? [String: String])
        #expect(Set(caller.keys) == ["display_value", "link", "value"])
        let priority = try #require(row["priority"] as? [String: String])
        #expect(priority == ["display_value": "2 - High", "value": "2"])
        let assigned = try #require(row["assigned_to"] as? [String: String])
        #expect(assigned == ["display_value": "", "value": ""])
    }

    @Test func allWithoutLinks() async throws {
        let row = try await incident("caller_idISNOTEMPTY", display: "all", exclude: true)
        let caller = try #require(row["caller_id"] as? [String: String])
        #expect(Set(caller.keys) == ["display_value", "value"])
    }

    @Test func referenceDisplayValueIsTheTargetsDisplayField() async throws {
        let row = try await incident("caller_idISNOTEMPTY", display: "all", exclude: true)
        let caller = try #require(row["caller_id"] as? [String: String])
        let user = try await sim.request(
            "/api/now/table/sys_user/\(caller["value"]!)", query: [("sysparm_fields", "name")])
        #expect(user.resultObject["name"] as? String == caller["display_value"])
    }

    @Test func integerDisplayValuesAreGrouped() async throws {
        // Writes, so it gets its own instance: the shared one must stay as seeded.
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            let response = try await sim.request(
                "/api/now/table/incident",
                query: [("sysparm_query", "ORDERBYnumber"), ("sysparm_limit", "1"), ("sysparm_fields", "sys_id")])
            let sysId = try #require(response.resultList.first?["sys_id"] as? String)
            let update = try await sim.request(
                "PATCH", "/api/now/table/incident/\(sysId)", query: [("sysparm_display_value", "all")],
                body: Data(#"{"reassignment_count":"12345"}"#.utf8))
            let count = update.resultObject["reassignment_count"] as? [String: String]
            #expect(count == ["display_value": "12,345", "value": "12345"])
        }
    }
}
