import Foundation
import NowSimTesting
import Testing

/// Business rules, notifications and flows as records a pre-flight reads, and the one simulated effect:
/// an active notification queues a `sys_email` row on Table API writes, never on an unload import
/// (docs/table-api.md §11.2).
@Suite(.timeLimit(.minutes(5))) struct SideEffectTests {
    /// This test's own server: the emails one test queues must not meet another's counts.
    let sim: NowSimInstance
    init() async throws {
        sim = try await NowSimInstance.start(arguments: [
            "--seed", "sys_user=10,sys_user_group=3,problem=2,sys_script=7,sysevent_email_action=5,sys_hub_flow=4",
            "--seed-value", "9",
        ])
    }

    private func rows(_ table: String, _ query: String, _ fields: String) async throws -> [[String: String]] {
        try await sim.request(
            "/api/now/table/\(table)",
            query: [("sysparm_query", query), ("sysparm_fields", fields), ("sysparm_limit", "1000")]
        ).resultList.map {
            $0.compactMapValues { value in (value as? String) ?? (value as? [String: Any])?["value"] as? String }
        }
    }

    private func emails(about sysId: String) async throws -> [[String: String]] {
        try await rows(
            "sys_email", "instance=\(sysId)^ORDERBYsubject", "type,mailbox,target_table,instance,subject,notification")
    }

    @Test func theSeededRulesNotificationsAndFlowsReadLikeAnInstances() async throws {
        let rules = try await rows(
            "sys_script", "collection=incident^active=true^action_insert=true", "name,when,action_update")
        #expect(rules.map { $0["name"] } == ["Incident - set caller's company"])
        #expect(try await rows("sys_script", "", "sys_id").count == 7)
        #expect(
            try await rows("sys_script", "active=false", "name").map { $0["name"] } == ["Incident - legacy SLA hook"])

        let notifications = try await rows(
            "sysevent_email_action", "collection=incident^active=true^ORDERBYname",
            "name,action_insert,action_update,generation_type")
        #expect(notifications.map { $0["name"] } == ["Incident assigned to my group", "Incident opened for me"])
        #expect(notifications.allSatisfy { $0["generation_type"] == "engine" })

        let flows = try await rows("sys_hub_flow", "active=true^ORDERBYname", "name,status,remote_trigger_id")
        #expect(flows.map { $0["name"] } == ["Change request review", "Incident triage", "Onboard new user"])
        #expect(flows.allSatisfy { $0["status"] == "published" })
        let triage = try #require(flows.first { $0["name"] == "Incident triage" }?["remote_trigger_id"])
        let trigger = try await rows("sys_flow_record_trigger", "sys_id=\(triage)", "table,on_insert,on_update,active")
        #expect(trigger == [["table": "incident", "on_insert": "true", "on_update": "false", "active": "true"]])
        // The record trigger is a sys_flow_trigger too.
        #expect(try await rows("sys_flow_trigger", "", "sys_id").count == 4)
    }

    @Test func aTableAPIInsertAndUpdateQueueTheActiveNotificationsEmails() async throws {
        let created = try await sim.request(
            "POST", "/api/now/table/incident", body: Data(#"{"short_description":"mail me"}"#.utf8))
        #expect(created.status == 201)
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let afterInsert = try await emails(about: sysId)
        #expect(
            afterInsert.map { $0["subject"] } == [
                "Incident ${number} assigned to your group", "Incident ${number} has been opened on your behalf",
            ])
        #expect(
            afterInsert.allSatisfy {
                $0["type"] == "send-ready" && $0["mailbox"] == "outbox" && $0["target_table"] == "incident"
            })
        let notifications = try await rows("sysevent_email_action", "collection=incident", "sys_id")
        #expect(Set(afterInsert.compactMap { $0["notification"] }) == Set(notifications.compactMap { $0["sys_id"] }))

        let updated = try await sim.request(
            "PATCH", "/api/now/table/incident/\(sysId)", body: Data(#"{"urgency":"1"}"#.utf8))
        #expect(updated.status == 200)
        // Only "assigned to my group" sends on update.
        #expect(try await emails(about: sysId).count == 3)

        // An inactive notification sends nothing: "Problem closed" on problem updates.
        let problem = try #require(try await rows("problem", "", "sys_id").first?["sys_id"])
        let patched = try await sim.request(
            "PATCH", "/api/now/table/problem/\(problem)", body: Data(#"{"short_description":"x"}"#.utf8))
        #expect(patched.status == 200)
        #expect(try await emails(about: problem).isEmpty)
    }

    @Test func anUnloadImportQueuesNoEmail() async throws {
        let sysId = "00aa00aa00aa00aa00aa00aa00aa00aa"
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <unload unload_date="2026-01-01 00:00:00">
            <incident action="INSERT_OR_UPDATE"><sys_id>\(sysId)</sys_id><short_description>imported</short_description></incident>
            </unload>
            """
        for _ in 0..<2 {  // an insert, then an update
            let response = try await sim.request(
                "POST", "/api/nowsim/import", headers: ["Content-Type": "application/xml"], body: Data(document.utf8))
            #expect(response.status == 200)
        }
        #expect(try await rows("incident", "sys_id=\(sysId)", "sys_id").count == 1)
        #expect(try await emails(about: sysId).isEmpty)
    }

    @Test func aBatchItemQueuesEmailsToo() async throws {
        let body = Data(#"{"user_name":"new.starter","name":"New Starter"}"#.utf8).base64EncodedString()
        let request =
            #"{"batch_request_id":"b","rest_requests":[{"id":"1","method":"POST","url":"/api/now/table/sys_user","#
            + #""body":"\#(body)","headers":[{"name":"Content-Type","value":"application/json"}]}]}"#
        let response = try await sim.request("POST", "/api/now/v1/batch", body: Data(request.utf8))
        #expect(response.status == 200)
        let user = try #require(try await rows("sys_user", "user_name=new.starter", "sys_id").first?["sys_id"])
        #expect(try await emails(about: user).map { $0["subject"] } == ["Welcome to the service desk"])
    }
}
