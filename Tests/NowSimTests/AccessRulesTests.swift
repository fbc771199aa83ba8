import Foundation
import NowSim
import NowSimTesting
import Testing

/// Table read ACLs by role and row conditions by user (`--table-acl`, `--row-acl`).
@Suite(.timeLimit(.minutes(5))) struct AccessRulesTests {
    static let insufficientRights =
        #"{"error":{"message":"Insufficient rights to query records","detail":null},"status":"failure"}"#

    static let arguments = [
        "--seed", "incident=60,problem=8",
        "--user", "admin:admin:admin", "--user", "reader:pw:snc_read_only", "--user", "agent:pw:itil",
        "--user", "narrow:pw:itil",
        // A rule on task covers incident; the more specific rule on problem decides for problem.
        "--table-acl", "task=itil", "--table-acl", "problem=problem_manager",
        "--row-acl", "narrow:incident:priority=1",
    ]

    @Test func specificationsParse() throws {
        let table = try AccessRules.TableRule(parsing: "incident=itil+sn_incident_read")
        #expect(table == AccessRules.TableRule(table: "incident", roles: ["itil", "sn_incident_read"]))
        for bad in ["incident", "=itil", "incident=", "incident=itil+"] {
            #expect(throws: AccessRules.ParseError.self) { try AccessRules.TableRule(parsing: bad) }
        }
        let row = try AccessRules.RowRule(parsing: "etl:incident:sys_created_on>javascript:gs.daysAgoStart(7)")
        #expect(row.userName == "etl" && row.table == "incident")
        #expect(row.query == "sys_created_on>javascript:gs.daysAgoStart(7)")
        for bad in ["etl:incident", "etl::active=true", ":incident:active=true", "etl:incident:"] {
            #expect(throws: AccessRules.ParseError.self) { try AccessRules.RowRule(parsing: bad) }
        }
        let parsed = try NowSimArguments.parse([
            "serve", "--table-acl", "incident=itil", "--row-acl", "etl:incident:active=true",
        ])
        guard case .serve(let options) = parsed else {
            Issue.record("not serve: \(parsed)")
            return
        }
        #expect(options.tableACLs == ["incident=itil"] && options.rowACLs == ["etl:incident:active=true"])
        #expect(NowSimArguments.usage.contains("--table-acl") && NowSimArguments.usage.contains("--row-acl"))
    }

    @Test func aRuleOnAnUnknownTableIsAUsageError() async throws {
        let failure = await #expect(throws: NowSimStartFailure.self) {
            _ = try await NowSimInstance.start(arguments: ["--table-acl", "incidnet=itil"])
        }
        #expect(failure?.description.contains("exited with 64") == true)
        #expect(failure?.description.contains("unknown table 'incidnet'") == true)
    }

    @Test(arguments: [
        ("etl:incident:priorty=1", "unknown field 'priorty' on table 'incident'"),
        ("etl:incident:active=true^caller_id.nmae=Bob", "unknown field 'caller_id.nmae' on table 'incident'"),
        ("etl:incident:priority=1^ORassignment_grp=x", "unknown field 'assignment_grp' on table 'incident'"),
        ("etl:incident:opened_atGT_FIELDclosed_on", "unknown field 'closed_on' on table 'incident'"),
    ])
    func aRowRuleOnAnUnknownFieldIsAUsageError(rule: String, message: String) async throws {
        let failure = await #expect(throws: NowSimStartFailure.self) {
            _ = try await NowSimInstance.start(arguments: ["--row-acl", rule])
        }
        #expect(failure?.description.contains("exited with 64") == true)
        #expect(
            failure?.description.contains("row ACL '\(rule)': \(message)") == true, "\(String(describing: failure))")
    }

    @Test func aRowRuleMayNameInheritedAndDotWalkedFields() async throws {
        // number is task's, caller_id.name walks to sys_user: both fine on incident.
        try await withNowSim(arguments: [
            "--seed", "incident=5", "--user", "etl:pw:itil",
            "--row-acl", "etl:incident:numberSTARTSWITHINC^caller_id.nameISNOTEMPTY^ORDERBYnumber",
        ]) { sim in
            let list = try await sim.request("/api/now/table/incident", user: "etl", password: "pw")
            #expect(list.status == 200)
        }
    }

    @Test func aRoleWithoutReadRightsGets403WithTheInstanceEnvelope() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let someIncident = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
        let sysId = try #require(someIncident.resultList.first?["sys_id"] as? String)
        for (path, query) in [
            ("/api/now/table/incident", [("sysparm_limit", "5")]),
            ("/api/now/table/incident/\(sysId)", []),
            ("/api/now/stats/incident", [("sysparm_count", "true")]),
            ("/api/now/table/task", []),
        ] {
            let denied = try await sim.request(path, query: query, user: "reader", password: "pw")
            #expect(denied.status == 403, "\(path)")
            #expect(String(decoding: denied.body, as: UTF8.self) == Self.insufficientRights, "\(path)")
        }
        // itil reads task's children, but problem's own rule wants problem_manager.
        let agent = try await sim.request("/api/now/table/incident", user: "agent", password: "pw")
        #expect(agent.status == 200 && agent.resultList.count == 60)
        let problem = try await sim.request("/api/now/table/problem", user: "agent", password: "pw")
        #expect(problem.status == 403)
        // Tables without a rule stay open; admin reads everything.
        #expect(try await sim.request("/api/now/table/sys_user", user: "reader", password: "pw").status == 200)
        #expect(try await sim.request("/api/now/table/problem").status == 200)
    }

    @Test func aRowConditionHidesRowsAfterTheLimitAndCountsIncludeThem() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let visible = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "priority=1"), ("sysparm_fields", "sys_id")])
        let visibleIds = Set(visible.resultList.compactMap { $0["sys_id"] as? String })
        #expect(!visibleIds.isEmpty && visibleIds.count < 60)

        var seen: [String] = []
        var shortPages = 0
        for offset in stride(from: 0, to: 60, by: 10) {
            let page = try await sim.request(
                "/api/now/table/incident",
                query: [
                    ("sysparm_limit", "10"), ("sysparm_offset", String(offset)), ("sysparm_fields", "sys_id,priority"),
                ],
                user: "narrow", password: "pw")
            #expect(page.status == 200)
            // Counted before the row ACL, as an instance counts before ACLs.
            #expect(page.header("X-Total-Count") == "60")
            #expect(page.resultList.allSatisfy { $0["priority"] as? String == "1" })
            if page.resultList.count < 10 { shortPages += 1 }
            seen += page.resultList.compactMap { $0["sys_id"] as? String }
        }
        #expect(Set(seen) == visibleIds && seen.count == visibleIds.count)
        #expect(shortPages > 0)

        let stats = try await sim.request(
            "/api/now/stats/incident", query: [("sysparm_count", "true")], user: "narrow", password: "pw")
        let count =
            (((stats.json as? [String: Any])?["result"] as? [String: Any])?["stats"] as? [String: Any])?[
                "count"] as? String
        #expect(count == "60")

        // A hidden record reads as absent; a visible one reads.
        let all = try await sim.request("/api/now/table/incident", query: [("sysparm_fields", "sys_id")])
        let hidden = try #require(
            all.resultList.compactMap { $0["sys_id"] as? String }.first { !visibleIds.contains($0) })
        let shown = try #require(visibleIds.first)
        let hiddenRead = try await sim.request("/api/now/table/incident/\(hidden)", user: "narrow", password: "pw")
        #expect(hiddenRead.status == 404)
        let shownRead = try await sim.request("/api/now/table/incident/\(shown)", user: "narrow", password: "pw")
        #expect(shownRead.status == 200)
        // The rule is narrow's alone.
        let agent = try await sim.request("/api/now/table/incident/\(hidden)", user: "agent", password: "pw")
        #expect(agent.status == 200)
    }

    /// A range-bounded keyset page (`sys_id>=LOW^sys_id<HIGH^sys_id>CURSOR`, the extractor's) asked
    /// without `sysparm_no_count` counts the whole rest of the range before row ACLs, whatever
    /// `sysparm_limit` says: what lets a client end a range on its last page.
    @Test func aBoundedKeysetPageCountsTheRestOfTheRangeBeforeRowRules() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let everything = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "ORDERBYsys_id"), ("sysparm_fields", "sys_id,priority")])
        let all = everything.resultList.compactMap { $0["sys_id"] as? String }
        try #require(all.count == 60)
        let (low, cursor, high) = (all[5], all[10], all[40])
        let query = "sys_id>=\(low)^sys_id<\(high)^sys_id>\(cursor)^ORDERBYsys_id"
        let page = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", query), ("sysparm_limit", "7"), ("sysparm_fields", "sys_id")],
            user: "narrow", password: "pw")
        #expect(page.status == 200)
        #expect(page.header("X-Total-Count") == "29", "all[11..<40], hidden ones included")
        let visible = Set(
            everything.resultList.filter { $0["priority"] as? String == "1" }.compactMap { $0["sys_id"] as? String })
        let ids = page.resultList.compactMap { $0["sys_id"] as? String }
        #expect(ids == all[11..<18].filter(visible.contains), "the first 7 records, then the row rule")
    }

    @Test func readingThroughTheParentTableAppliesEachClassesRules() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let problems = try await sim.request("/api/now/table/problem", query: [("sysparm_fields", "sys_id")])
        let problemId = try #require(problems.resultList.first?["sys_id"] as? String)
        #expect(problems.resultList.count == 8)

        // agent reads task (itil) but not problem (problem_manager): problem rows are hidden from task.
        let asked = try await sim.request(
            "/api/now/table/task", query: [("sysparm_query", "sys_class_name=problem")], user: "agent", password: "pw")
        #expect(asked.status == 200 && asked.resultList.isEmpty)
        #expect(asked.header("X-Total-Count") == "8", "counted before ACLs")
        let agentTask = try await sim.request(
            "/api/now/table/task", query: [("sysparm_fields", "sys_class_name")], user: "agent", password: "pw")
        #expect(agentTask.resultList.count == 60)
        #expect(agentTask.resultList.allSatisfy { $0["sys_class_name"] as? String == "incident" })
        let problemRead = try await sim.request("/api/now/table/task/\(problemId)", user: "agent", password: "pw")
        #expect(problemRead.status == 404)
        #expect(try await sim.request("/api/now/table/task/\(problemId)").status == 200, "admin reads it")

        // narrow's row rule on incident holds when incidents are read as tasks.
        let visible = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "priority=1"), ("sysparm_fields", "sys_id")])
        let visibleIds = Set(visible.resultList.compactMap { $0["sys_id"] as? String })
        let narrowTask = try await sim.request(
            "/api/now/table/task", query: [("sysparm_fields", "sys_id,sys_class_name")], user: "narrow",
            password: "pw")
        #expect(narrowTask.status == 200 && narrowTask.header("X-Total-Count") == "68")
        #expect(Set(narrowTask.resultList.compactMap { $0["sys_id"] as? String }) == visibleIds)
        let all = try await sim.request("/api/now/table/incident", query: [("sysparm_fields", "sys_id")])
        let hidden = try #require(
            all.resultList.compactMap { $0["sys_id"] as? String }.first { !visibleIds.contains($0) })
        let shown = try #require(visibleIds.first)
        #expect(try await sim.request("/api/now/table/task/\(hidden)", user: "narrow", password: "pw").status == 404)
        #expect(try await sim.request("/api/now/table/task/\(shown)", user: "narrow", password: "pw").status == 200)
    }

    @Test func writesNeitherFindNorEchoWhatTheCallerMayNotRead() async throws {
        // Writes change the server: this test has one of its own.
        try await withNowSim(arguments: Self.arguments) { sim in
            let empty = Data("{}".utf8)
            let problems = try await sim.request("/api/now/table/problem", query: [("sysparm_fields", "sys_id")])
            let problemId = try #require(problems.resultList.first?["sys_id"] as? String)
            func modCount(_ path: String) async throws -> String? {
                try await sim.request(path).resultObject["sys_mod_count"] as? String
            }
            let problemCount = try await modCount("/api/now/table/problem/\(problemId)")

            // agent may write problem (itil) but not read it: no echo, nothing found through task.
            let patched = try await sim.request(
                "PATCH", "/api/now/table/problem/\(problemId)", body: empty, user: "agent", password: "pw")
            #expect(patched.status == 403)
            #expect(String(decoding: patched.body, as: UTF8.self) == Self.insufficientRights)
            let throughTask = try await sim.request(
                "PATCH", "/api/now/table/task/\(problemId)", body: empty, user: "agent", password: "pw")
            #expect(throughTask.status == 404)
            #expect(try await modCount("/api/now/table/problem/\(problemId)") == problemCount, "nothing written")
            let created = try await sim.request(
                "POST", "/api/now/table/problem", body: Data(#"{"short_description":"made by agent"}"#.utf8),
                user: "agent", password: "pw")
            #expect(created.status == 201 && created.header("Location") != nil)
            #expect(String(decoding: created.body, as: UTF8.self) == #"{"result":{}}"#)

            // narrow's row rule: a hidden incident is not found by PATCH or DELETE, and stays as it was.
            let hidden = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_query", "priority!=1"), ("sysparm_fields", "sys_id")])
            let hiddenId = try #require(hidden.resultList.first?["sys_id"] as? String)
            let hiddenCount = try await modCount("/api/now/table/incident/\(hiddenId)")
            let hiddenPatch = try await sim.request(
                "PATCH", "/api/now/table/incident/\(hiddenId)", body: Data(#"{"short_description":"x"}"#.utf8),
                user: "narrow", password: "pw")
            #expect(hiddenPatch.status == 404)
            #expect(hiddenPatch.resultObject.isEmpty)
            let hiddenDelete = try await sim.request(
                "DELETE", "/api/now/table/incident/\(hiddenId)", user: "narrow", password: "pw")
            #expect(hiddenDelete.status == 404)
            let after = try await sim.request("/api/now/table/incident/\(hiddenId)")
            #expect(after.status == 200 && after.resultObject["sys_mod_count"] as? String == hiddenCount)

            // A visible incident is written and echoed in full.
            let shown = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_query", "priority=1"), ("sysparm_fields", "sys_id")])
            let shownId = try #require(shown.resultList.first?["sys_id"] as? String)
            let shownPatch = try await sim.request(
                "PATCH", "/api/now/table/incident/\(shownId)", body: Data(#"{"short_description":"seen"}"#.utf8),
                user: "narrow", password: "pw")
            #expect(shownPatch.status == 200 && shownPatch.resultObject["short_description"] as? String == "seen")
            let shownDelete = try await sim.request(
                "DELETE", "/api/now/table/incident/\(shownId)", user: "narrow", password: "pw")
            #expect(shownDelete.status == 204)
        }
    }

    @Test func aggregateValuesCoverOnlyVisibleRowsButCountsAllOfAGroup() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        func result(_ response: NowSimTesting.NowSimInstance.Response) -> Any? {
            (response.json as? [String: Any])?["result"]
        }
        func groups(_ response: NowSimTesting.NowSimInstance.Response) -> [String: String] {
            var counts: [String: String] = [:]
            for group in result(response) as? [[String: Any]] ?? [] {
                let value = ((group["groupby_fields"] as? [[String: Any]])?.first?["value"] as? String) ?? "?"
                counts[value] = (group["stats"] as? [String: Any])?["count"] as? String
            }
            return counts
        }
        let priorityOne = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "priority=1"), ("sysparm_fields", "sys_id")])
        let grouped = [("sysparm_count", "true"), ("sysparm_group_by", "priority")]
        let allGroups = groups(try await sim.request("/api/now/stats/incident", query: grouped))
        #expect(allGroups.count > 1)
        let narrowGroups = groups(
            try await sim.request("/api/now/stats/incident", query: grouped, user: "narrow", password: "pw"))
        #expect(narrowGroups == ["1": String(priorityOne.resultList.count)])

        let maxQuery = [("sysparm_max_fields", "priority"), ("sysparm_min_fields", "priority")]
        let narrowStats = result(
            try await sim.request("/api/now/stats/incident", query: maxQuery, user: "narrow", password: "pw"))
        let stats = (narrowStats as? [String: Any])?["stats"] as? [String: Any]
        #expect((stats?["max"] as? [String: Any])?["priority"] as? String == "1")
        #expect((stats?["min"] as? [String: Any])?["priority"] as? String == "1")
        let adminStats =
            (result(try await sim.request("/api/now/stats/incident", query: maxQuery)) as? [String: Any])?[
                "stats"] as? [String: Any]
        #expect((adminStats?["max"] as? [String: Any])?["priority"] as? String != "1")

        // Through task, agent's problem rows are no group of its own; narrow sees incident's priority 1 only.
        let byClass = [("sysparm_count", "true"), ("sysparm_group_by", "sys_class_name")]
        let adminByClass: [String: String] = groups(try await sim.request("/api/now/stats/task", query: byClass))
        #expect(adminByClass == ["incident": "60", "problem": "8"])
        let agentByClass: [String: String] = groups(
            try await sim.request("/api/now/stats/task", query: byClass, user: "agent", password: "pw"))
        #expect(agentByClass == ["incident": "60"])
        let narrowTask = result(
            try await sim.request("/api/now/stats/task", query: maxQuery, user: "narrow", password: "pw"))
        let narrowTaskStats = (narrowTask as? [String: Any])?["stats"] as? [String: Any]
        #expect((narrowTaskStats?["max"] as? [String: Any])?["priority"] as? String == "1")
    }
}
