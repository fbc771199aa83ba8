import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` migrating users, groups and incidents from one real nowsim into another through
/// the `instance:` output; both sides are then read back through the Table API and every field's
/// stored value compared.
///
/// A rerun in upsert mode sends one PUT per row with the same values (sys fields included, under
/// `sysparm_suppress_auto_sys_field`): the target is unchanged afterwards. In insert_only mode the
/// rows the target has are skipped: no write at all.
@Suite(.serialized, .timeLimit(.minutes(12))) struct SinkInstanceEndToEndTests {
    static let sourceArguments = seededNowSim("sys_user=40,sys_user_group=6,incident=150", value: 11)
    static let tables = ["sys_user", "sys_user_group", "incident"]
    /// The target: `admin` (whom the test reads as) and the account the migration writes as.
    static let targetArguments = ["--user", "admin:admin:admin", "--user", "migrator:migrator-Pw0rd:admin"]

    static func run(_ directory: URL, environment: [String: String] = [:]) async throws -> (status: Int32, log: String)
    {
        let result = try await NowETLProcess.run(
            ["run", "p.yaml", "--progress", "off"], in: directory, environment: environment, timeout: 300)
        return (result.status, result.stderrText)
    }

    /// A pipeline from `source` to `target`'s instance output with `output` (extra keys of `instance:`).
    static func pipeline(
        _ source: NowSimInstance, _ target: NowSimInstance, tables: [String] = tables, user: String = "migrator",
        output: String = "", in directory: URL
    ) throws {
        try PipelineYAML(
            source, source: ["concurrency: 2", "page_size: 50"],
            tables: tables.map { "  - table: \($0)\n    fields: [sys_id, sys_created_on]" }.joined(separator: "\n"),
            outputs: """
                  - instance:
                      instance: \(target.baseURL.absoluteString)
                      auth: { basic: { user: \(user), password: \(user)-Pw0rd } }
                      retry: { attempts: 30, max_wait_seconds: 0.2, total_seconds: 120 }
                \(output.isEmpty ? "" : "      " + output)
                """
        ).write("p.yaml", in: directory)
    }

    /// Every record of `table` with every field's stored value, by sys_id (keyset pages of 200).
    static func dump(_ sim: NowSimInstance, _ table: String) async throws -> [String: [String: String]] {
        var rows: [String: [String: String]] = [:]
        let records = try await SimRecords.all(
            sim, table, pageSize: 200, parameters: [("sysparm_exclude_reference_link", "true")])
        for record in records { rows[record["sys_id"] as? String ?? ""] = record.mapValues { "\($0)" } }
        return rows
    }

    /// What differs between the target's and the source's records of `table`, field by field.
    ///
    /// `targetAccounts` are the target's own records (its users from `--user`), not extra when the
    /// source lacks them.
    static func differences(
        _ source: NowSimInstance, _ target: NowSimInstance, _ table: String, targetAccounts: Set<String> = []
    ) async throws -> [String] {
        let expected = try await dump(source, table)
        let actual = try await dump(target, table)
        var problems: [String] = []
        for (sysID, values) in expected {
            guard let other = actual[sysID] else {
                problems.append("\(table) \(sysID) missing")
                continue
            }
            for (field, value) in values where other[field] != value {
                problems.append("\(table) \(sysID).\(field): \(other[field] ?? "nil") ≠ \(value)")
            }
        }
        for sysID in actual.keys where expected[sysID] == nil && !targetAccounts.contains(sysID) {
            problems.append("\(table) \(sysID) extra")
        }
        return problems.sorted()
    }

    /// The Table API writes of the target's request log: `(method, table)` per POST, PUT or PATCH.
    static func writes(_ target: NowSimInstance) -> [(method: Substring, path: Substring)] {
        target.requestLog.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count >= 4, ["POST", "PUT", "PATCH"].contains(parts[2]),
                parts[3].hasPrefix("/api/now/table/")
            else { return nil }
            return (parts[2], parts[3].split(separator: "?")[0])
        }
    }

    /// The counts of each `instance table written` line of a run log, by table.
    static func loads(_ log: String) -> [String: [String: Int]] {
        var loads: [String: [String: Int]] = [:]
        for line in log.split(separator: "\n") where line.contains("msg=\"instance table written\"") {
            var table = ""
            var counts: [String: Int] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "table" {
                    table = parts[1]
                } else if let number = Int(parts[1]) {
                    counts[parts[0]] = number
                }
            }
            loads[table] = counts
        }
        return loads
    }

    /// The source of a migration `nowetl reconcile` proves: the target's accounts exist here too (under
    /// the same sys_ids, derived from the user names), so the target has no record the source lacks.
    static let reconciledSourceArguments = sourceArguments + ["--user", "migrator:migrator-Pw0rd:admin"]

    static func withScratch<Value>(_ name: String, _ body: (URL) async throws -> Value) async throws -> Value {
        return try await withScratchDirectory(name) { (scratch: String) in
            return try await body(URL(fileURLWithPath: scratch))
        }
    }

    @Test func usersGroupsAndIncidentsArriveWithEveryStoredValueAndARerunChangesNothing() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: Self.targetArguments, logRequests: true) { target in
                try await Self.withScratch("instanceCopy") { directory in
                    try Self.pipeline(source, target, output: "concurrency: 3", in: directory)
                    let accounts = Set(try await Self.dump(target, "sys_user").keys)
                    var result = try await Self.run(directory)
                    try #require(result.status == 0, "run 1: \(result.log)")
                    #expect(!result.log.contains("migrator-Pw0rd"))
                    for table in Self.tables {
                        let differences = try await Self.differences(
                            source, target, table, targetAccounts: accounts)
                        #expect(differences.isEmpty, "\(differences.count) differences, e.g. \(differences.prefix(5))")
                    }
                    // The data is worth comparing: awkward text, references, kept system fields.
                    let incidents = try await Self.dump(source, "incident")
                    let users = try await Self.dump(target, "sys_user")
                    #expect(incidents.count == 150 && users.count >= 40)
                    let texts = incidents.values.flatMap { [$0["short_description"] ?? "", $0["description"] ?? ""] }
                    #expect(texts.contains { $0.contains("\n") || $0.contains("\"") || $0.contains("<") })
                    let callers = incidents.values.compactMap { $0["caller_id"] }.filter { !$0.isEmpty }
                    #expect(!callers.isEmpty && callers.allSatisfy { users[$0] != nil })
                    #expect(
                        incidents.values.contains { $0["sys_mod_count"] != "0" && !($0["sys_mod_count"] ?? "").isEmpty }
                    )
                    #expect(incidents.values.contains { $0["sys_created_by"] != "admin" })
                    // One write per row: every row the target lacked inserted once, its own admin updated; in
                    // Batch API calls (no single Table API write without faults).
                    let sourceRows = try await Self.tables.asyncMap { try await Self.dump(source, $0).count }
                    #expect(accounts.contains(Self.adminSysID))
                    var loads = Self.loads(result.log)
                    for (table, rows) in zip(Self.tables, sourceRows) {
                        let admin = table == "sys_user" ? 1 : 0
                        #expect(
                            loads[table]?["inserted"] == rows - admin && loads[table]?["updated"] == admin, "\(table)")
                    }
                    #expect(Self.writes(target).isEmpty)
                    #expect(target.requestLog.contains { $0.contains(" POST /api/now/v1/batch ") })
                    #expect(result.log.contains("instance table written"), "\(result.log)")

                    let before = try await Self.tables.asyncMap { try await Self.dump(target, $0) }
                    result = try await Self.run(directory)
                    try #require(result.status == 0, "run 2: \(result.log)")
                    #expect(try await Self.tables.asyncMap { try await Self.dump(target, $0) } == before)
                    // The rerun updates every row with the values it has: updates only, no insert.
                    loads = Self.loads(result.log)
                    for (table, rows) in zip(Self.tables, sourceRows) {
                        #expect(loads[table]?["inserted"] == 0 && loads[table]?["updated"] == rows, "\(table)")
                    }
                }
            }
        }
    }

    static let adminSysID = "6816f79cc0a8016401c5a33be04be441"

    @Test func insertOnlyLeavesTheTargetsRecordsAlone() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: Self.targetArguments, logRequests: true) { target in
                try await Self.withScratch("instanceInsertOnly") { directory in
                    try Self.pipeline(
                        source, target, tables: ["incident"], output: "mode: insert_only\n      rate_per_second: 200",
                        in: directory)
                    var result = try await Self.run(directory)
                    try #require(result.status == 0, "run 1: \(result.log)")
                    #expect(try await Self.differences(source, target, "incident").isEmpty)
                    let incidents = try await Self.dump(target, "incident")
                    let changed = try #require(incidents.keys.sorted().first)
                    let update = try await target.request(
                        "PUT", "/api/now/table/incident/\(changed)",
                        body: Data(#"{"short_description":"changed on the target"}"#.utf8))
                    try #require(update.status == 200)
                    let requests = target.requestLog.count
                    result = try await Self.run(directory)
                    try #require(result.status == 0, "run 2: \(result.log)")
                    // Only the access check, the lookups and the reference checks: GETs.
                    let rerun = target.requestLog.dropFirst(requests)
                    #expect(!rerun.isEmpty && rerun.allSatisfy { $0.contains(" GET /api/now/table/") })
                    #expect(Self.loads(result.log)["incident"]?["inserted"] == 0)
                    #expect(
                        try await Self.dump(target, "incident")[changed]?["short_description"]
                            == "changed on the target")
                    #expect(result.log.contains("skipped_existing=150"), "\(result.log)")
                }
            }
        }
    }

    @Test func reconcileProvesTheMigrationAndNamesAChangedADeletedAndAnExtraIncident() async throws {
        try await withNowSim(arguments: Self.reconciledSourceArguments) { source in
            try await withNowSim(arguments: Self.targetArguments) { target in
                try await Self.withScratch("instanceReconcile") { directory in
                    // Text XML 1.0 could not carry travels through the Table API: C0 controls in a description.
                    let controls = try #require(try await Self.dump(source, "incident").keys.sorted().last)
                    try await IncidentEdits.patch(source, controls, ["description": "bell \u{7}, escape \u{1B}"])
                    try Self.pipeline(source, target, output: "concurrency: 4", in: directory)
                    let result = try await Self.run(directory)
                    try #require(result.status == 0, "run: \(result.log)")
                    ReconcileRun.expectEqual(try await ReconcileRun.run(directory), tables: Self.tables)
                    // What was proved equal is worth it: awkward text, and references that resolve on the target.
                    let incidents = try await Self.dump(target, "incident")
                    let users = try await Self.dump(target, "sys_user")
                    #expect(incidents.count == 150)
                    let texts = incidents.values.flatMap { [$0["short_description"] ?? "", $0["description"] ?? ""] }
                    #expect(texts.contains { $0.contains("\n") || $0.contains("\"") || $0.contains("<") })
                    #expect(incidents.values.allSatisfy { users[$0["caller_id"] ?? ""] != nil })
                    #expect(incidents[controls]?["description"] == "bell \u{7}, escape \u{1B}")

                    // On purpose: one incident changed (its system fields kept), one deleted, one added.
                    let ids = incidents.keys.sorted()
                    let (changed, deleted) = (ids[10], ids[100])
                    let extra = "e2e0000000000000000000000000e2e0"
                    try #require(!ids.contains(extra))
                    let before = try #require(incidents[changed]?["short_description"])
                    try await IncidentEdits.patch(target, changed, ["short_description": "changed on the target"])
                    try await IncidentEdits.delete(target, deleted)
                    try await IncidentEdits.insert(target, extra)
                    let different = try await ReconcileRun.run(directory)
                    #expect(different.status == 1, "\(different.summary)\(different.log)")
                    #expect(different.report?["status"] as? String == "different")
                    let tables = ReconcileRun.tables(different.report)
                    for table in ["sys_user", "sys_user_group"] {
                        #expect(tables[table]?["equal"] as? Bool == true, "\(table)")
                    }
                    let incident = try #require(tables["incident"])
                    #expect(incident["missing"] as? Int == 1 && incident["missing_sys_ids"] as? [String] == [deleted])
                    #expect(incident["extra"] as? Int == 1 && incident["extra_sys_ids"] as? [String] == [extra])
                    #expect(incident["differing"] as? Int == 1 && incident["matching"] as? Int == 148)
                    let rows = try #require(incident["differing_rows"] as? [[String: Any]])
                    #expect(rows.map { $0["sys_id"] as? String } == [changed])
                    let fields = rows.first?["fields"] as? [[String: Any]] ?? []
                    #expect(fields.map { $0["field"] as? String } == ["short_description"])
                    #expect(
                        fields.first?["source"] as? String == String(before.unicodeScalars.prefix(200))
                            && fields.first?["target"] as? String == "changed on the target")
                    #expect(different.summary.contains("incident: 1 missing on the target: \(deleted)\n"))
                    #expect(different.summary.contains("incident: 1 extra on the target: \(extra)\n"))
                    #expect(!different.summary.contains("migrator-Pw0rd") && !different.log.contains("migrator-Pw0rd"))
                }
            }
        }
    }

    @Test func targetFaultsStillEndEqual() async throws {
        try await withNowSim(arguments: Self.reconciledSourceArguments) { source in
            try await withNowSim(arguments: Self.targetArguments, logRequests: true) { target in
                try await Self.withScratch("instanceFaults") { directory in
                    try Self.pipeline(source, target, output: "concurrency: 4", in: directory)
                    let accounts = Set(try await Self.dump(target, "sys_user").keys)
                    let result = try await target.withFaults([
                        "rate-limit:every=7,retry-after=1", "status:code=503,every=5", "truncate:every=11",
                    ]) { try await Self.run(directory) }
                    try #require(result.status == 0, "\(result.log)")
                    for table in Self.tables {
                        let differences = try await Self.differences(
                            source, target, table, targetAccounts: accounts)
                        #expect(differences.isEmpty, "\(differences.count) differences, e.g. \(differences.prefix(5))")
                    }
                    let statuses = target.requestLog.compactMap { $0.split(separator: " ").dropFirst(4).first }
                    #expect(statuses.contains("429") && statuses.contains("503"))
                    // And reconcile, with the faults gone, proves it.
                    ReconcileRun.expectEqual(try await ReconcileRun.run(directory), tables: Self.tables)
                }
            }
        }
    }

    @Test func aTargetThatRefusesWritesExits77WithNothingWritten() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(
                arguments: Self.targetArguments + ["--user", "reader:reader-Pw0rd:snc_read_only"],
                logRequests: true
            ) { target in
                try await Self.withScratch("instanceRefused") { directory in
                    try Self.pipeline(source, target, user: "reader", in: directory)
                    let before = try await Self.dump(target, "sys_user")
                    let result = try await Self.run(directory)
                    #expect(result.status == 77, "\(result.log)")
                    #expect(
                        result.log.contains("refused record") && result.log.contains("of table sys_user"),
                        "\(result.log)")
                    #expect(result.log.contains("403") && result.log.contains("ACL"), "\(result.log)")
                    #expect(!result.log.contains("reader-Pw0rd"))
                    #expect(try await Self.dump(target, "sys_user") == before)
                    #expect(try await Self.dump(target, "incident").isEmpty)
                }
            }
        }
    }

    @Test func aTableTheTargetWillNotShowOrWrongCredentialsExit77BeforeAnyWrite() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(
                arguments: Self.targetArguments + [
                    "--user", "clerk:clerk-Pw0rd:itil", "--table-acl", "sys_user=user_admin",
                ], logRequests: true
            ) { target in
                try await Self.withScratch("instanceAccess") { directory in
                    // A 401 names who signed in instead of the step: the credentials are refused whatever is asked.
                    for (user, expected) in [
                        ("clerk", "cannot read table sys_user of the target"),
                        ("nobody", "the target instance refused the credentials of user nobody"),
                    ] {
                        try Self.pipeline(source, target, user: user, in: directory)
                        let requests = target.requestLog.count
                        let result = try await Self.run(directory)
                        #expect(result.status == 77, "\(user): \(result.log)")
                        #expect(result.log.contains(expected), "\(result.log)")
                        #expect(!result.log.contains("\(user)-Pw0rd"))
                        // One GET of the access check, then nothing: no lookup, no write.
                        let sent = target.requestLog.dropFirst(requests)
                        #expect(sent.count == 1 && sent.allSatisfy { $0.contains(" GET /api/now/table/sys_user?") })
                    }
                    #expect(try await Self.dump(target, "incident").isEmpty)
                }
            }
        }
    }

    @Test func aKilledMigrationResumesWithoutWritingARowTwice() async throws {
        try await withNowSim(arguments: seededNowSim("incident=350", value: 3)) {
            source in
            try await withNowSim(arguments: Self.targetArguments, logRequests: true) { target in
                try await Self.withScratch("instanceResume") { directory in
                    // concurrency 1: groups of 100 rows; killed right after the second is confirmed.
                    try Self.pipeline(source, target, tables: ["incident"], output: "concurrency: 1", in: directory)
                    let killed = try await Self.run(
                        directory, environment: [CrashPoint.environmentVariable: "instance-confirmed:2"])
                    #expect(killed.status != 0, "\(killed.log)")
                    // The groups end on page boundaries: about 100 rows each; nothing is in flight after.
                    let confirmed = try await Self.dump(target, "incident").count
                    #expect((200..<300).contains(confirmed))
                    let result = try await Self.run(directory)
                    try #require(result.status == 0, "rerun: \(result.log)")
                    // No request for a confirmed row, and none of them updated: each row written once.
                    let load = Self.loads(result.log)["incident"]
                    #expect(load?["already_written"] == confirmed, "\(result.log)")
                    #expect(load?["inserted"] == 350 - confirmed && load?["updated"] == 0, "\(result.log)")
                    #expect(try await Self.differences(source, target, "incident").isEmpty)
                }
            }
        }
    }
}

extension Array {
    /// `transform` over the elements, one after another.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
