import Foundation
import NowSimTesting
import Testing

/// The XML route of a migration, end to end with the real binaries: `nowetl` exports users, groups,
/// incidents and problems (every field, awkward text included) as unload XML from one seeded nowsim,
/// `nowsim import --db` loads the files into a second, empty one, and the second's Table API then
/// holds every record of the first with the same stored values, system fields included.
@Suite(.timeLimit(.minutes(8))) struct UnloadMigrationTests {
    static let tables = ["sys_user", "sys_user_group", "incident", "problem"]
    static let seed = [
        "--seed", "sys_user=40,sys_user_group=6,incident=250,problem=30", "--seed-value", "23", "--user",
        "admin:admin:admin",
    ]

    static let pipeline = pipeline(output: #"xml: { path: "{table}.xml", format: unload }"#)

    /// The migration's pipeline with `output` (one item of `outputs:`).
    static func pipeline(output: String) -> String {
        PipelineYAML(
            auth: PipelineYAML.placeholderAuthBlock, source: ["concurrency: 2", "page_size: 100"],
            tables: ["sys_user", "sys_user_group", "incident", "problem"].map { "  - table: \($0)" }
                .joined(separator: "\n"),
            outputs: "  - \(output)"
        ).text
    }

    /// Every record of `table` as stored: sys_id → field → value (no reference links).
    static func records(_ sim: NowSimInstance, _ table: String) async throws -> [String: [String: String]] {
        let page = try await sim.request(
            "/api/now/table/\(table)",
            query: [
                ("sysparm_query", "ORDERBYsys_id"), ("sysparm_exclude_reference_link", "true"),
                ("sysparm_limit", "10000"),
            ])
        try #require(page.status == 200, "\(table): \(page.status)")
        var records: [String: [String: String]] = [:]
        for record in page.resultList {
            let fields = record.compactMapValues { $0 as? String }
            if let sysID = fields["sys_id"] { records[sysID] = fields }
        }
        return records
    }

    /// `text` as XML 1.0 can carry it: nowetl's unload writes U+FFFD for the characters XML forbids
    /// (C0 controls other than tab, LF, CR; U+FFFE, U+FFFF), so that is what an import can give back.
    static func xmlCarried(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let forbidden =
                (value < 0x20 && value != 0x09 && value != 0x0A && value != 0x0D) || value == 0xFFFE || value == 0xFFFF
            scalars.append(forbidden ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }

    /// The per-table counts `nowsim import` printed: table → [inserted, updated, deleted, not found].
    static func counts(_ stdout: String) -> [String: [Int]] {
        var counts: [String: [Int]] = [:]
        for line in stdout.split(separator: "\n") where line.hasPrefix("  ") {
            let parts = line.dropFirst(2).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            counts[String(parts[0])] = parts[1].split(separator: ",").prefix(4).compactMap {
                Int($0.split(separator: " ").first ?? "")
            }
        }
        return counts
    }

    /// The first few differences between `expected` and `actual`, as `table sys_id.field: actual ≠ expected`.
    static func differences(
        _ table: String, expected: [String: [String: String]], actual: [String: [String: String]]
    ) -> [String] {
        var found: [String] = []
        for sysID in Set(expected.keys).union(actual.keys).sorted() {
            guard let want = expected[sysID] else {
                found.append("\(table) \(sysID): extra on the target")
                continue
            }
            guard let have = actual[sysID] else {
                found.append("\(table) \(sysID): missing on the target")
                continue
            }
            for field in Set(want.keys).union(have.keys).sorted() where have[field] != want[field] {
                found.append(
                    "\(table) \(sysID).\(field): \(have[field].map { String($0.prefix(80)) } ?? "<none>") ≠ "
                        + "\(want[field].map { String($0.prefix(80)) } ?? "<none>")")
            }
        }
        return Array(found.prefix(8))
    }

    /// Expects `reconciled` (a `nowetl reconcile` of the migrated tables) to have found every record on
    /// both sides and differing rows exactly where the source's values hold characters XML cannot
    /// carry (`uncarried`: table → sys_id → fields): those fields, the target's value the XML-carried one
    /// (`carried`: table → sys_id → field → value); so exit 1.
    static func expectOnlyUncarried(
        _ reconciled: ReconcileRun.Result, uncarried: [String: [String: [String]]],
        source carried: [String: [String: [String: String]]]
    ) {
        #expect(reconciled.status == 1, "\(reconciled.summary)\(reconciled.log)")
        let found = ReconcileRun.tables(reconciled.report)
        #expect(found.keys.sorted() == tables.sorted(), "\(reconciled.summary)\(reconciled.log)")
        for (name, table) in found {
            let expected = uncarried[name] ?? [:]
            let rows = table["source_rows"] as? Int ?? -1
            #expect(rows > 0 && table["target_rows"] as? Int == rows, "\(name)")
            #expect(table["missing"] as? Int == 0 && table["extra"] as? Int == 0, "\(name)")
            #expect(table["differing"] as? Int == expected.count, "\(name)")
            #expect(table["matching"] as? Int == rows - expected.count, "\(name)")
            // The report lists the first differing rows in sys_id order, each with its differing fields.
            let listed = table["differing_rows"] as? [[String: Any]] ?? []
            let sysIDs = expected.keys.sorted()
            #expect(listed.compactMap { $0["sys_id"] as? String } == Array(sysIDs.prefix(listed.count)), "\(name)")
            #expect(listed.count == min(sysIDs.count, 20), "\(name)")
            for row in listed {
                let sysID = row["sys_id"] as? String ?? ""
                let fields = row["fields"] as? [[String: Any]] ?? []
                #expect(fields.compactMap { $0["field"] as? String } == expected[sysID], "\(name) \(sysID)")
                for field in fields where field["truncated"] as? Bool == false {
                    let fieldName = field["field"] as? String ?? ""
                    #expect(
                        field["target"] as? String == carried[name]?[sysID]?[fieldName], "\(name) \(sysID).\(fieldName)"
                    )
                    #expect(field["source"] as? String != field["target"] as? String)
                }
            }
        }
    }

    @Test func anUnloadExportImportedIntoAnEmptyInstanceEqualsTheSource() async throws {
        try await withScratchDirectory { (directory: URL) in
            defer { try? FileManager.default.removeItem(at: directory) }
            let pipelinePath = directory.appendingPathComponent("migrate.yaml")
            try Data(Self.pipeline.utf8).write(to: pipelinePath)

            try await withNowSim(arguments: Self.seed) { source in
                let environment = [
                    "SN_INSTANCE": source.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin",
                ]
                // Text XML 1.0 cannot carry (the seed has none): one incident's description with C0 controls.
                let first = try await source.request(
                    "/api/now/table/incident", query: [("sysparm_fields", "sys_id"), ("sysparm_limit", "1")])
                let uncarriable = try #require(first.resultList.first?["sys_id"] as? String)
                try await IncidentEdits.patch(
                    source, uncarriable, ["description": "bell \u{7}, escape \u{1B} and tab \t"])
                let run = try await NowETLProcess.run(
                    ["run", pipelinePath.path, "--progress", "off"], in: directory, environment: environment
                ).textual
                try #require(run.status == 0, "\(run.stderr)")
                let files = Self.tables.map { directory.appendingPathComponent("out/\($0).xml").path }

                var expected: [String: [String: [String: String]]] = [:]
                // Per table, the records with values XML cannot carry: sys_id → those fields.
                var uncarried: [String: [String: [String]]] = [:]
                for table in Self.tables {
                    let stored = try await Self.records(source, table)
                    expected[table] = stored.mapValues { $0.mapValues(Self.xmlCarried) }
                    uncarried[table] = stored.compactMapValues { record in
                        let fields = record.filter { Self.xmlCarried($0.value) != $0.value }.keys.sorted()
                        return fields.isEmpty ? nil : fields
                    }
                    #expect(expected[table]?.isEmpty == false, "\(table) has no records to migrate")
                }
                // The seed's awkward text is part of what travels.
                let descriptions = expected["incident"]?.values.compactMap { $0["short_description"] } ?? []
                #expect(descriptions.contains { $0.contains("\n") || $0.contains("<") || $0.contains("\"") })

                try await withNowSim(arguments: ["--user", "admin:admin:admin"]) { target in
                    let first = try await Subprocess.run(
                        NowSimInstance.binaryPath(), ["import", "--db", target.databasePath] + files, timeout: 300)
                    try #require(first.status == 0, "\(first.output)")
                    let firstCounts = Self.counts(first.stdoutText)
                    for table in Self.tables {
                        let total = expected[table]?.count ?? -1
                        let counts = firstCounts[table] ?? []
                        #expect(counts.count == 4 && counts[0] + counts[1] == total, "\(table): \(first.stdoutText)")
                        // Only the admin user, which every nowsim has under its well-known sys_id, exists already.
                        #expect(counts.count == 4 && counts[1] == (table == "sys_user" ? 1 : 0), "\(table): \(counts)")
                    }
                    for table in Self.tables {
                        let actual = try await Self.records(target, table)
                        #expect(
                            Self.differences(table, expected: expected[table] ?? [:], actual: actual) == [],
                            "\(table) on the target differs from the source")
                    }
                    // References resolve on the target.
                    let users = Set(try await Self.records(target, "sys_user").keys)
                    let callers = Set(
                        (expected["incident"] ?? [:]).values.compactMap { $0["caller_id"] }.filter { !$0.isEmpty })
                    #expect(!callers.isEmpty && callers.isSubset(of: users))

                    // Imported again: every record updated, none added, nothing changed.
                    let second = try await Subprocess.run(
                        NowSimInstance.binaryPath(), ["import", "--db", target.databasePath] + files, timeout: 300)
                    try #require(second.status == 0, "\(second.output)")
                    let secondCounts = Self.counts(second.stdoutText)
                    for table in Self.tables {
                        #expect(
                            secondCounts[table] == [0, expected[table]?.count ?? -1, 0, 0],
                            "\(table): \(second.stdoutText)"
                        )
                        let actual = try await Self.records(target, table)
                        #expect(Self.differences(table, expected: expected[table] ?? [:], actual: actual) == [])
                    }

                    // `nowetl reconcile` with the target as the pipeline's instance output: every record
                    // there, and none differing but for the values XML cannot carry — exactly those.
                    let reconcilePipeline = Self.pipeline(
                        output: "instance: { instance: \(target.baseURL.absoluteString), auth: { basic: { user: admin, "
                            + "password: admin } } }")
                    try Data(reconcilePipeline.utf8).write(to: directory.appendingPathComponent("reconcile.yaml"))
                    let reconciled = try await ReconcileRun.run(
                        directory, pipeline: "reconcile.yaml", environment: environment)
                    Self.expectOnlyUncarried(reconciled, uncarried: uncarried, source: expected)
                    #expect(uncarried["incident"] == [uncarriable: ["description"]])
                }
            }
        }
    }
}
