import Foundation
import NowQuery
import NowSimTesting
import Testing

/// Journal fields and field history as an instance keeps them: writes of `work_notes`/`comments`
/// become `sys_journal_field` entries (the field itself reads `""`, its display value the rendered
/// entries), and writes to audited tables leave `sys_audit` rows (docs/nowsim-records.md).
@Suite(.timeLimit(.minutes(5))) struct JournalAuditTests {
    let sim: NowSimTesting.NowSimInstance
    init() async throws {
        sim = try await WritableNowSim.start(incidents: 3, value: 9)
    }

    private func json(_ object: [String: String]) throws -> Data { try JSONSerialization.data(withJSONObject: object) }

    private func entries(of record: String) async throws -> [[String: Any]] {
        let list = try await sim.request(
            "/api/now/table/sys_journal_field",
            query: [("sysparm_query", "element_id=\(record)^ORDERBYsys_created_on^ORDERBYvalue")])
        #expect(list.status == 200)
        return list.resultList
    }

    private func audit(of record: String) async throws -> [[String: Any]] {
        let list = try await sim.request(
            "/api/now/table/sys_audit", query: [("sysparm_query", "documentkey=\(record)^ORDERBYfieldname")])
        #expect(list.status == 200)
        return list.resultList
    }

    @Test func aJournalWriteAddsAnEntryAndTheFieldReadsEmpty() async throws {
        let before = TableAPIDateFormat.string(from: Date())
        let created = try await sim.request(
            "POST", "/api/now/table/incident",
            body: try json(["short_description": "VPN drops", "work_notes": "first note", "comments": ""]))
        let after = TableAPIDateFormat.string(from: Date())
        #expect(created.status == 201)
        #expect(created.resultObject["work_notes"] as? String == "")
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let first = try await entries(of: sysId)
        #expect(first.count == 1)
        let entry = try #require(first.first)
        #expect(entry["name"] as? String == "incident")
        #expect(entry["element"] as? String == "work_notes")
        #expect(entry["element_id"] as? String == sysId)
        #expect(entry["value"] as? String == "first note")
        #expect(entry["sys_created_by"] as? String == "admin")
        let createdOn = try #require(entry["sys_created_on"] as? String)
        #expect(createdOn >= before && createdOn <= after)

        // An update through task, with only a journal field: the record is bumped, the entry added.
        let patched = try await sim.request(
            "PATCH", "/api/now/table/task/\(sysId)", body: try json(["comments": "Hello, caller", "work_notes": " "]))
        #expect(patched.status == 200)
        #expect(patched.resultObject["sys_mod_count"] as? String == "1")
        #expect(patched.resultObject["comments"] as? String == "")
        let second = try await entries(of: sysId)
        #expect(second.count == 2)
        #expect(second.contains { $0["element"] as? String == "comments" && $0["value"] as? String == "Hello, caller" })

        // Display mode renders the entries, newest first, with the author's name and the field's label.
        let users = try await sim.request(
            "/api/now/table/sys_user", query: [("sysparm_query", "user_name=admin"), ("sysparm_fields", "name")])
        let adminName = (users.resultList.first?["name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "admin"
        let shown = try await sim.request(
            "/api/now/table/incident/\(sysId)",
            query: [("sysparm_display_value", "all"), ("sysparm_fields", "work_notes,comments")])
        let workNotes = try #require(shown.resultObject["work_notes"] as? [String: Any])
        #expect(workNotes["value"] as? String == "")
        #expect(workNotes["display_value"] as? String == "\(createdOn) - \(adminName) (Work notes)\nfirst note\n\n")
        let comments = try #require(shown.resultObject["comments"] as? [String: Any])
        #expect(
            (comments["display_value"] as? String)?.hasSuffix(
                " - \(adminName) (Additional comments)\nHello, caller\n\n") == true)
    }

    @Test func entriesInsertedWithSuppressedSystemFieldsKeepTheirAuthorAndTime() async throws {
        let list = try await sim.request("/api/now/table/incident", query: [("sysparm_fields", "sys_id,sys_mod_count")])
        let record = try #require(list.resultList.first?["sys_id"] as? String)
        let modCount = try #require(list.resultList.first?["sys_mod_count"] as? String)
        let entries: [[String: String]] = [
            [
                "sys_id": "00000000000000000000000000000a01", "name": "incident", "element": "comments",
                "element_id": record, "value": "older", "sys_created_on": "2021-02-03 04:05:06",
                "sys_created_by": "joe.employee",
            ],
            [
                "sys_id": "00000000000000000000000000000a02", "name": "incident", "element": "comments",
                "element_id": record, "value": "newer", "sys_created_on": "2021-02-03 05:00:00",
                "sys_created_by": "joe.employee",
            ],
        ]
        for entry in entries {
            let written = try await sim.request(
                "POST", "/api/now/table/sys_journal_field", query: [("sysparm_suppress_auto_sys_field", "true")],
                body: try json(entry))
            #expect(written.status == 201)
            #expect(written.resultObject["sys_id"] as? String == entry["sys_id"])
            #expect(written.resultObject["sys_created_by"] as? String == "joe.employee")
            #expect(written.resultObject["sys_created_on"] as? String == entry["sys_created_on"])
        }
        let shown = try await sim.request(
            "/api/now/table/incident/\(record)",
            query: [("sysparm_display_value", "true"), ("sysparm_fields", "comments")])
        #expect(
            shown.resultObject["comments"] as? String
                == "2021-02-03 05:00:00 - joe.employee (Additional comments)\nnewer\n\n"
                + "2021-02-03 04:05:06 - joe.employee (Additional comments)\nolder\n\n")
        // Writing the entries did not write the record.
        let record2 = try await sim.request(
            "/api/now/table/incident/\(record)", query: [("sysparm_fields", "sys_mod_count")])
        #expect(record2.resultObject["sys_mod_count"] as? String == modCount)
    }

    @Test func updatesOfAuditedTablesLeaveOneRowPerChangedField() async throws {
        let created = try await sim.request(
            "POST", "/api/now/table/incident", body: try json(["short_description": "Printer jam", "urgency": "3"]))
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let inserted = try await audit(of: sysId)
        #expect(
            inserted.contains {
                $0["fieldname"] as? String == "short_description" && $0["oldvalue"] as? String == ""
                    && $0["newvalue"] as? String == "Printer jam" && $0["record_checkpoint"] as? String == "0"
            })
        #expect(!inserted.contains { ($0["fieldname"] as? String)?.hasPrefix("sys_updated") == true })

        let updated = try await sim.request(
            "PUT", "/api/now/table/incident/\(sysId)",
            body: try json(["short_description": "Printer on fire", "urgency": "3", "work_notes": "called facilities"]))
        #expect(updated.status == 200)
        let rows = try await audit(of: sysId).filter { $0["record_checkpoint"] as? String == "1" }
        #expect(rows.map { $0["fieldname"] as? String } == ["short_description", "work_notes"])
        let change = try #require(rows.first)
        #expect(change["tablename"] as? String == "incident")
        #expect(change["oldvalue"] as? String == "Printer jam")
        #expect(change["newvalue"] as? String == "Printer on fire")
        #expect(change["user"] as? String == "admin")
        #expect(change["sys_created_by"] as? String == "admin")
        #expect((change["internal_checkpoint"] as? String)?.isEmpty == false)
        let journal = try #require(rows.last)
        #expect(journal["oldvalue"] as? String == "JOURNAL FIELD ADDITION")
        #expect(journal["newvalue"] as? String == "called facilities")

        // Field history is the admin's to read.
        let denied = try await sim.request("/api/now/table/sys_audit", user: "reader", password: "pw")
        #expect(denied.status == 403)
    }
}
