import Foundation
import NowSimTesting
import Testing

/// The field types a migration must remap besides references (docs/table-api.md §11.3): the glide_list
/// `task.watch_list` and the document_id `sysapproval_approver.document_id`, described in the
/// dictionary and seeded with values that point at seeded records.
@Suite(.timeLimit(.minutes(5))) struct RemappableFieldTests {
    private static let arguments = [
        "--seed", "sys_user=30,sys_user_group=4,change_request=20,incident=200,sysapproval_approver=25",
        "--seed-value", "4",
    ]

    private func rows(_ sim: NowSimInstance, _ table: String, _ query: String, _ fields: String) async throws
        -> [[String: String]]
    {
        try await sim.request(
            "/api/now/table/\(table)",
            query: [
                ("sysparm_query", query), ("sysparm_fields", fields), ("sysparm_limit", "1000"),
                ("sysparm_exclude_reference_link", "true"),
            ]
        ).resultList.map { $0.compactMapValues { $0 as? String } }
    }

    @Test func theDictionaryDescribesAGlideListAndADocumentID() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let fields = "name,element,internal_type,reference,dependent_on_field"
        let watchList = try await rows(sim, "sys_dictionary", "name=task^element=watch_list", fields)
        #expect(
            watchList == [
                [
                    "name": "task", "element": "watch_list", "internal_type": "glide_list",
                    "reference": "sys_user", "dependent_on_field": "",
                ]
            ])
        let documentID = try await rows(
            sim, "sys_dictionary", "name=sysapproval_approver^element=document_id", fields)
        #expect(
            documentID == [
                [
                    "name": "sysapproval_approver", "element": "document_id",
                    "internal_type": "document_id", "reference": "", "dependent_on_field": "source_table",
                ]
            ])
    }

    @Test func seededWatchListsNameSeededUsers() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let users = Set(try await rows(sim, "sys_user", "", "sys_id").compactMap { $0["sys_id"] })
        let lists = try await rows(sim, "incident", "watch_listISNOTEMPTY", "watch_list").compactMap {
            $0["watch_list"]
        }
        #expect(lists.count > 20 && lists.count < 120, "\(lists.count) of 200 incidents watched")
        let ids = lists.flatMap { $0.split(separator: ",").map(String.init) }
        #expect(ids.allSatisfy(users.contains))
        #expect(lists.contains { $0.contains(",") })
    }

    @Test func seededApprovalsPointAtSeededChangesByDocumentIDAndSourceTable() async throws {
        let sim = try await NowSimInstance.shared(arguments: Self.arguments)
        let changes = Set(try await rows(sim, "change_request", "", "sys_id").compactMap { $0["sys_id"] })
        let users = Set(try await rows(sim, "sys_user", "", "sys_id").compactMap { $0["sys_id"] })
        let approvals = try await rows(
            sim, "sysapproval_approver", "", "document_id,source_table,sysapproval,approver,state")
        #expect(approvals.count == 25)
        for approval in approvals {
            #expect(approval["source_table"] == "change_request")
            #expect(approval["document_id"].map(changes.contains) == true)
            #expect(approval["sysapproval"] == approval["document_id"])
            #expect(approval["approver"].map(users.contains) == true)
        }
    }
}
