import Foundation
import NowSimTesting
import Testing

/// The Aggregate API, the Batch API and OAuth over HTTP (ref §6, §7.1, §7.2).
@Suite(.timeLimit(.minutes(5))) struct CompanionAPITests {
    let sim: NowSimInstance
    init() async throws { sim = try await SharedNowSim.get() }

    @Test func statsCountMatchesTheTableAPI() async throws {
        let stats = try await sim.request(
            "/api/now/stats/incident", query: [("sysparm_count", "true"), ("sysparm_query", "active=true")])
        #expect(stats.status == 200)
        let count = ((stats.json as? [String: Any])?["result"] as? [String: Any])?["stats"] as? [String: Any]
        let list = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "active=true"), ("sysparm_limit", "1")])
        #expect(count?["count"] as? String == list.header("X-Total-Count"))
        let v1 = try await sim.request("/api/now/v1/stats/incident", query: [("sysparm_count", "true")])
        #expect(String(decoding: v1.body, as: UTF8.self) == #"{"result":{"stats":{"count":"1500"}}}"#)
    }

    @Test func statsMinMaxAvgSum() async throws {
        let stats = try await sim.request(
            "/api/now/stats/incident",
            query: [
                ("sysparm_min_fields", "sys_created_on,priority"), ("sysparm_max_fields", "priority"),
                ("sysparm_avg_fields", "priority"), ("sysparm_sum_fields", "priority"), ("sysparm_count", "true"),
            ])
        let body = try #require(
            ((stats.json as? [String: Any])?["result"] as? [String: Any])?["stats"] as? [String: Any])
        let min = try #require(body["min"] as? [String: String])
        #expect(min["priority"] == "1")
        #expect(min["sys_created_on"]?.count == 19)
        #expect((body["max"] as? [String: String])?["priority"] == "5")
        let average = try #require((body["avg"] as? [String: String])?["priority"])
        #expect(average.range(of: #"^\d\.\d{4}$"#, options: .regularExpression) != nil)
        let sum = try #require(Int((body["sum"] as? [String: String])?["priority"] ?? ""))
        #expect(sum >= 1500 && sum <= 7500)
    }

    @Test func statsGroupByWithDisplayValues() async throws {
        let stats = try await sim.request(
            "/api/now/stats/incident",
            query: [("sysparm_count", "true"), ("sysparm_group_by", "priority"), ("sysparm_display_value", "true")])
        let groups = try #require((stats.json as? [String: Any])?["result"] as? [[String: Any]])
        #expect(groups.count == 5)
        var total = 0
        for group in groups {
            total += Int(((group["stats"] as? [String: String])?["count"]) ?? "") ?? 0
            let field = try #require((group["groupby_fields"] as? [[String: String]])?.first)
            #expect(field["field"] == "priority")
            #expect(field["display_value"]?.hasPrefix(field["value"] ?? "?") == true)
        }
        #expect(total == 1500)
        let having = try await sim.request(
            "/api/now/stats/incident",
            query: [
                ("sysparm_count", "true"), ("sysparm_group_by", "priority"),
                ("sysparm_having", "count^priority^>^100000"),
            ])
        #expect(String(decoding: having.body, as: UTF8.self) == #"{"result":[]}"#)
    }

    @Test func oauthPasswordGrantThenBearerThenRefresh() async throws {
        func tokenRequest(_ form: String) async throws -> NowSimInstance.Response {
            try await sim.request(
                "POST", "/oauth_token.do", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(form.utf8), user: nil)
        }
        let granted = try await tokenRequest(
            "grant_type=password&client_id=nowsim&client_secret=nowsim&username=admin&password=admin")
        #expect(granted.status == 200)
        let token = try #require(granted.json as? [String: Any])
        let access = try #require(token["access_token"] as? String)
        let refresh = try #require(token["refresh_token"] as? String)
        #expect(token["token_type"] as? String == "Bearer")
        #expect(token["scope"] as? String == "useraccount")
        #expect((token["expires_in"] as? Int ?? 0) > 1000)

        let list = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_limit", "1")], headers: ["Authorization": "Bearer \(access)"],
            user: nil)
        #expect(list.status == 200)
        let bad = try await sim.request(
            "/api/now/table/incident", headers: ["Authorization": "Bearer nope"], user: nil)
        #expect(bad.status == 401)

        let refreshed = try await tokenRequest(
            "grant_type=refresh_token&client_id=nowsim&client_secret=nowsim&refresh_token=\(refresh)")
        #expect(refreshed.status == 200)
        #expect((refreshed.json as? [String: Any])?["access_token"] is String)

        let denied = try await tokenRequest(
            "grant_type=password&client_id=nowsim&client_secret=wrong&username=admin&password=admin")
        #expect(denied.status == 401)
        #expect((denied.json as? [String: String]) == ["error_description": "access_denied", "error": "server_error"])

        let machine = try await tokenRequest("grant_type=client_credentials&client_id=nowsim&client_secret=nowsim")
        #expect(machine.status == 200)
    }

    @Test func batchRunsTableRequestsAsTheCaller() async throws {
        let body = #"""
            {"batch_request_id":"b1","rest_requests":[
              {"id":"one","method":"GET","url":"/api/now/table/incident?sysparm_limit=2&sysparm_fields=number",
               "headers":[{"name":"Accept","value":"application/json"}]},
              {"id":"two","method":"GET","url":"/api/now/table/u_missing"}]}
            """#
        let response = try await sim.request("POST", "/api/now/v1/batch", body: Data(body.utf8))
        #expect(response.status == 200)
        let object = try #require(response.json as? [String: Any])
        #expect(object["batch_request_id"] as? String == "b1")
        let served = try #require(object["serviced_requests"] as? [[String: Any]])
        #expect(served.count == 2)
        let one = try #require(served.first { $0["id"] as? String == "one" })
        #expect(one["status_code"] as? Int == 200)
        let inner = try #require(Data(base64Encoded: one["body"] as? String ?? ""))
        let rows = (try JSONSerialization.jsonObject(with: inner) as? [String: Any])?["result"] as? [[String: Any]]
        #expect(rows?.count == 2)
        let two = try #require(served.first { $0["id"] as? String == "two" })
        #expect(two["status_code"] as? Int == 400)
    }
}
