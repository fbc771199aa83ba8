import Foundation
import NowSimTesting
import Testing

/// Inserts, updates and deletes through the Table API (ref §1.2, §2.4, §5); each test uses its own nowsim.
@Suite(.timeLimit(.minutes(5))) struct TableAPIWriteTests {
    /// This test's own server (Swift Testing makes a suite value per test); stopped when the value goes.
    let sim: NowSimInstance
    init() async throws {
        sim = try await NowSimInstance.start(arguments: [
            "--seed", "incident=20", "--seed-value", "5",
            "--user", "reader:pw:snc_read_only", "--user", "admin:admin:admin",
        ])
    }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func postCreatesWithSysFieldsLocationAnd201() async throws {
        let response = try await sim.request(
            "POST", "/api/now/table/incident",
            body: json(#"{"short_description":"Printer on fire, \"again\"","urgency":2,"active":true}"#))
        #expect(response.status == 201)
        let record = response.resultObject
        let sysId = try #require(record["sys_id"] as? String)
        #expect(sysId.count == 32)
        #expect(response.header("Location") == "\(sim.baseURL)/api/now/table/incident/\(sysId)")
        #expect(record["short_description"] as? String == #"Printer on fire, "again""#)
        #expect(record["urgency"] as? String == "2")
        #expect(record["active"] as? String == "true")
        #expect(record["sys_mod_count"] as? String == "0")
        #expect(record["sys_created_by"] as? String == "admin")
        #expect(record["sys_class_name"] as? String == "incident")
        #expect((record["number"] as? String)?.hasPrefix("INC") == true)
        let created = try #require(record["sys_created_on"] as? String)
        #expect(created.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"#, options: .regularExpression) != nil)
        #expect(record["sys_updated_on"] as? String == created)
        // Fields not supplied come back empty, not missing.
        #expect(record["close_notes"] as? String == "")
        let read = try await sim.request("/api/now/table/incident/\(sysId)")
        #expect(read.resultObject["short_description"] as? String == #"Printer on fire, "again""#)
    }

    @Test func postWithArrayUsesFirstElementOnly() async throws {
        let before = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
        let response = try await sim.request(
            "POST", "/api/now/table/incident",
            body: json(#"[{"short_description":"first"},{"short_description":"second"}]"#))
        #expect(response.status == 201)
        #expect(response.resultObject["short_description"] as? String == "first")
        let after = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
        #expect(Int(after.header("X-Total-Count")!)! == Int(before.header("X-Total-Count")!)! + 1)
    }

    @Test func noResponseBodyHeaderSuppressesTheEcho() async throws {
        let response = try await sim.request(
            "POST", "/api/now/table/incident", headers: ["X-no-response-body": "true"],
            body: json(#"{"short_description":"quiet"}"#))
        #expect(response.status == 201)
        #expect(response.body.isEmpty)
        #expect(response.header("Location") != nil)
    }

    @Test func patchAndPutUpdatePartiallyAndBumpModCount() async throws {
        let created = try await sim.request(
            "POST", "/api/now/table/incident", body: json(#"{"short_description":"a","description":"keep me"}"#))
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        for (method, text) in [("PATCH", "b"), ("PUT", "c")] {
            let response = try await sim.request(
                method, "/api/now/table/incident/\(sysId)", body: json(#"{"short_description":"\#(text)"}"#))
            #expect(response.status == 200)
            #expect(response.resultObject["short_description"] as? String == text)
            #expect(response.resultObject["description"] as? String == "keep me")
        }
        let read = try await sim.request("/api/now/table/incident/\(sysId)")
        #expect(read.resultObject["sys_mod_count"] as? String == "2")
        let missing = try await sim.request(
            "PUT", "/api/now/table/incident/00000000000000000000000000000000", body: json(#"{"short_description":"x"}"#)
        )
        #expect(missing.status == 404)
    }

    @Test func suppressAutoSysFieldKeepsCallerValues() async throws {
        let body = json(
            #"{"short_description":"migrated","sys_id":"0123456789abcdef0123456789abcdef","sys_created_on":"2015-01-02 03:04:05","sys_updated_on":"2016-02-03 04:05:06","sys_created_by":"legacy","sys_updated_by":"legacy","sys_mod_count":"7"}"#
        )
        let response = try await sim.request(
            "POST", "/api/now/table/incident", query: [("sysparm_suppress_auto_sys_field", "true")], body: body)
        #expect(response.status == 201)
        let record = response.resultObject
        #expect(record["sys_id"] as? String == "0123456789abcdef0123456789abcdef")
        #expect(record["sys_updated_on"] as? String == "2016-02-03 04:05:06")
        #expect(record["sys_updated_by"] as? String == "legacy")
        #expect(record["sys_mod_count"] as? String == "7")
        let patch = try await sim.request(
            "PATCH", "/api/now/table/incident/0123456789abcdef0123456789abcdef",
            query: [("sysparm_suppress_auto_sys_field", "true")], body: json(#"{"description":"x"}"#))
        #expect(patch.resultObject["sys_updated_on"] as? String == "2016-02-03 04:05:06")
        #expect(patch.resultObject["sys_mod_count"] as? String == "7")
        let normal = try await sim.request(
            "PATCH", "/api/now/table/incident/0123456789abcdef0123456789abcdef", body: json(#"{"description":"y"}"#))
        #expect(normal.resultObject["sys_mod_count"] as? String == "8")
        #expect(normal.resultObject["sys_updated_by"] as? String == "admin")
    }

    @Test func inputDisplayValueResolvesReferencesAndChoices() async throws {
        let users = try await sim.request(
            "/api/now/table/sys_user", query: [("sysparm_limit", "1"), ("sysparm_fields", "sys_id,name")])
        let user = try #require(users.resultList.first)
        let name = try #require(user["name"] as? String)
        let response = try await sim.request(
            "POST", "/api/now/table/incident", query: [("sysparm_input_display_value", "true")],
            body: json(#"{"caller_id":"\#(name)","impact":"1 - High"}"#))
        #expect(response.status == 201)
        let caller = response.resultObject["caller_id"] as? [String: String]
        #expect(caller?["value"] == user["sys_id"] as? String)
        #expect(response.resultObject["impact"] as? String == "1")
    }

    @Test func deleteIs204ThenGone() async throws {
        let created = try await sim.request(
            "POST", "/api/now/table/incident", body: json(#"{"short_description":"bye"}"#))
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let deleted = try await sim.request("DELETE", "/api/now/table/incident/\(sysId)")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(try await sim.request("GET", "/api/now/table/incident/\(sysId)").status == 404)
        #expect(try await sim.request("DELETE", "/api/now/table/incident/\(sysId)").status == 404)
    }

    @Test func readOnlyUserGets403OnWrites() async throws {
        let response = try await sim.request(
            "POST", "/api/now/table/incident", body: json(#"{"short_description":"nope"}"#), user: "reader",
            password: "pw")
        #expect(response.status == 403)
        let error = (response.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "Operation Failed")
        #expect(error?["detail"] as? String == "ACL Exception Update Failed due to security constraints")
        #expect(try await sim.request("/api/now/table/incident", user: "reader", password: "pw").status == 200)
    }

    @Test func invalidJSONIs400() async throws {
        let response = try await sim.request("POST", "/api/now/table/incident", body: json("{not json"))
        #expect(response.status == 400)
        #expect((response.json as? [String: Any])?["status"] as? String == "failure")
    }

    @Test func methodOverrideHeaderIsHonoured() async throws {
        let created = try await sim.request(
            "POST", "/api/now/table/incident", body: json(#"{"short_description":"o"}"#))
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let response = try await sim.request(
            "POST", "/api/now/table/incident/\(sysId)", headers: ["X-http-method-override": "DELETE"])
        #expect(response.status == 204)
    }

    @Test func sigtermStopsCleanly() async throws {
        let own = try await NowSimInstance.start()
        #expect(await own.stop() == 0)
    }
}
