import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` migrating users, groups and incidents into a second nowsim that is already in
/// use: its people and groups carry the source's user names and group names under sys_ids of their
/// own. With `coalesce:` the users and groups are matched on those keys, and every reference of the
/// incidents is rewritten to the target's sys_ids; the map is committed as `mapping/<table>.jsonl`.
@Suite(.serialized, .timeLimit(.minutes(12))) struct SinkInstanceCoalesceTests {
    typealias EndToEnd = SinkInstanceEndToEndTests

    static let sourceArguments = seededNowSim("sys_user=40,sys_user_group=6,incident=300", value: 21)
    /// A target in use: the source's first 40 people and its groups under sys_ids of its own (nowsim's
    /// `--sys-id-salt`), with its own managers, members and descriptions.
    static let populatedTargetArguments =
        ["--seed", "sys_user=40,sys_user_group=6", "--seed-value", "21", "--sys-id-salt", "in-use"]
        + EndToEnd.targetArguments

    static let coalesce = "coalesce: { sys_user: [user_name], sys_user_group: [name] }"

    /// `body` with the source nowsim, a populated target (``populatedTargetArguments``) and a scratch
    /// directory named after `name`.
    static func withPopulatedTarget(
        _ name: String, _ body: (NowSimInstance, NowSimInstance, URL) async throws -> Void
    ) async throws {
        try await withNowSim(arguments: sourceArguments) { source in
            try await withNowSim(arguments: populatedTargetArguments) { target in
                try await EndToEnd.withScratch(name) { directory in try await body(source, target, directory) }
            }
        }
    }
    static let groupsCoalesce = "coalesce: { sys_user_group: [name] }"

    /// Creates on `target` a record of `table` for every source record, with the same `key` value (the
    /// case of the first letter swapped, as another import might have it) and a sys_id the target makes.
    /// Returns the target's sys_id by key value, lower-cased.
    @discardableResult
    static func populate(
        _ target: NowSimInstance, from source: NowSimInstance, table: String, key: String, extra: [String: String] = [:]
    ) async throws -> [String: String] {
        var made: [String: String] = [:]
        for record in try await EndToEnd.dump(source, table).values {
            guard let value = record[key], !value.isEmpty, value != "admin", value != "migrator" else { continue }
            let shown =
                value.prefix(1).uppercased() == value.prefix(1)
                ? value.prefix(1).lowercased() + value.dropFirst()
                : value.prefix(1).uppercased() + value.dropFirst()
            var fields = extra
            fields[key] = shown
            let response = try await target.request(
                "POST", "/api/now/table/\(table)", body: try JSONSerialization.data(withJSONObject: fields))
            try #require(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
            let sysID = try #require(response.resultObject["sys_id"] as? String)
            made[value.lowercased()] = sysID
        }
        return made
    }

    @Test func usersAndGroupsAreMatchedOnTheirKeysAndIncidentsPointAtTheTargetsRecords() async throws {
        try await Self.withPopulatedTarget("instanceCoalesce") { source, target, directory in
            // The target's own records by key, before the run.
            var users: [String: String] = [:]
            for (sysID, user) in try await EndToEnd.dump(target, "sys_user") {
                users[user["user_name"]?.lowercased() ?? ""] = sysID
            }
            var groups: [String: String] = [:]
            for (sysID, group) in try await EndToEnd.dump(target, "sys_user_group") {
                groups[group["name"]?.lowercased() ?? ""] = sysID
            }
            let sourceUsers = try await EndToEnd.dump(source, "sys_user")
            let sourceGroups = try await EndToEnd.dump(source, "sys_user_group")
            let shared = sourceUsers.filter { sysID, user in
                users[user["user_name"]?.lowercased() ?? ""].map { $0 != sysID } ?? false
            }
            try #require(shared.count >= 40 && groups.count == sourceGroups.count, "\(shared.count)")
            try EndToEnd.pipeline(source, target, output: Self.coalesce, in: directory)
            let first = try await EndToEnd.run(directory)
            try #require(first.status == 0, "\(first.log)")

            // No person twice, and every shared user is the target's own record of that name.
            let targetUsers = try await EndToEnd.dump(target, "sys_user")
            let names = targetUsers.values.compactMap { $0["user_name"]?.lowercased() }
            #expect(Set(names).count == names.count, "duplicate user names: \(names.sorted())")
            var expected: [String: String] = [:]
            for (sysID, user) in sourceUsers {
                expected[sysID] = users[user["user_name"]?.lowercased() ?? ""] ?? sysID
            }
            for (sysID, group) in sourceGroups { expected[sysID] = groups[group["name"]?.lowercased() ?? ""] }
            for (sysID, user) in shared {
                let mapped = try #require(expected[sysID])
                #expect(targetUsers[mapped]?["email"] == user["email"], "user \(sysID) → \(mapped)")
                #expect(targetUsers[sysID] == nil, "user \(sysID) was inserted besides its match")
            }

            // Every incident, its references rewritten.
            let sourceIncidents = try await EndToEnd.dump(source, "incident")
            let targetIncidents = try await EndToEnd.dump(target, "incident")
            #expect(sourceIncidents.count == 300 && targetIncidents.count == 300)
            var rewritten = 0
            for (sysID, incident) in sourceIncidents {
                let copy = try #require(targetIncidents[sysID], "incident \(sysID) missing")
                for field in ["caller_id", "assigned_to", "opened_by", "assignment_group"] {
                    let value = incident[field] ?? ""
                    guard !value.isEmpty else {
                        #expect(copy[field] ?? "" == "")
                        continue
                    }
                    #expect(copy[field] == expected[value], "incident \(sysID).\(field): \(value)")
                    if copy[field] != value { rewritten += 1 }
                }
                #expect(copy["short_description"] == incident["short_description"])
            }
            #expect(rewritten > 300, "only \(rewritten) references were rewritten")
            // A list field: every element mapped.
            var lists = 0
            for (sysID, incident) in sourceIncidents where !(incident["watch_list"] ?? "").isEmpty {
                let mapped = (incident["watch_list"] ?? "").split(separator: ",").map {
                    expected[String($0)] ?? String($0)
                }
                #expect(targetIncidents[sysID]?["watch_list"] == mapped.joined(separator: ","))
                lists += 1
            }
            #expect(lists > 30)
            // References to records the run neither migrates nor maps, and the target lacks: reported.
            #expect(
                first.log.contains("msg=\"unresolved references\" table=incident field=company"), "\(first.log)"
            )

            // The maps, committed.
            let mapping = try String(
                contentsOf: directory.appendingPathComponent("out/mapping/sys_user.jsonl"), encoding: .utf8)
            let entries = mapping.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
            #expect(entries.count == sourceUsers.count)
            // The shared people, and admin (the same sys_id on both sides, matched all the same).
            #expect(entries.filter { $0["action"] == "updated" }.count == shared.count + 1)
            for entry in entries { #expect(expected[entry["source"] ?? ""] == entry["target"]) }
            #expect(first.log.contains("msg=\"instance table written\" table=sys_user"))

            // A rerun keeps the maps and makes no new record.
            let second = try await EndToEnd.run(directory)
            try #require(second.status == 0, "\(second.log)")
            #expect(
                try String(
                    contentsOf: directory.appendingPathComponent("out/mapping/sys_user.jsonl"),
                    encoding: .utf8) == mapping)
            #expect(try await EndToEnd.dump(target, "sys_user").count == targetUsers.count)
            #expect(try await EndToEnd.dump(target, "incident") == targetIncidents)
        }
    }

    @Test func aKeyTwoTargetRecordsShareStopsTheRunBeforeAnyWrite() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: EndToEnd.targetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("instanceCoalesceAmbiguous") { directory in
                    try await Self.populate(target, from: source, table: "sys_user_group", key: "name")
                    let groups = try await EndToEnd.dump(source, "sys_user_group").values.compactMap { $0["name"] }
                    let name = try #require(groups.sorted().first)
                    let twin = try await target.request(
                        "POST", "/api/now/table/sys_user_group",
                        body: try JSONSerialization.data(withJSONObject: ["name": name.uppercased() + "  "]))
                    try #require(twin.status == 201)
                    let twinID = try #require(twin.resultObject["sys_id"] as? String)
                    try EndToEnd.pipeline(
                        source, target, tables: ["sys_user_group"], output: Self.groupsCoalesce, in: directory)
                    let writesBefore = EndToEnd.writes(target).count
                    let result = try await EndToEnd.run(directory)
                    #expect(result.status == 1, "\(result.log)")
                    #expect(result.log.contains("matches 2 records of the target"), "\(result.log)")
                    #expect(result.log.contains(twinID), "\(result.log)")
                    #expect(EndToEnd.writes(target).count == writesBefore, "a write was sent")
                    #expect(
                        !FileManager.default.fileExists(
                            atPath: directory.appendingPathComponent("out/mapping/sys_user_group.jsonl").path))
                }
            }
        }
    }

    @Test func unmatchedRecordsUnderOnMissingFailAreListedBeforeAnyWrite() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: EndToEnd.targetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("instanceCoalesceMissing") { directory in
                    try EndToEnd.pipeline(
                        source, target, tables: ["sys_user_group"],
                        output: Self.groupsCoalesce + "\n      on_missing: fail", in: directory)
                    let writesBefore = EndToEnd.writes(target).count
                    let result = try await EndToEnd.run(directory)
                    #expect(result.status == 1, "\(result.log)")
                    #expect(result.log.contains("6 source records match no record"), "\(result.log)")
                    #expect(EndToEnd.writes(target).count == writesBefore)
                }
            }
        }
    }

    @Test func withoutCoalesceTheFirstUniqueViolationStopsTheRunNamingTheRecord() async throws {
        try await Self.withPopulatedTarget("instanceUniqueViolation") { source, target, directory in
            try EndToEnd.pipeline(source, target, tables: ["sys_user"], in: directory)
            let result = try await EndToEnd.run(directory)
            #expect(result.status == 1, "\(result.log)")
            #expect(result.log.contains("refused record"), "\(result.log)")
            #expect(result.log.contains("Error during insert of sys_user"), "\(result.log)")
            #expect(result.log.contains("coalesce"), "\(result.log)")
            let names = try await EndToEnd.dump(target, "sys_user").values.compactMap {
                $0["user_name"]?.lowercased()
            }
            #expect(Set(names).count == names.count)
        }
    }

    @Test func aKilledCoalescedMigrationResumesWithTheSameMapsAndNoDuplicates() async throws {
        try await Self.withPopulatedTarget("instanceCoalesceResume") { source, target, directory in
            // concurrency 1: groups of 100 rows; confirmations 1 (users), 2 (groups), then the
            // incidents: killed after their first group.
            try EndToEnd.pipeline(
                source, target, output: Self.coalesce + "\n      concurrency: 1", in: directory)
            let killed = try await EndToEnd.run(
                directory, environment: [CrashPoint.environmentVariable: "instance-confirmed:3"])
            #expect(killed.status != 0, "\(killed.log)")
            let journaled = try Self.journaledMap(directory, table: "sys_user")
            #expect(journaled.count == 41)
            let partial = try await EndToEnd.dump(target, "incident").count
            #expect((100..<300).contains(partial))
            let result = try await EndToEnd.run(directory)
            try #require(result.status == 0, "rerun: \(result.log)")
            let committed = try String(
                contentsOf: directory.appendingPathComponent("out/mapping/sys_user.jsonl"), encoding: .utf8)
            #expect(committed.split(separator: "\n").map(String.init) == journaled)
            let names = try await EndToEnd.dump(target, "sys_user").values.compactMap {
                $0["user_name"]?.lowercased()
            }
            #expect(Set(names).count == names.count)
            #expect(try await EndToEnd.dump(target, "incident").count == 300)
            #expect(EndToEnd.loads(result.log)["incident"]?["already_written"] == partial, "\(result.log)")
        }
    }

    @Test func onUnresolvedClearEmptiesWhatTheTargetCannotResolve() async throws {
        try await Self.withPopulatedTarget("instanceCoalesceClear") { source, target, directory in
            try EndToEnd.pipeline(
                source, target, output: Self.coalesce + "\n      on_unresolved: clear", in: directory)
            let run = try await NowETLProcess.run(
                ["run", "p.yaml", "--progress", "off", "--summary-json", "summary.json"], in: directory, timeout: 300)
            try #require(run.status == 0, "\(run.stderrText)")
            // The summary lists each table written into the target, with what it could not resolve.
            let summary =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("summary.json"))) as? [String: Any]
            let reported = (summary?["tables"] as? [[String: Any]] ?? []).first { $0["table"] as? String == "incident" }
            let load = (reported?["instance_tables"] as? [[String: Any]])?.first
            #expect(load?["inserted"] as? Int == 300, "\(String(describing: reported))")
            let unresolved = load?["unresolved"] as? [String: [String: Any]]
            #expect((unresolved?["company"]?["count"] as? Int ?? 0) > 0, "\(String(describing: load))")
            // The source's companies are not migrated, and the target's have other sys_ids.
            let targetCompanies = Set(try await EndToEnd.dump(target, "core_company").keys)
            let incidents = try await EndToEnd.dump(target, "incident")
            let sourceIncidents = try await EndToEnd.dump(source, "incident")
            #expect(sourceIncidents.values.contains { !($0["company"] ?? "").isEmpty })
            for (sysID, incident) in incidents {
                let company = incident["company"] ?? ""
                #expect(company.isEmpty || targetCompanies.contains(company), "incident \(sysID): \(company)")
            }
        }
    }

    /// The journal's copy of a table's map: its entry lines (the header left out).
    static func journaledMap(_ directory: URL, table: String) throws -> [String] {
        let folder = directory.appendingPathComponent("out/.nowetl/tables/\(table)")
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".map.jsonl") })
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        return Array(text.split(separator: "\n").dropFirst().map(String.init))
    }

    @Test func aDeltaRunDeletesOnTheTargetExactlyTheIncidentsTheSourceDeleted() async throws {
        try await Self.withPopulatedTarget("instanceCoalesceDeletes") { source, target, directory in
            try PipelineYAML(
                source, source: ["concurrency: 2", "page_size: 50"],
                tables: """
                      - table: sys_user
                      - table: sys_user_group
                      - table: incident
                        mode: incremental
                        deletes: true
                        fields: [sys_id, sys_updated_on]
                    """,
                outputs: """
                      - instance:
                          instance: \(target.baseURL.absoluteString)
                          auth: { basic: { user: migrator, password: migrator-Pw0rd } }
                          \(Self.coalesce)
                          deletes: propagate
                    """
            ).write("p.yaml", in: directory)
            try await IncrementalTestClock.waitForTheNextSecond()
            let first = try await EndToEnd.run(directory)
            try #require(first.status == 0, "\(first.log)")
            let migrated = try await EndToEnd.dump(target, "incident")
            try #require(migrated.count == 300)
            let gone = Array(try await IncidentEdits.sysIDs(source).shuffled().prefix(5))
            for sysID in gone { try await IncidentEdits.delete(source, sysID) }
            try await IncrementalTestClock.waitForTheNextSecond()
            let second = try await EndToEnd.run(directory)
            try #require(second.status == 0, "\(second.log)")
            let left = try await EndToEnd.dump(target, "incident")
            #expect(Set(migrated.keys).subtracting(left.keys) == Set(gone))
            #expect(left.count == 295)
            #expect(EndToEnd.loads(second.log)["incident"]?["deleted"] == 5, "\(second.log)")
            // And reconcile finds every incident equal and none the source no longer has.
            let reconciled = try await ReconcileRun.run(directory)
            #expect(reconciled.status == 0, "\(reconciled.summary)\(reconciled.log)")
            let incident = ReconcileRun.tables(reconciled.report)["incident"]
            #expect(incident?["extra"] as? Int == 0 && incident?["missing"] as? Int == 0, "\(reconciled.summary)")
            #expect(incident?["matching"] as? Int == 295, "\(reconciled.summary)")
        }
    }

    @Test func documentIDsAndParentTableReferencesFollowACoalescedChildTable() async throws {
        let source = seededNowSim("sys_user=40,change_request=20,sysapproval_approver=30", value: 21)
        let inUse =
            ["--seed", "sys_user=40,change_request=20", "--seed-value", "21", "--sys-id-salt", "in-use"]
            + EndToEnd.targetArguments
        try await withNowSim(arguments: source) { source in
            try await withNowSim(arguments: inUse) { target in
                try await EndToEnd.withScratch("instanceCoalesceDocuments") { directory in
                    var changes: [String: String] = [:]
                    for (sysID, change) in try await EndToEnd.dump(target, "change_request") {
                        changes[change["number"] ?? ""] = sysID
                    }
                    var mapped: [String: String] = [:]
                    for (sysID, change) in try await EndToEnd.dump(source, "change_request") {
                        mapped[sysID] = try #require(changes[change["number"] ?? ""], "\(change)")
                    }
                    try EndToEnd.pipeline(
                        source, target, tables: ["sys_user", "change_request", "sysapproval_approver"],
                        output: "coalesce: { sys_user: [user_name], change_request: [number] }", in: directory)
                    let result = try await EndToEnd.run(directory)
                    try #require(result.status == 0, "\(result.log)")
                    let approvals = try await EndToEnd.dump(source, "sysapproval_approver")
                    let copies = try await EndToEnd.dump(target, "sysapproval_approver")
                    var documents = 0
                    for (sysID, approval) in approvals where approval["source_table"] == "change_request" {
                        let copy = try #require(copies[sysID])
                        let document = try #require(mapped[approval["document_id"] ?? ""])
                        #expect(copy["document_id"] == document, "approval \(sysID)")
                        // `sysapproval` references task: the change request is the same record.
                        #expect(copy["sysapproval"] == mapped[approval["sysapproval"] ?? ""], "approval \(sysID)")
                        documents += 1
                    }
                    #expect(documents >= 20)
                }
            }
        }
    }
}
