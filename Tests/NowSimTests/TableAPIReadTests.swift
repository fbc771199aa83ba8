import Foundation
import NowSimTesting
import Testing

/// Reads through the Table API of a real nowsim process (ref §1–§3).
@Suite(.timeLimit(.minutes(5))) struct TableAPIReadTests {
    let sim: NowSimInstance
    init() async throws { sim = try await SharedNowSim.get() }

    @Test func listReturnsResultArrayWithStringValuesAndTotalCount() async throws {
        let response = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "5")])
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let rows = response.resultList
        #expect(rows.count == 5)
        #expect(response.header("X-Total-Count") == "1500")
        for row in rows {
            #expect((row["number"] as? String)?.hasPrefix("INC") == true)
            #expect((row["sys_id"] as? String)?.count == 32)
            for (key, value) in row {
                // Every value is a string, or a reference object {link, value}.
                if let object = value as? [String: Any] {
                    #expect(Set(object.keys) == ["link", "value"], "field \(key)")
                } else {
                    #expect(value is String, "field \(key) is \(type(of: value))")
                }
            }
        }
    }

    @Test func defaultLimitIs10000AndOffsetPages() async throws {
        let all = try await sim.request("/api/now/table/incident", query: [("sysparm_fields", "sys_id")])
        #expect(all.resultList.count == 1500)
        let page = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_fields", "sys_id"), ("sysparm_query", "ORDERBYnumber"), ("sysparm_limit", "100"),
                ("sysparm_offset", "1450"),
            ])
        #expect(page.resultList.count == 50)
    }

    @Test func unorderedResultsAreNotSortedBySysId() async throws {
        let response = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_fields", "sys_id"), ("sysparm_limit", "200")])
        let ids = response.resultList.compactMap { $0["sys_id"] as? String }
        #expect(ids.count == 200)
        #expect(ids != ids.sorted(), "a client that forgets ORDERBY must not get sys_id order for free")
    }

    @Test func keysetPagingVisitsEveryRowOnce() async throws {
        var last = ""
        var seen: [String] = []
        while true {
            let filter = last.isEmpty ? "ORDERBYsys_id" : "sys_id>\(last)^ORDERBYsys_id"
            let response = try await sim.request(
                "/api/now/table/incident",
                query: [
                    ("sysparm_query", filter), ("sysparm_fields", "sys_id"), ("sysparm_limit", "400"),
                    ("sysparm_suppress_pagination_header", "true"), ("sysparm_no_count", "true"),
                ])
            #expect(response.header("Link") == nil)
            #expect(response.header("X-Total-Count") == nil)
            let ids = response.resultList.compactMap { $0["sys_id"] as? String }
            if ids.isEmpty { break }
            seen += ids
            last = ids.last!
        }
        #expect(seen.count == 1500)
        #expect(Set(seen).count == 1500)
        #expect(seen == seen.sorted())
    }

    @Test func sysparmFieldsSelectsDotWalksAndIgnoresUnknown() async throws {
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_fields", "number,caller_id.name,caller_id.user_name,no_such_field"),
                ("sysparm_query", "caller_idISNOTEMPTY"), ("sysparm_limit", "3"),
            ])
        #expect(response.status == 200)
        for row in response.resultList {
            #expect(Set(row.keys) == ["number", "caller_id.name", "caller_id.user_name"])
            #expect((row["caller_id.name"] as? String)?.isEmpty == false)
        }
    }

    @Test func versionedPathsDifferOnlyOnEmptyLists() async throws {
        let none = [("sysparm_query", "number=NOPE")]
        let latest = try await sim.request("/api/now/table/incident", query: none)
        #expect(latest.status == 200)
        #expect(String(decoding: latest.body, as: UTF8.self) == #"{"result":[]}"#)
        let v2 = try await sim.request("/api/now/v2/table/incident", query: none)
        #expect(v2.status == 200)
        let v1 = try await sim.request("/api/now/v1/table/incident", query: none)
        #expect(v1.status == 404)
        let error = (v1.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "No Record found")
        let v1Rows = try await sim.request("/api/now/v1/table/incident", query: [("sysparm_limit", "1")])
        #expect(v1Rows.status == 200)
        #expect(v1Rows.resultList.count == 1)
    }

    @Test func readBySysIdAndMissingRecord() async throws {
        let list = try await sim.request("/api/now/table/problem", query: [("sysparm_limit", "1")])
        let sysId = try #require(list.resultList.first?["sys_id"] as? String)
        let one = try await sim.request("/api/now/table/problem/\(sysId)")
        #expect(one.status == 200)
        #expect(one.resultObject["sys_id"] as? String == sysId)
        // The same record through its parent table, but not through a sibling.
        #expect(try await sim.request("/api/now/table/task/\(sysId)").status == 200)
        let sibling = try await sim.request("/api/now/table/incident/\(sysId)")
        #expect(sibling.status == 404)
        let error = (sibling.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "No Record found")
        #expect(error?["detail"] as? String == "Record doesn't exist or ACL restricts the record retrieval")
    }

    @Test func unknownTableIs400InvalidTable() async throws {
        let response = try await sim.request("/api/now/table/u_no_such_table")
        #expect(response.status == 400)
        let body = response.json as? [String: Any]
        let error = body?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "Invalid table u_no_such_table")
        #expect(error?["detail"] as? String == "Table u_no_such_table does not exist")
        #expect(body?["status"] as? String == "failure")
    }

    @Test func unknownPathIs400() async throws {
        let response = try await sim.request("/api/now/nothing/here")
        #expect(response.status == 400)
        let error = (response.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "Requested URI does not represent any resource")
    }

    @Test(arguments: [
        (user: nil as String?, password: ""), (user: "admin", password: "wrong"), (user: "nobody", password: "admin"),
    ])
    func missingOrWrongCredentialsAre401(user: String?, password: String) async throws {
        let response = try await sim.request("/api/now/table/incident", user: user, password: password)
        #expect(response.status == 401)
        let error = (response.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "User Not Authenticated")
        #expect(error?["detail"] as? String == "Required to provide Auth information")
    }

    @Test func headAnswersHeadersWithoutBody() async throws {
        let response = try await sim.request("HEAD", "/api/now/table/incident", query: [("sysparm_limit", "2")])
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.header("X-Total-Count") == "1500")
    }

    @Test func linkHeaderHasExactFormat() async throws {
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", "active=true^ORDERBYnumber"), ("sysparm_fields", "number"),
                ("sysparm_offset", "20"), ("sysparm_limit", "10"),
            ])
        let total = try #require(Int(response.header("X-Total-Count") ?? ""))
        let link = try #require(response.header("Link"))
        let prefix =
            "\(sim.baseURL)/api/now/table/incident?sysparm_query=active%3Dtrue%5EORDERBYnumber&sysparm_fields=number&"
        let last = ((total - 1) / 10) * 10
        #expect(
            link
                == "<\(prefix)sysparm_offset=0&sysparm_limit=10>;rel=\"first\","
                + "<\(prefix)sysparm_offset=10&sysparm_limit=10>;rel=\"prev\","
                + "<\(prefix)sysparm_offset=30&sysparm_limit=10>;rel=\"next\","
                + "<\(prefix)sysparm_offset=\(last)&sysparm_limit=10>;rel=\"last\"")
        let first = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_fields", "number"), ("sysparm_limit", "10")])
        #expect(first.header("Link")?.contains("rel=\"prev\"") == false)
    }

    @Test func nameValuePairsFilterLikeAQuery() async throws {
        let pairs = try await sim.request(
            "/api/now/table/incident", query: [("active", "true"), ("priority", "1"), ("sysparm_fields", "sys_id")])
        let query = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "active=true^priority=1"), ("sysparm_fields", "sys_id")])
        #expect(pairs.header("X-Total-Count") == query.header("X-Total-Count"))
        #expect(pairs.resultList.count > 0)
    }

    @Test func unknownQueryFieldIsIgnoredByDefault() async throws {
        let response = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "no_such_field=1"), ("sysparm_limit", "1")])
        #expect(response.status == 200)
        #expect(response.header("X-Total-Count") == "1500")
    }
}
