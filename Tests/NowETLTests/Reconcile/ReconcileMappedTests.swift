import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl reconcile` after a migration into a target already in use (the setup of
/// SinkInstanceCoalesceTests: a second nowsim whose people and groups share the source's user names
/// and group names under sys_ids of their own): the coalesced tables are compared through the
/// committed maps, references in their mapped form.
@Suite(.serialized, .timeLimit(.minutes(12))) struct ReconcileMappedTests {
    typealias EndToEnd = SinkInstanceEndToEndTests
    typealias Coalesce = SinkInstanceCoalesceTests

    @Test func aCoalescedMigrationReconcilesThroughItsMapsAndAChangeOnTheTargetIsReported() async throws {
        try await withNowSim(arguments: Coalesce.sourceArguments) { source in
            try await withNowSim(arguments: Coalesce.populatedTargetArguments) { target in
                try await EndToEnd.withScratch("reconcileMapped") { directory in
                    try EndToEnd.pipeline(source, target, output: Coalesce.coalesce, in: directory)
                    let migrated = try await EndToEnd.run(directory)
                    try #require(migrated.status == 0, "\(migrated.log)")

                    let equal = try await ReconcileRun.run(directory)
                    #expect(equal.status == 0 && equal.report?["status"] as? String == "equal", "\(equal.summary)")
                    for (name, table) in ReconcileRun.tables(equal.report) {
                        let counts = ["missing", "extra", "differing"].map { table[$0] as? Int }
                        #expect(
                            counts == [0, 0, 0] && table["matching"] as? Int == table["source_rows"] as? Int, "\(name)")
                    }
                    // The maps used, in the report and the summary.
                    let maps = try #require(equal.report?["maps"] as? [[String: Any]])
                    #expect(maps.map { $0["table"] as? String } == ["sys_user", "sys_user_group"])
                    #expect(maps.allSatisfy { $0["exists"] as? Bool == true })
                    #expect((maps.first?["actions"] as? [String: Int])?["updated"] == 41)
                    #expect(equal.summary.contains("map sys_user [user_name]: "), "\(equal.summary)")
                    let tables = ReconcileRun.tables(equal.report)
                    let users = try #require(tables["sys_user"]?["mapping"] as? [String: Any])
                    #expect(users["coalesced"] as? Bool == true)
                    // The target's migration account is its own: listed, not extra.
                    #expect(users["target_own"] as? Int == 1, "\(users)")
                    #expect(tables["sys_user"]?["target_rows"] as? Int == 42)
                    let incidents = try #require(tables["incident"]?["mapping"] as? [String: Any])
                    #expect(incidents["coalesced"] as? Bool == false)
                    #expect((incidents["remapped"] as? Int ?? 0) > 300, "\(incidents)")
                    #expect(equal.summary.contains("sys_user: 1 the target's own"), "\(equal.summary)")

                    // On purpose: an incident and a matched user changed on the target, a second group
                    // with a migrated group's name.
                    let ids = try await EndToEnd.dump(target, "incident").keys.sorted()
                    let changed = ids[42]
                    try await IncidentEdits.patch(target, changed, ["short_description": "changed on the target"])
                    let sourceUsers = try await EndToEnd.dump(source, "sys_user")
                    let userMap = try Self.map(directory, "sys_user")
                    let (sourceUser, targetUser) = try #require(
                        userMap.first { $0.key != $0.value && sourceUsers[$0.key]?["user_name"] != "admin" })
                    let patched = try await target.request(
                        "PATCH", "/api/now/table/sys_user/\(targetUser)",
                        body: try JSONSerialization.data(withJSONObject: ["email": "someone.else@example.com"]))
                    try #require(patched.status == 200)
                    let group = try #require(try await EndToEnd.dump(target, "sys_user_group").first)
                    let twin = try await target.request(
                        "POST", "/api/now/table/sys_user_group",
                        body: try JSONSerialization.data(withJSONObject: [
                            "name": (group.value["name"] ?? "").uppercased() + " "
                        ]))
                    try #require(twin.status == 201)
                    let twinID = try #require(twin.resultObject["sys_id"] as? String)

                    let different = try await ReconcileRun.run(directory)
                    #expect(different.status == 1, "\(different.summary)\(different.log)")
                    let found = ReconcileRun.tables(different.report)
                    let incident = try #require(found["incident"])
                    #expect(incident["differing"] as? Int == 1 && incident["matching"] as? Int == 299)
                    let row = try #require((incident["differing_rows"] as? [[String: Any]])?.first)
                    #expect(row["sys_id"] as? String == changed && row["target_sys_id"] == nil)
                    let user = try #require(found["sys_user"])
                    #expect(user["differing"] as? Int == 1, "\(user)")
                    let userRow = try #require((user["differing_rows"] as? [[String: Any]])?.first)
                    #expect(userRow["sys_id"] as? String == sourceUser)
                    #expect(userRow["target_sys_id"] as? String == targetUser)
                    // The edit went through the Table API as a user's would: sys_updated_on moved too.
                    let userFields = (userRow["fields"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
                    #expect(userFields?.contains("email") == true && userFields?.contains("sys_id") == false)
                    let groups = try #require(found["sys_user_group"]?["mapping"] as? [String: Any])
                    #expect(groups["ambiguous"] as? Int == 1 && groups["target_own"] as? Int == 1, "\(groups)")
                    let ambiguous = try #require((groups["ambiguous_keys"] as? [[String: Any]])?.first)
                    #expect(ambiguous["sys_ids"] as? [String] == [group.key, twinID].sorted())
                    #expect(found["sys_user_group"]?["equal"] as? Bool == false)
                    #expect(different.summary.contains("sys_user_group: 1 ambiguous key on the target: "))
                    #expect(different.summary.contains("  \(sourceUser) → \(targetUser):\n"), "\(different.summary)")
                }
            }
        }
    }

    @Test func unmatchedRecordsAndClearedReferencesAreReportedNotDifferences() async throws {
        try await withNowSim(arguments: Coalesce.sourceArguments) { source in
            try await withNowSim(arguments: Coalesce.populatedTargetArguments) { target in
                try await EndToEnd.withScratch("reconcileMappedSkip") { directory in
                    // A person the target lacks: skipped by the migration, every reference to them cleared.
                    // The incidents they opened are opened by admin first: the target fills an empty
                    // opened_by with the writing account on insert (a default), which reconcile reports as
                    // the difference it is.
                    let sourceIncidents = try await EndToEnd.dump(source, "incident")
                    let callers = Set(sourceIncidents.values.compactMap { $0["caller_id"] })
                    let sourceUsers = try await EndToEnd.dump(source, "sys_user")
                    let admin = try #require(sourceUsers.first { $0.value["user_name"] == "admin" }?.key)
                    let (skipped, person) = try #require(
                        sourceUsers.sorted { $0.key < $1.key }.first {
                            callers.contains($0.key) && $0.key != admin
                        })
                    for (sysID, incident) in sourceIncidents where incident["opened_by"] == skipped {
                        try await IncidentEdits.patch(source, sysID, ["opened_by": admin])
                    }
                    let name = try #require(person["user_name"]?.lowercased())
                    let targetPerson = try #require(
                        try await EndToEnd.dump(target, "sys_user").first {
                            $0.value["user_name"]?.lowercased() == name
                        }?.key)
                    let deleted = try await target.request("DELETE", "/api/now/table/sys_user/\(targetPerson)")
                    try #require(deleted.status == 204)
                    try EndToEnd.pipeline(
                        source, target,
                        output: Coalesce.coalesce + "\n      on_missing: skip\n      on_unresolved: clear",
                        in: directory)
                    let migrated = try await EndToEnd.run(directory)
                    try #require(migrated.status == 0, "\(migrated.log)")

                    let reconciled = try await ReconcileRun.run(directory)
                    #expect(reconciled.status == 0, "\(reconciled.summary)\(reconciled.log)")
                    let tables = ReconcileRun.tables(reconciled.report)
                    let users = try #require(tables["sys_user"]?["mapping"] as? [String: Any])
                    #expect(users["unmatched"] as? Int == 1, "\(users)")
                    let unmatched = try #require((users["unmatched_records"] as? [[String: Any]])?.first)
                    #expect(unmatched["sys_id"] as? String == skipped)
                    #expect(tables["sys_user"]?["missing"] as? Int == 0)
                    let incidents = try #require(tables["incident"]?["mapping"] as? [String: Any])
                    let cleared = try #require(incidents["cleared"] as? [String: Int])
                    #expect(
                        (cleared["caller_id"] ?? 0) + (cleared["assigned_to"] ?? 0) >= 1
                            && (cleared["company"] ?? 0) >= 1,
                        "\(cleared)")
                    #expect(tables["incident"]?["differing"] as? Int == 0)
                    #expect(
                        reconciled.summary.contains(
                            "sys_user: 1 unmatched (not migrated: on_missing: skip): \(skipped)"))
                    #expect(reconciled.summary.contains("references cleared by the migration (on_unresolved: clear)"))
                }
            }
        }
    }

    /// The committed map of `table`: target sys_id by source sys_id.
    static func map(_ directory: URL, _ table: String) throws -> [String: String] {
        let text = try String(
            contentsOf: directory.appendingPathComponent("out/mapping/\(table).jsonl"), encoding: .utf8)
        var map: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            map[entry["source"] ?? ""] = entry["target"]
        }
        return map
    }
}
