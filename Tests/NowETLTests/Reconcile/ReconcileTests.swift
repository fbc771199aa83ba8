import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl reconcile`'s engine against two real nowsims holding copies of one seeded database (the
/// file `nowsim seed` wrote, copied before each instance starts): equal copies, a target changed on
/// purpose in every way a migration can go wrong, awkward text, pages of different sizes on the two
/// sides, a target that refuses or hides records.
@Suite(.serialized, .timeLimit(.minutes(8))) struct ReconcileTests {
    static let rows = 240

    /// The seeded database every instance of the suite starts from (a copy of it each).
    static let seeded = Task { () throws -> URL in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowetl-reconcile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("seeded.sqlite")
        let result = try await Subprocess.run(
            NowSimInstance.binaryPath(),
            ["seed", "--db", database.path, "--seed", "incident=\(rows)", "--seed-value", "17"], timeout: 300)
        guard result.status == 0 else {
            throw NowSimStartFailure(description: "nowsim seed exited \(result.status): \(result.stderrText)")
        }
        return database
    }

    /// Runs `body` with a nowsim serving a fresh copy of the seeded database.
    static func withCopy<Value>(_ arguments: [String] = [], _ body: (NowSimInstance) async throws -> Value)
        async throws -> Value
    {
        let seeded = try await seeded.value
        let copy = seeded.deletingLastPathComponent().appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: seeded, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        return try await withNowSim(arguments: ["--db", copy.path, "--user", "admin:admin:admin"] + arguments, body)
    }

    /// Runs `body` with a source and a target holding the same records.
    static func withPair<Value>(
        target arguments: [String] = [], _ body: (NowSimInstance, NowSimInstance) async throws -> Value
    ) async throws -> Value {
        try await Self.withCopy { source in
            try await Self.withCopy(arguments) { target in try await body(source, target) }
        }
    }

    /// Reconciles `incident` with source pages of `sourcePage` records and target pages of `targetPage`.
    static func reconcile(
        _ source: NowSimInstance, _ target: NowSimInstance, sourcePage: Int = 50, targetPage: Int = 50,
        limits: TableReconciliation.Limits = .init(), targetUser: String = "admin", targetPassword: String = "admin"
    ) async throws -> TableReconciliationResult {
        let dictionary = try await FieldDiscovery(service: IncidentEdits.service(source)).fields(of: "incident")
        return try await TableReconciliation(table: "incident", dictionary: dictionary, limits: limits).run(
            source: .init(role: "source", service: IncidentEdits.service(source), pageSize: sourcePage),
            target: .init(
                role: "target", service: IncidentEdits.service(target, user: targetUser, password: targetPassword),
                pageSize: targetPage))
    }

    /// `nowetl reconcile` in-process on a pipeline whose source is `source` and whose instance output
    /// is `target`; returns the exit code, what it printed and the JSON report.
    static func command(
        _ source: NowSimInstance, _ target: URL, targetUser: String = "admin", targetPassword: String = "admin",
        targetSettings: String = "", arguments: [String] = []
    ) async throws -> (code: Int32, stdout: String, stderr: String, report: [String: Any]?) {
        return try await withScratchDirectory { (directory: URL) in
            let pipeline = directory.appendingPathComponent("migrate.yaml")
            try """
            version: 1
            source:
              instance: ${SOURCE}
              auth:
                basic: { user: admin, password: "${SOURCE_PASSWORD}" }
              page_size: 40
            output_dir: \(directory.path)/out
            tables:
              - table: incident
              - table: problem
            outputs:
              - instance:
                  instance: ${TARGET}
                  auth:
                    basic: { user: "${TARGET_USER}", password: "${TARGET_PASSWORD}" }
                  concurrency: 2
            \(targetSettings)
            """.write(to: pipeline, atomically: true, encoding: .utf8)
            let report = directory.appendingPathComponent("reports/reconcile.json")
            let (code, captured) = await InProcessNowETL.run(
                ["reconcile", pipeline.path, "--report", report.path] + arguments,
                environment: [
                    "SOURCE": source.baseURL.absoluteString, "SOURCE_PASSWORD": "admin",
                    "TARGET": target.absoluteString, "TARGET_USER": targetUser,
                    "TARGET_PASSWORD": targetPassword,
                ])
            let json = (try? Data(contentsOf: report)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            return (code, captured.standardOutput, captured.standardError, json as? [String: Any])
        }
    }

    /// The result without what depends on paging and timing.
    static func findings(_ result: TableReconciliationResult) -> TableReconciliationResult {
        var result = result
        (result.pages, result.requests, result.seconds) = (0, 0, 0)
        return result
    }

    @Test func equalCopiesHaveNoDifferences() async throws {
        try await Self.withPair { source, target in
            let result = try await Self.reconcile(source, target, sourcePage: 37, targetPage: 50)
            #expect(result.sourceRows == Self.rows && result.targetRows == Self.rows)
            #expect(result.matching == Self.rows)
            #expect(result.missing == 0 && result.extra == 0 && result.differing == 0)
            #expect(result.sourceHidden == 0 && result.targetHidden == 0)
            #expect(result.isEqual)
            // Every field of the dictionary, system fields included.
            for field in ["sys_id", "sys_created_on", "sys_updated_on", "sys_mod_count", "number", "short_description"]
            {
                #expect(result.fields.contains(field), "\(field)")
            }
            #expect(result.fields == result.fields.sorted())

            // The same through the pipeline's engine: exit 0, and the JSON report says so.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "nowetl-reconcile-report-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let configuration = try PipelineLoader.load(
                text: PipelineYAML(
                    source, auth: #"\#n    basic: { user: admin, password: "${SN_PASSWORD}" }"#,
                    source: ["page_size: 64"],
                    outputDirectory: directory.path
                ).text, file: "p.yaml", environment: ["SN_PASSWORD": "admin"])
            let report = await PipelineReconciliation(
                configuration: configuration, target: IncidentEdits.service(target), tables: configuration.tables
            ).run()
            #expect(report.status == "equal" && report.exitCode == 0 && report.failure == nil)
            #expect(report.totals.matching == Self.rows && report.totals.tables == 1 && report.totals.equalTables == 1)
            let path = directory.appendingPathComponent("reports/reconcile.json").path
            try report.write(toFile: path)
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            #expect(json["status"] as? String == "equal" && json["exit_code"] as? Int == 0)
            let table = try #require((json["tables"] as? [[String: Any]])?.first)
            #expect(table["equal"] as? Bool == true && table["matching"] as? Int == Self.rows)
            #expect(table["missing_sys_ids"] as? [String] == [] && table["differing_rows"] as? [Any] != nil)
            #expect(
                try JSONDecoder().decode(ReconciliationReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
                    == report)
            #expect(report.text().hasPrefix("reconcile \(source.baseURL.absoluteString) → "))
            #expect(report.text().contains(": equal (exit 0)\n"))

            // And through the command, against the pipeline's instance output.
            let command = try await Self.command(source, target.baseURL, arguments: ["--table", "incident"])
            #expect(command.code == 0, "\(command.stderr)")
            #expect(command.stdout.contains(": equal (exit 0)\n"))
            #expect(command.stdout.contains("\nincident  "))
            #expect(command.report?["status"] as? String == "equal")
            #expect((command.report?["tables"] as? [[String: Any]])?.map { $0["table"] as? String } == ["incident"])
        }
    }

    @Test func aChangedADeletedAndAnExtraRowAreEachReported() async throws {
        try await Self.withPair { source, target in
            let ids = try await IncidentEdits.sysIDs(source)
            try #require(ids.count == Self.rows)
            let changed = ids[5]
            let deleted = ids[77]
            let extra =
                String(ids[120].dropLast()) + "0123456789abcdef".map(String.init).first { digit in
                    !ids.contains(String(ids[120].dropLast()) + digit)
                }!
            try await IncidentEdits.patch(target, changed, ["short_description": "changed on the target"])
            try await IncidentEdits.delete(target, deleted)
            try await IncidentEdits.insert(target, extra)
            let original = try await source.request(
                "/api/now/table/incident/\(changed)", query: [("sysparm_fields", "short_description")])
            let before = try #require(original.resultObject["short_description"] as? String)

            let result = try await Self.reconcile(source, target)
            #expect(result.missing == 1 && result.missingSysIDs == [deleted])
            #expect(result.extra == 1 && result.extraSysIDs == [extra])
            #expect(result.differing == 1)
            let row = try #require(result.differingRows.first)
            #expect(row.sysID == changed && row.sourceDigest != row.targetDigest && row.sourceDigest.count == 64)
            #expect(
                row.fields == [
                    .init(field: "short_description", source: before, target: "changed on the target")
                ])
            #expect(result.matching == Self.rows - 2)
            #expect(result.sourceRows == Self.rows && result.targetRows == Self.rows)
            #expect(!result.isEqual)

            let report = ReconciliationReport(
                source: "s", target: "t", started: Date(), seconds: 1, tables: [result])
            #expect(report.status == "different" && report.exitCode == 1)
            let text = report.text()
            #expect(text.contains("incident: 1 missing on the target: \(deleted)\n"))
            #expect(text.contains("incident: 1 extra on the target: \(extra)\n"))
            #expect(
                text.contains(
                    "  \(changed):\n    short_description: source \"\(before)\" · target \"changed on the target\""))

            // The command: exit 1, the same findings on stdout and in the report, problem equal.
            let command = try await Self.command(source, target.baseURL)
            #expect(command.code == 1, "\(command.stderr)")
            #expect(command.stdout.contains(": different (exit 1)\n"))
            #expect(command.stdout.contains("incident: 1 missing on the target: \(deleted)\n"))
            #expect(command.stdout.contains("incident: 1 extra on the target: \(extra)\n"))
            let tables = try #require(command.report?["tables"] as? [[String: Any]])
            #expect(tables.map { $0["table"] as? String } == ["incident", "problem"])
            #expect(tables.map { $0["equal"] as? Bool } == [false, true])
            #expect(tables.first?["missing_sys_ids"] as? [String] == [deleted])
            #expect(tables.first?["extra_sys_ids"] as? [String] == [extra])
            let differing = try #require((tables.first?["differing_rows"] as? [[String: Any]])?.first)
            #expect(differing["sys_id"] as? String == changed)
            let fields = try #require(differing["fields"] as? [[String: Any]])
            #expect(fields.map { $0["field"] as? String } == ["short_description"])
            #expect(fields.first?["source"] as? String == before)
            #expect(fields.first?["target"] as? String == "changed on the target")
        }
    }

    @Test func pagesOfDifferentSizesStayInLockstepAcrossRunsOfDifferences() async throws {
        try await Self.withPair { source, target in
            let ids = try await IncidentEdits.sysIDs(source)
            try #require(ids.count == Self.rows)
            // A run of deletions longer than any page, and single ones on page edges.
            let deleted = Array(ids[10..<22]) + [ids[35], ids[99], ids[100], ids[Self.rows - 1]]
            for id in deleted { try await IncidentEdits.delete(target, id) }
            // Extras before the first record, inside the deleted run, beside kept records and after the last.
            func beside(_ id: String) -> String {
                String(id.dropLast())
                    + "0123456789abcdef".map(String.init).first { !ids.contains(String(id.dropLast()) + $0) }!
            }
            let extras = [
                String(repeating: "0", count: 31) + "1", beside(ids[15]), beside(ids[30]), beside(ids[31]),
                beside(ids[150]), String(repeating: "f", count: 32),
            ]
            for id in extras { try await IncidentEdits.insert(target, id) }
            let changed = [ids[0], ids[49], ids[50], ids[200]]
            for (index, id) in changed.enumerated() {
                try await IncidentEdits.patch(target, id, ["description": "edited \(index)"])
            }

            var results: [TableReconciliationResult] = []
            for (sourcePage, targetPage) in [(5, 7), (7, 5), (1, 3), (1000, 1000)] {
                let result = try await Self.reconcile(source, target, sourcePage: sourcePage, targetPage: targetPage)
                #expect(result.missing == deleted.count && result.missingSysIDs == deleted.sorted())
                #expect(result.extra == extras.count && result.extraSysIDs == extras.sorted())
                #expect(result.differing == changed.count && result.differingRows.map(\.sysID) == changed.sorted())
                #expect(result.differingRows.allSatisfy { $0.fields.map(\.field) == ["description"] })
                #expect(result.matching == Self.rows - deleted.count - changed.count)
                #expect(result.targetRows == Self.rows - deleted.count + extras.count)
                results.append(Self.findings(result))
            }
            #expect(Set(results).count == 1)

            // Lists are capped, totals stay exact.
            let capped = try await Self.reconcile(
                source, target, sourcePage: 5, targetPage: 7,
                limits: .init(listedSysIDs: 3, sampledRows: 2, valueLength: 50))
            #expect(capped.missing == deleted.count && capped.missingSysIDs == Array(deleted.sorted().prefix(3)))
            #expect(capped.extra == extras.count && capped.extraSysIDs == Array(extras.sorted().prefix(3)))
            #expect(capped.differing == changed.count && capped.differingRows.count == 2)
            let text = ReconciliationReport(source: "s", target: "t", started: Date(), seconds: 1, tables: [capped])
                .text()
            #expect(text.contains("incident: \(deleted.count) missing on the target: "))
            #expect(text.contains(" (first 3 listed)\n"))
        }
    }

    @Test func awkwardTextComparesEqualWhenEqualAndShowsWhereItDiffers() async throws {
        let long = String(repeating: "0123456789abcdef—ü€😀 ", count: 3000)  // ≈ 60 KB
        let awkward: [String: String] = [
            "short_description": "quote \" apostrophe ' backslash \\ <tag> &amp; ${VAR}",
            "description": "line one\nline two\r\n\ttabbed 🇩🇪 e\u{301} 漢字 " + long,
            "close_notes": "",
        ]
        try await Self.withPair { source, target in
            let ids = try await IncidentEdits.sysIDs(source)
            try #require(ids.count == Self.rows)
            for id in [ids[3], ids[150]] {
                try await IncidentEdits.patch(source, id, awkward)
                try await IncidentEdits.patch(target, id, awkward)
            }
            let stored = try await target.request(
                "/api/now/table/incident/\(ids[3])", query: [("sysparm_fields", "description")])
            try #require(stored.resultObject["description"] as? String == awkward["description"])

            let equal = try await Self.reconcile(source, target, sourcePage: 4, targetPage: 6)
            #expect(equal.isEqual && equal.matching == Self.rows)

            // One character more at the end of the 60 KB value, and a decomposed é made precomposed.
            try await IncidentEdits.patch(target, ids[3], ["description": awkward["description"]! + "!"])
            try await IncidentEdits.patch(
                target, ids[150],
                [
                    "description": awkward["description"]!.replacingOccurrences(
                        of: "e\u{301}", with: "é")
                ])
            let different = try await Self.reconcile(
                source, target, limits: .init(valueLength: 40))
            #expect(different.differing == 2 && different.matching == Self.rows - 2)
            let end = try #require(different.differingRows.first { $0.sysID == ids[3] }?.fields.first)
            #expect(end.field == "description" && end.truncated)
            // The shown excerpt starts shortly before the first differing character.
            #expect(end.source?.hasPrefix("…") == true && end.target?.hasSuffix("!") == true)
            #expect((end.target?.count ?? 0) <= 41 && (end.source?.count ?? 0) <= 41)
            let composed = try #require(different.differingRows.first { $0.sysID == ids[150] }?.fields.first)
            #expect(composed.field == "description")
        }
    }

    @Test func aTargetThatRefusesIsExit77AndHiddenRecordsAreNotEqual() async throws {
        let arguments = [
            "--user", "reader:pw:snc_read_only", "--user", "agent:pw:itil", "--table-acl", "incident=itil",
            "--row-acl", "agent:incident:priority=1",
        ]
        try await Self.withPair(target: arguments) { source, target in
            // 403 on every incident page of the target.
            let refused = await #expect(throws: NowETLError.self) {
                try await Self.reconcile(source, target, targetUser: "reader", targetPassword: "pw")
            }
            #expect(refused?.code == .authentication && refused?.exitCode == 77)
            #expect(refused?.message.hasPrefix("target: ") == true)
            #expect(refused.map { !$0.description.contains("pw@") && !$0.description.contains("reader:pw") } ?? false)

            // Through the pipeline's engine: the failure stops it with 77, naming the table.
            let configuration = try PipelineLoader.load(
                text: PipelineYAML(
                    source, auth: "\n    basic: { user: admin, password: admin }", outputDirectory: "/tmp/unused",
                    tables: "  - table: incident\n  - table: problem"
                ).text, file: "p.yaml", environment: [:])
            let report = await PipelineReconciliation(
                configuration: configuration, target: IncidentEdits.service(target, user: "reader", password: "pw"),
                tables: configuration.tables, secrets: ["pw"]
            ).run()
            #expect(report.status == "failed" && report.exitCode == 77)
            #expect(report.failure?.table == "incident" && report.notRun == ["problem"])
            #expect(report.text().contains("failed on incident (exit 77): "))
            let command = try await Self.command(source, target.baseURL, targetUser: "reader", targetPassword: "pw")
            #expect(command.code == 77, "\(command.stderr)")
            #expect(command.report?["status"] as? String == "failed" && command.report?["exit_code"] as? Int == 77)
            #expect(command.report?["not_run"] as? [String] == ["problem"])
            #expect(!command.stdout.contains("reader:pw") && !command.stderr.contains("reader:pw"))

            // Row ACLs hide records from the target's reader: they are counted, and not equal.
            let all = try await IncidentEdits.sysIDs(target)
            let visible = try await target.request(
                "/api/now/table/incident",
                query: [("sysparm_fields", "sys_id"), ("sysparm_query", "priority=1"), ("sysparm_limit", "10000")])
            let shown = visible.resultList.count
            try #require(shown > 0 && shown < all.count)
            let hidden = try await Self.reconcile(
                source, target, sourcePage: 9, targetPage: 9, targetUser: "agent", targetPassword: "pw")
            #expect(hidden.targetRows == shown && hidden.targetHidden == Self.rows - shown)
            #expect(hidden.missing == Self.rows - shown && hidden.extra == 0 && hidden.differing == 0)
            #expect(!hidden.isEqual)
        }
    }

    @Test func anUnreachableTargetIsExit69AndAnOverloadedOne75() async throws {
        let refused = try RefusedPort()
        let once = "      retry: { attempts: 1 }"
        try await Self.withCopy { source in
            let unreachable = try await Self.command(source, refused.baseURL, targetSettings: once)
            #expect(unreachable.code == 69, "\(unreachable.stdout)\(unreachable.stderr)")
            #expect(unreachable.stdout.contains("failed on incident (exit 69): target: "))
            #expect(unreachable.report?["exit_code"] as? Int == 69)
            try await Self.withCopy(["--fault", "status:code=503,every=1,table=incident"]) { target in
                let overloaded = try await Self.command(source, target.baseURL, targetSettings: once)
                #expect(overloaded.code == 75, "\(overloaded.stdout)\(overloaded.stderr)")
                #expect(overloaded.stdout.contains("failed on incident (exit 75): target: "))
            }
        }
    }

    @Test func theDigestKeepsFieldBoundariesEmptyValuesAndSpellingsApart() {
        let digest = RowDigest(fields: ["a", "b"])
        func record(_ fields: [String: Record.Value]) -> Record { Record(fields: fields) }
        let split = [
            record(["a": .text("x"), "b": .text("yz")]), record(["a": .text("xy"), "b": .text("z")]),
            record(["a": .text(""), "b": .text("xyz")]), record(["b": .text("xyz")]),
            record(["a": .null, "b": .text("xyz")]), record(["a": .text("e\u{301}"), "b": .text("")]),
            record(["a": .text("é"), "b": .text("")]),
        ]
        let digests = split.map { digest.digest(of: $0).hexString }
        // Absent and null are both "no value"; everything else differs.
        #expect(digests[3] == digests[4])
        #expect(Set(digests).count == split.count - 1)
        #expect(digest.differingFields(split[5], split[6]) == ["a"])
        #expect(digest.differingFields(split[3], split[4]) == [])
        // A value with its display value and link counts by its stored value.
        #expect(
            digest.digest(of: record(["a": .forms(value: "x", displayValue: "X", link: "l"), "b": .text("yz")]))
                == digest.digest(of: split[0]))
        // The canonical encoding is fixed: SHA-256 of 00000001 61 01 0000000000000001 78 00000001 62 00.
        let bytes: [UInt8] = [0, 0, 0, 1, 0x61, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x78, 0, 0, 0, 1, 0x62, 0]
        var hash = SHA256()
        hash.update(bytes)
        #expect(digest.digest(of: record(["a": .text("x")])) == hash.finalize())
    }

    @Test func shownValuesAreCutNearTheirDifferenceAndCredentialsWithheld() {
        let reconciliation = TableReconciliation(
            table: "sys_user",
            dictionary: [
                DictionaryField(name: "name", internalType: "string", definedOn: "sys_user"),
                DictionaryField(name: "user_password", internalType: "password", definedOn: "sys_user"),
            ], secrets: ["hunter2"], limits: .init(valueLength: 8))
        #expect(reconciliation.fields == ["name", "sys_id", "user_password"])
        #expect(reconciliation.withheldFields == ["user_password"])
        #expect(
            reconciliation.shown("user_password", "a", "b")
                == .init(field: "user_password", source: nil, target: nil, withheld: true))
        #expect(reconciliation.shown("name", "my hunter2", "x").withheld)
        #expect(reconciliation.shown("name", "short", nil) == .init(field: "name", source: "short", target: nil))
        #expect(
            reconciliation.shown("name", "abcdefghijkl", "abc")
                == .init(field: "name", source: "abcdefgh", target: "abc", truncated: true))
        // The first difference lies beyond the limit: the excerpt starts two scalars before it.
        #expect(
            reconciliation.shown("name", "0123456789A", "0123456789B")
                == .init(field: "name", source: "…89A", target: "…89B", truncated: true))
    }

    @Test func theCommandLineParsesAndNeedsAnInstanceOutput() async throws {
        #expect(
            try NowETLArguments.parse(["reconcile", "p.yaml", "--table", "a", "--table", "b", "--report", "r.json"])
                == .reconcile(.init(pipeline: "p.yaml", tables: ["a", "b"], report: "r.json")))
        #expect(throws: NowETLArguments.UsageError.self) { try NowETLArguments.parse(["reconcile"]) }
        #expect(throws: NowETLArguments.UsageError.self) {
            try NowETLArguments.parse(["reconcile", "p.yaml", "--report"])
        }
        #expect(NowETLArguments.usage.contains("nowetl reconcile PIPELINE [--table T]… [--report PATH]"))

        try await withScratchDirectory { (directory: URL) in
            let pipeline = directory.appendingPathComponent("p.yaml")
            try """
            version: 1
            source:
              instance: http://127.0.0.1:1
              auth:
                basic: { user: admin, password: admin }
            output_dir: \(directory.path)/out
            tables:
              - table: incident
            outputs:
              - csv: { path: "{table}.csv" }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
            let unknown = CapturedStreams()
            #expect(
                await InProcessNowETL.run(["reconcile", pipeline.path, "--table", "nope"], streams: unknown).code
                    == 64)
            let noTarget = CapturedStreams()
            #expect(await InProcessNowETL.run(["reconcile", pipeline.path], streams: noTarget).code == 78)
            #expect(noTarget.standardError.contains("instance output"))
        }
    }
}
