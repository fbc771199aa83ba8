import Foundation
import NowData
import NowSimTesting
import Testing

/// Records of a nowsim's incident table changed behind a test's back, and a NowData client of it: the
/// reconcile and instance-output suites make their differences with these.
enum IncidentEdits {
    /// A Table API client of `sim` as `user`.
    static func service(_ sim: NowSimInstance, user: String = "admin", password: String = "admin") -> NowTableService {
        NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: sim.baseURL, authentication: .basic(username: user, password: password)))
    }

    /// The incident sys_ids `sim` serves, in sys_id order, in one request covering the whole table (with
    /// the faults in force, where the instance has any).
    static func sysIDs(_ sim: NowSimInstance) async throws -> [String] {
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_fields", "sys_id"), ("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "10000")])
        try #require(response.status == 200)
        return response.resultList.compactMap { $0["sys_id"] as? String }
    }

    /// Sets `fields` of one incident without touching its system fields.
    static func patch(_ sim: NowSimInstance, _ sysID: String, _ fields: [String: String]) async throws {
        let response = try await sim.request(
            "PATCH", "/api/now/table/incident/\(sysID)", query: [("sysparm_suppress_auto_sys_field", "true")],
            body: try JSONSerialization.data(withJSONObject: fields))
        try #require(response.status == 200, "PATCH \(sysID): \(String(decoding: response.body, as: UTF8.self))")
    }

    /// Inserts an incident `sysID` that only this instance has.
    static func insert(_ sim: NowSimInstance, _ sysID: String) async throws {
        let response = try await sim.request(
            "POST", "/api/now/table/incident", query: [("sysparm_suppress_auto_sys_field", "true")],
            body: try JSONSerialization.data(withJSONObject: ["sys_id": sysID, "short_description": "only here"]))
        try #require(response.status == 201, "POST \(sysID): \(String(decoding: response.body, as: UTF8.self))")
    }

    /// Deletes the incident `sysID`.
    static func delete(_ sim: NowSimInstance, _ sysID: String) async throws {
        let response = try await sim.request("DELETE", "/api/now/table/incident/\(sysID)")
        try #require(response.status == 204, "DELETE \(sysID): \(response.status)")
    }
}
