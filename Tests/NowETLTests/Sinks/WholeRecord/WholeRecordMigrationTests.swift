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
                        ["run", "p.yaml", "--progress", "off"], in: directory, timeout: 600)
                    try #require(result.status == 0, "\(result.stderrText)")

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
                }
            }
        }
    }
}
