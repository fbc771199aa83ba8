import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The pre-flight of an `instance:` output against real nowsim targets: the business rules,
/// notifications and flows the writes would start are listed and refused without `side_effects:
/// accept`; fields, types and choice values the target lacks are listed before anything is written,
/// and `on_schema_mismatch: warn` goes on; `validate --online` shows the same lists.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SinkInstancePreflightTests {
    typealias EndToEnd = SinkInstanceEndToEndTests

    static let sourceArguments = seededNowSim("sys_user=10,sys_user_group=3,incident=40", value: 5)
    /// A target with nowsim's business rules, notifications and flows (`sys_user`, `sys_user_group`,
    /// `incident` among their tables, one of each inactive).
    static let busyTargetArguments =
        ["--seed", "sys_script=7,sysevent_email_action=5,sys_hub_flow=4"] + EndToEnd.targetArguments

    static func validate(_ directory: URL) async throws -> SubprocessResult {
        try await NowETLProcess.run(["validate", "--online", "p.yaml"], in: directory, timeout: 120)
    }

    /// The number of `sys_email` rows queued on `target` (the notifications nowsim simulates).
    static func queuedEmails(_ target: NowSimInstance) async throws -> Int {
        try await target.request("/api/now/table/sys_email", query: [("sysparm_fields", "sys_id")]).resultList.count
    }

    /// Expects `log` to hold every text of `contains` and none of `lacks`.
    static func expect(
        _ log: String, contains: [String], lacks: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in contains {
            #expect(log.contains(text), "missing \(text): \(log)", sourceLocation: sourceLocation)
        }
        for text in lacks { #expect(!log.contains(text), "listed \(text): \(log)", sourceLocation: sourceLocation) }
    }

    @Test func theTwoKeysDecodeWithSafeDefaultsAndABadValueIsPositioned() throws {
        let output = "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }"
        let defaults = try ConfigText.load(ConfigText.full + output + " }\n")
        let chosen = try ConfigText.load(
            ConfigText.full + output + ", on_schema_mismatch: warn, side_effects: accept }\n")
        guard case .instance(let plain) = defaults.outputs[0], case .instance(let allowing) = chosen.outputs[0] else {
            Issue.record("not instance outputs")
            return
        }
        #expect(plain.options.preflight == TargetPreflightPolicy(onSchemaMismatch: .fail, sideEffects: .refuse))
        #expect(allowing.options.preflight == TargetPreflightPolicy(onSchemaMismatch: .warn, sideEffects: .accept))
        ConfigErrorCase(
            "a bad side_effects", ConfigText.full + output + ", side_effects: yes }\n",
            "p.yaml:8:109: error: expected one of refuse, accept for outputs[0].instance.side_effects, got \"yes\""
        ).check()
    }

    @Test func sideEffectsAreListedAndRefusedUnlessAccepted() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: Self.busyTargetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("preflightSideEffects") { directory in
                    try EndToEnd.pipeline(source, target, in: directory)
                    let refused = try await EndToEnd.run(directory)
                    #expect(refused.status == 78, "\(refused.log)")
                    let listed = [
                        "incident: business rule 'Incident - set caller's company' (sys_id ",
                        ") runs 'before' insert, update",
                        "sys_user: business rule 'User - normalize email'",
                        "sys_user_group: business rule 'Group - grant manager role'",
                        "incident: notification 'Incident opened for me' (sys_id ", ") runs on insert",
                        "incident: notification 'Incident assigned to my group'",
                        "sys_user: notification 'Welcome new user'",
                        "incident: flow 'Incident triage' (sys_id ", "sys_user: flow 'Onboard new user'",
                        "set side_effects: accept", "nothing was written",
                    ]
                    // Inactive ones, a delete-only rule and another table's are not listed.
                    Self.expect(
                        refused.log, contains: listed,
                        lacks: [
                            "Incident - legacy SLA hook", "Incident - audit deletion", "Problem - close related",
                            "Change approved", "Group cleanup (retired)",
                        ])
                    #expect(EndToEnd.writes(target).isEmpty, "\(EndToEnd.writes(target))")
                    #expect(try await Self.queuedEmails(target) == 0)
                    #expect(
                        !FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/.nowetl").path))

                    // validate --online: the same list, the same refusal.
                    let validated = try await Self.validate(directory)
                    #expect(validated.status == 78, "\(validated.output)")
                    #expect(validated.stderrText.contains("incident: notification 'Incident opened for me'"))
                    #expect(validated.stderrText.contains("sys_user: flow 'Onboard new user'"))

                    // Accepted: listed as warnings, written, and the notifications' e-mails queued.
                    try EndToEnd.pipeline(source, target, output: "side_effects: accept", in: directory)
                    let accepted = try await Self.validate(directory)
                    #expect(accepted.status == 0, "\(accepted.output)")
                    #expect(accepted.stdoutText.contains("pre-flight: \(target.baseURL.absoluteString)"))
                    #expect(accepted.stdoutText.contains("incident: business rule 'Incident - set caller's company'"))
                    let run = try await EndToEnd.run(directory)
                    try #require(run.status == 0, "\(run.log)")
                    #expect(
                        run.log.contains("msg=\"pre-flight against the target\"")
                            && run.log.contains("Welcome new user"), "\(run.log)")
                    #expect(try await Self.queuedEmails(target) > 0)
                    #expect(EndToEnd.loads(run.log)["incident"]?["inserted"] == 40, "\(run.log)")
                }
            }
        }
    }

    @Test func sideEffectTablesTheCredentialsCannotReadAreNotCheckedAndRefused() async throws {
        let targetArguments = [
            "--seed", "sys_script=3", "--user", "admin:admin:admin", "--user", "writer:writer-Pw0rd:itil",
            "--table-acl", "sys_script=admin", "--table-acl", "sysevent_email_action=admin",
        ]
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: targetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("preflightUnreadable") { directory in
                    try EndToEnd.pipeline(source, target, tables: ["incident"], user: "writer", in: directory)
                    let refused = try await EndToEnd.run(directory)
                    #expect(refused.status == 78, "\(refused.log)")
                    #expect(
                        refused.log.contains(
                            "incident: cannot read sys_script on the target (HTTP 403): its side effects were not checked"
                        ),
                        "\(refused.log)")
                    #expect(
                        refused.log.contains("incident: cannot read sysevent_email_action on the target (HTTP 403)"))
                    #expect(refused.log.contains("2 side-effect table(s) that could not be read"))
                    #expect(EndToEnd.writes(target).isEmpty)
                }
            }
        }
    }

    @Test func fieldsTypesAndChoiceValuesTheTargetLacksAreListedBeforeAnyWrite() async throws {
        try await withNowSim(arguments: Self.sourceArguments) { source in
            try await withNowSim(arguments: EndToEnd.targetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("preflightSchema") { directory in
                    // The source has a custom field the target lacks, and incidents with a category the
                    // target's choice list does not have.
                    let field = try await source.request(
                        "POST", "/api/now/table/sys_dictionary",
                        body: Data(#"{"name":"incident","element":"u_tier","internal_type":"string"}"#.utf8))
                    try #require(field.status == 201)
                    let incidents = try await source.request(
                        "/api/now/table/incident", query: [("sysparm_limit", "3"), ("sysparm_fields", "sys_id")]
                    ).resultList.compactMap { $0["sys_id"] as? String }
                    try #require(incidents.count == 3)
                    for (index, sysID) in incidents.enumerated() {
                        let value = index == 2 ? "legacy,old" : "u_legacy"
                        let patched = try await source.request(
                            "PATCH", "/api/now/table/incident/\(sysID)",
                            body: Data(#"{"category":"\#(value)"}"#.utf8))
                        try #require(patched.status == 200)
                    }
                    // The target's severity is text, and its incident state 7 (Closed) is inactive.
                    for (query, change) in [
                        ("sys_dictionary", ("name=incident^element=severity", #"{"internal_type":"string"}"#)),
                        ("sys_choice", ("name=incident^element=incident_state^value=7", #"{"inactive":"true"}"#)),
                    ] {
                        let rows = try await target.request(
                            "/api/now/table/\(query)",
                            query: [("sysparm_query", change.0), ("sysparm_fields", "sys_id")]
                        ).resultList.compactMap { $0["sys_id"] as? String }
                        try #require(rows.count == 1, "\(query) \(change.0)")
                        let patched = try await target.request(
                            "PATCH", "/api/now/table/\(query)/\(rows[0])", body: Data(change.1.utf8))
                        try #require(patched.status == 200)
                    }
                    let closed = try await source.request(
                        "/api/now/stats/incident",
                        query: [("sysparm_count", "true"), ("sysparm_query", "incident_state=7")])
                    let closedCount =
                        Int(
                            ((closed.resultObject["stats"] as? [String: Any])?["count"] as? String) ?? "") ?? 0

                    try EndToEnd.pipeline(source, target, tables: ["incident"], in: directory)
                    let refused = try await EndToEnd.run(directory)
                    #expect(refused.status == 78, "\(refused.log)")
                    Self.expect(
                        refused.log,
                        contains: [
                            "incident: field u_tier ('string') is not in the target's dictionary",
                            "incident: field severity is 'integer' on the source but 'string' on the target",
                            "incident: field category has values 'u_legacy', 'legacy,old'",
                            "schema mismatch", "set on_schema_mismatch: warn", "nothing was written",
                        ])
                    #expect(
                        refused.log.contains("incident: field incident_state has value '7'") == (closedCount > 0),
                        "\(closedCount) closed: \(refused.log)")
                    let incidentWrites = {
                        EndToEnd.writes(target).filter { $0.path.hasPrefix("/api/now/table/incident") }
                    }
                    #expect(incidentWrites().isEmpty, "\(incidentWrites())")

                    let validated = try await Self.validate(directory)
                    #expect(validated.status == 78)
                    #expect(validated.stderrText.contains("incident: field u_tier ('string') is not in the target's"))

                    // warn: the mismatches are logged, and the run writes.
                    try EndToEnd.pipeline(
                        source, target, tables: ["incident"], output: "on_schema_mismatch: warn", in: directory)
                    let warned = try await EndToEnd.run(directory)
                    try #require(warned.status == 0, "\(warned.log)")
                    #expect(warned.log.contains("level=warning") && warned.log.contains("u_tier"), "\(warned.log)")
                    #expect(EndToEnd.loads(warned.log)["incident"]?["inserted"] == 40, "\(warned.log)")
                }
            }
        }
    }
}
