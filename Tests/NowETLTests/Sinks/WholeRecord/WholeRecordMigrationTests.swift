import Foundation
import NowSimTesting
import Testing

/// The real `nowetl` migrating incidents with their attachments, journal entries and audit rows from
/// a nowsim holding ``WholeRecordFixture`` into an empty nowsim: read back through the target's own
/// Attachment API, every attachment has the same sys_id, record and bytes; every journal entry its
/// original author and time, and the record writes added none of their own.
@Suite(.serialized, .timeLimit(.minutes(12))) struct WholeRecordMigrationTests {
    static func pipeline(_ source: NowSimInstance, _ target: NowSimInstance, in directory: URL) throws {
        try PipelineYAML(
            source, source: ["concurrency: 2", "page_size: 20"],
            tables: """
                  - table: incident
                    attachments: true
                    journal: [work_notes, comments]
                    audit: true
                """,
            outputs: """
                  - instance:
                      instance: \(target.baseURL.absoluteString)
                      auth: { basic: { user: migrator, password: migrator-Pw0rd } }
                      retry: { attempts: 30, max_wait_seconds: 0.2, total_seconds: 120 }
                """
        ).write("p.yaml", in: directory)
    }

    /// `nowetl reconcile` of the pipeline in `directory`: its exit code, its summary and the incident
    /// table's entry of the JSON report.
    static func reconcile(_ directory: URL) async throws -> (status: Int32, stdout: String, table: [String: Any]) {
        let report = directory.appendingPathComponent("reconcile.json")
        let result = try await NowETLProcess.run(
            ["reconcile", "p.yaml", "--report", report.path], in: directory, timeout: 600)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let tables = try #require(object["tables"] as? [[String: Any]])
        return (result.status, result.stdoutText, try #require(tables.first))
    }

    /// Other bytes for an attachment's first `sys_attachment_doc` chunk, in the form the instance stores
    /// chunks (base64 of gzip'd bytes), made by `gzip` and `base64` (independent writers): the target
    /// then serves other bytes for the attachment, with its metadata unchanged.
    static func replacementChunk() async throws -> String {
        let result = try await Subprocess.run(
            "/bin/sh", ["-c", "printf 'changed on the target' | gzip -c | base64 -w0"], timeout: 60)
        try #require(result.status == 0)
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every attachment of `sim` by sys_id (the Attachment API's listing, 100 a page).
    static func attachments(_ sim: NowSimInstance) async throws -> [String: [String: Any]] {
        var all: [String: [String: Any]] = [:]
        var offset = 0
        while true {
            let response = try await sim.request(
                "/api/now/attachment",
                query: [("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "100"), ("sysparm_offset", "\(offset)")])
            try #require(response.status == 200)
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            let page = try #require(object["result"] as? [[String: Any]])
            for item in page { all[item["sys_id"] as? String ?? ""] = item }
            if page.count < 100 { return all }
            offset += 100
        }
    }

    @Test func attachmentsAndJournalEntriesArriveWithTheirSysIDsAuthorsAndBytes() async throws {
        try await withNowSim(arguments: WholeRecordFixture.arguments) { source in
            try await withNowSim(arguments: SinkInstanceEndToEndTests.targetArguments) { target in
                try await SinkInstanceEndToEndTests.withScratch("wholeRecordMigration") { directory in
                    let fixture = try await WholeRecordFixture.make(on: source, scratch: directory)
                    try Self.pipeline(source, target, in: directory)
                    let result = try await NowETLProcess.run(
                        ["run", "p.yaml", "--progress", "off", "--summary-json", "summary.json"], in: directory,
                        timeout: 600)
                    try #require(result.status == 0, "\(result.stderrText)")
                    let summary = try #require(
                        try JSONSerialization.jsonObject(
                            with: Data(contentsOf: directory.appendingPathComponent("summary.json"))) as? [String: Any])
                    let counted = try #require((summary["tables"] as? [[String: Any]])?.first)
                    #expect(counted["attachments"] as? Int == 45)
                    #expect(counted["attachment_bytes"] as? Int == fixture.uploads.values.reduce(0) { $0 + $1.bytes })

                    // Through the target's own Attachment API: same sys_ids, records, names and bytes.
                    let copied = try await Self.attachments(target)
                    #expect(Set(copied.keys) == Set(fixture.uploads.keys))
                    for (sysID, upload) in fixture.uploads {
                        let item = try #require(copied[sysID])
                        #expect(item["table_sys_id"] as? String == upload.record)
                        #expect(item["file_name"] as? String == upload.fileName)
                        #expect(item["content_type"] as? String == upload.contentType)
                        #expect(item["size_bytes"] as? String == String(upload.bytes))
                        let file = try await target.request(
                            "/api/now/attachment/\(sysID)/file", headers: ["Accept": "*/*"])
                        try #require(file.status == 200)
                        #expect(
                            try await WholeRecordFixture.sha256(file.body, in: directory) == upload.sha256, "\(sysID)")
                    }

                    // Journal entries: the source's, with their authors and times, and no entry of the writes.
                    let journalOf = { (sim: NowSimInstance) async throws -> [String: [String: String]] in
                        try await SinkInstanceEndToEndTests.dump(sim, "sys_journal_field").filter {
                            $0.value["name"] == "incident"
                        }
                    }
                    let sourceEntries = try await journalOf(source)
                    let targetEntries = try await journalOf(target)
                    #expect(sourceEntries.count >= 60)
                    #expect(counted["journal_entries"] as? Int == sourceEntries.count)
                    #expect(Set(targetEntries.keys) == Set(sourceEntries.keys))
                    for (sysID, entry) in sourceEntries {
                        for field in ["element", "element_id", "value", "sys_created_on", "sys_created_by"] {
                            #expect(targetEntries[sysID]?[field] == entry[field], "\(sysID) \(field)")
                        }
                    }
                    // The audit rows of the source arrived with theirs.
                    let sourceAudit = try await SinkInstanceEndToEndTests.dump(source, "sys_audit").filter {
                        $0.value["tablename"] == "incident"
                    }
                    let targetAudit = try await SinkInstanceEndToEndTests.dump(target, "sys_audit")
                    for (sysID, row) in sourceAudit {
                        #expect(targetAudit[sysID]?["newvalue"] == row["newvalue"], "\(sysID)")
                        #expect(targetAudit[sysID]?["sys_created_by"] == row["sys_created_by"], "\(sysID)")
                    }

                    // reconcile proves the whole records equal …
                    let equal = try await Self.reconcile(directory)
                    #expect(equal.status == 0, "\(equal.stdout)")
                    let whole = try #require(equal.table["whole_record"] as? [String: Any])
                    let attachmentCounts = try #require(whole["attachments"] as? [String: Any])
                    #expect(attachmentCounts["matching"] as? Int == 45)
                    #expect((whole["journal"] as? [String: Any])?["matching"] as? Int == sourceEntries.count)

                    // … then finds an attachment whose bytes changed and a journal entry deleted on the target.
                    let changed = try #require(fixture.uploads.keys.sorted().first { $0 != fixture.large })
                    let docs = try await SinkInstanceEndToEndTests.dump(target, "sys_attachment_doc").filter {
                        $0.value["sys_attachment"] == changed
                    }
                    let doc = try #require(docs.min { ($0.value["position"] ?? "") < ($1.value["position"] ?? "") })
                    let replacement = try await Self.replacementChunk()
                    let patched = try await target.request(
                        "PATCH", "/api/now/table/sys_attachment_doc/\(doc.key)",
                        body: try JSONSerialization.data(withJSONObject: ["data": replacement]))
                    try #require(patched.status == 200)
                    let deletedEntry = try #require(sourceEntries.keys.sorted().first)
                    let deleted = try await target.request("DELETE", "/api/now/table/sys_journal_field/\(deletedEntry)")
                    try #require(deleted.status == 204)
                    let different = try await Self.reconcile(directory)
                    #expect(different.status == 1, "\(different.stdout)")
                    let found = try #require(
                        (different.table["whole_record"] as? [String: Any])?["differences"] as? [[String: Any]])
                    #expect(
                        found.contains {
                            $0["kind"] as? String == "attachment" && $0["sys_id"] as? String == changed
                                && ($0["problem"] as? String)?.contains("content") == true
                        }, "\(found)")
                    #expect(
                        found.contains {
                            $0["kind"] as? String == "journal" && $0["sys_id"] as? String == deletedEntry
                                && $0["problem"] as? String == "missing on the target"
                        }, "\(found)")
                    #expect(different.stdout.contains("differs in content"))
                }
            }
        }
    }

    /// An incremental migration's second run copies what is new since the first: the note added to a
    /// record, and the attachment added to a record that did not change — not one added to a record the
    /// table's filter leaves out.
    @Test func anIncrementalMigrationCopiesTheAttachmentsAndEntriesAddedSinceTheLastRun() async throws {
        try await withNowSim(arguments: seededNowSim("incident=8", value: 33)) { source in
            try await withNowSim(arguments: SinkInstanceEndToEndTests.targetArguments) { target in
                try await SinkInstanceEndToEndTests.withScratch("wholeRecordIncrementalMigration") { directory in
                    let incidents = try await WholeRecordFixture.writeIncrementalPipeline(
                        source,
                        outputs: """
                              - instance:
                                  instance: \(target.baseURL.absoluteString)
                                  auth: { basic: { user: migrator, password: migrator-Pw0rd } }
                            """, in: directory)
                    let excluded = incidents[7]
                    func run() async throws {
                        try await IncrementalTestClock.waitForTheNextSecond()
                        let result = try await NowETLProcess.run(["run", "p.yaml", "--progress", "off"], in: directory)
                        try #require(result.status == 0, "\(result.stderrText)")
                    }
                    try await WholeRecordFixture.note(source, incidents[1], "first note")
                    try await run()
                    let second = try await WholeRecordFixture.upload(
                        source, record: incidents[2], name: "second.txt", type: "text/plain", data: Data("two".utf8))
                    let left = try await WholeRecordFixture.upload(
                        source, record: excluded, name: "excluded.txt", type: "text/plain", data: Data("no".utf8))
                    try await WholeRecordFixture.note(source, incidents[3], "second note")
                    try await run()

                    let copied = try await Self.attachments(target)
                    #expect(copied[second]?["table_sys_id"] as? String == incidents[2])
                    #expect(copied[left] == nil)
                    let file = try await target.request(
                        "/api/now/attachment/\(second)/file", headers: ["Accept": "*/*"])
                    #expect(file.status == 200 && file.body == Data("two".utf8))
                    let notes = try await SinkInstanceEndToEndTests.dump(target, "sys_journal_field").values
                        .filter { $0["name"] == "incident" }.compactMap { $0["value"] }
                    #expect(notes.sorted() == ["first note", "second note"])
                }
            }
        }
    }

    /// Into a target already holding the incidents under sys_ids of its own (`coalesce:` on `number`),
    /// every attachment and journal entry lands on the target's own record of its incident.
    @Test func onACoalescedTableTheRowsFollowTheMappedRecords() async throws {
        try await withNowSim(arguments: seededNowSim("incident=6", value: 35)) { source in
            try await withNowSim(arguments: SinkInstanceEndToEndTests.targetArguments) { target in
                try await SinkInstanceEndToEndTests.withScratch("wholeRecordCoalesced") { directory in
                    let incidents = try await SinkInstanceEndToEndTests.dump(source, "incident")
                    var attached: [String: String] = [:]  // attachment → source record
                    for (record, _) in incidents {
                        let sysID = try await WholeRecordFixture.upload(
                            source, record: record, name: "log.txt", type: "text/plain", data: Data(record.utf8))
                        attached[sysID] = record
                        try await WholeRecordFixture.note(source, record, "note on \(record)")
                    }
                    let targets = try await SinkInstanceCoalesceTests.populate(
                        target, from: source, table: "incident", key: "number")
                    /// The target's own record of source record `record`.
                    func mapped(_ record: String) -> String? {
                        (incidents[record]?["number"]?.lowercased()).flatMap { targets[$0] }
                    }
                    try PipelineYAML(
                        source, source: ["page_size: 20"],
                        tables: "  - table: incident\n    attachments: true\n    journal: [work_notes]",
                        outputs: """
                              - instance:
                                  instance: \(target.baseURL.absoluteString)
                                  auth: { basic: { user: migrator, password: migrator-Pw0rd } }
                                  coalesce: { incident: [number] }
                            """
                    ).write("p.yaml", in: directory)
                    let result = try await NowETLProcess.run(["run", "p.yaml", "--progress", "off"], in: directory)
                    try #require(result.status == 0, "\(result.stderrText)")

                    let copied = try await Self.attachments(target)
                    for (sysID, record) in attached {
                        let expected = try #require(mapped(record))
                        #expect(expected != record)
                        #expect(copied[sysID]?["table_sys_id"] as? String == expected, "\(sysID)")
                    }
                    let entries = try await SinkInstanceEndToEndTests.dump(target, "sys_journal_field").values
                        .filter { $0["name"] == "incident" && ($0["value"] ?? "").hasPrefix("note on ") }
                    #expect(entries.count == incidents.count)
                    for entry in entries {
                        let record = String((entry["value"] ?? "").dropFirst("note on ".count))
                        #expect(entry["element_id"] == mapped(record), "\(entry)")
                    }
                }
            }
        }
    }
}
