import Foundation
import NowSimTesting
import Testing

/// The real `nowetl` exporting incidents with their attachments, journal entries and audit rows from a
/// nowsim holding ``WholeRecordFixture``: every attachment's bytes identical (`sha256sum`), the metadata
/// exact, every path safe, the journal and audit rows those of the instance, all of it listed in the
/// manifest; a run killed while the 20 MB attachment streams resumes without downloading again what it
/// had finished.
@Suite(.serialized, .timeLimit(.minutes(12))) struct WholeRecordExportTests {
    static let tables = """
          - table: incident
            fields: [sys_id, number, short_description]
            attachments: true
            journal: [work_notes, comments]
            audit: true
        """

    static func pipeline(_ sim: NowSimInstance, in directory: URL) throws {
        try PipelineYAML(
            sim, source: ["concurrency: 2", "page_size: 20"], tables: tables,
            outputs: #"  - csv: { path: "{table}.csv" }"#
        ).write("p.yaml", in: directory)
    }

    static func run(_ directory: URL, environment: [String: String] = [:]) async throws -> SubprocessResult {
        try await NowETLProcess.run(
            ["run", "p.yaml", "--progress", "off", "--summary-json", "summary.json"], in: directory,
            environment: environment)
    }

    /// Checks the committed export in `out` against `fixture` and the instance's own rows.
    static func checkExport(_ out: URL, fixture: WholeRecordFixture, sim: NowSimInstance) async throws {
        let lines = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.attachments.jsonl"))
        #expect(lines.count == 45)
        // Grouped by record, in the records' order, each record's attachments in sys_id order.
        let order = lines.map { "\($0["table_sys_id"] as? String ?? "") \($0["sys_id"] as? String ?? "")" }
        #expect(order == order.sorted())
        var paths: [String: String] = [:]
        for line in lines {
            let sysID = try #require(line["sys_id"] as? String)
            let upload = try #require(fixture.uploads[sysID], "an attachment that was not uploaded: \(sysID)")
            #expect(line["table_sys_id"] as? String == upload.record)
            #expect(line["table_name"] as? String == "incident")
            #expect(line["file_name"] as? String == upload.fileName)
            #expect(line["content_type"] as? String == upload.contentType)
            #expect(line["bytes"] as? Int == upload.bytes)
            #expect(line["sha256"] as? String == upload.sha256)
            #expect((line["sys_created_by"] as? String)?.isEmpty == false)
            let path = try #require(line["path"] as? String)
            let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            #expect(components.count == 5, "\(path)")
            #expect(Array(components.prefix(4)) == ["attachments", "incident", upload.record, sysID])
            let name = components.last ?? ""
            #expect(!name.isEmpty && !name.hasPrefix(".") && !name.contains("\\"), "\(path)")
            paths[sysID] = out.appendingPathComponent(path).path
        }
        // An independent reader of the bytes.
        let digests = try await WholeRecordFixture.sha256sum(Array(paths.values), in: out)
        for (sysID, path) in paths {
            #expect(digests[path] == fixture.uploads[sysID]?.sha256, "\(path)")
        }
        // Nothing outside the attachment folders, no temporary file left behind.
        let listed = try FileManager.default.subpathsOfDirectory(atPath: out.appendingPathComponent("attachments").path)
        #expect(!listed.contains { $0.contains(".tmp-") })

        // The journal: exactly the instance's entries of the two fields, with their authors and times.
        let journal = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.journal.jsonl"))
        let entries = try await SinkInstanceEndToEndTests.dump(sim, "sys_journal_field").filter {
            $0.value["name"] == "incident" && ["work_notes", "comments"].contains($0.value["element"] ?? "")
        }
        #expect(entries.count >= 60)
        #expect(journal.count == entries.count)
        for line in journal {
            let sysID = try #require(line["sys_id"] as? String)
            let entry = try #require(entries[sysID])
            for field in ["element", "element_id", "value", "sys_created_on", "sys_created_by"] {
                #expect(line[field] as? String == entry[field], "\(sysID) \(field)")
            }
        }
        // The audit rows of the exported records.
        let audit = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.audit.jsonl"))
        let rows = try await SinkInstanceEndToEndTests.dump(sim, "sys_audit").filter {
            $0.value["tablename"] == "incident"
        }
        #expect(!rows.isEmpty)
        #expect(Set(audit.compactMap { $0["sys_id"] as? String }) == Set(rows.keys))

        // The manifest lists every file with its SHA-256.
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json")))
                as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        var listedDigests: [String: String] = [:]
        for file in files { listedDigests[file["path"] as? String ?? ""] = file["sha256"] as? String }
        for line in lines {
            let path = line["path"] as? String ?? ""
            #expect(listedDigests[path] == line["sha256"] as? String, "\(path)")
        }
        for name in ["incident.csv", "incident.attachments.jsonl", "incident.journal.jsonl", "incident.audit.jsonl"] {
            #expect(listedDigests[name] != nil, "\(name) is not in the manifest")
        }

        // The summary counts what travelled with the records.
        let summary = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: out.deletingLastPathComponent().appendingPathComponent("summary.json")))
                as? [String: Any])
        let table = try #require((summary["tables"] as? [[String: Any]])?.first)
        #expect(table["attachments"] as? Int == 45)
        #expect(table["attachment_bytes"] as? Int == fixture.uploads.values.reduce(0) { $0 + $1.bytes })
        #expect(table["journal_entries"] as? Int == entries.count)
        #expect(table["audit_rows"] as? Int == rows.count)
    }

    @Test func attachmentsJournalAndAuditAreExportedExactly() async throws {
        try await withNowSim(arguments: WholeRecordFixture.arguments) { sim in
            try await SinkInstanceEndToEndTests.withScratch("wholeRecordExport") { directory in
                let fixture = try await WholeRecordFixture.make(on: sim, scratch: directory)
                try Self.pipeline(sim, in: directory)
                let result = try await Self.run(directory)
                try #require(result.status == 0, "\(result.stderrText)")
                try await Self.checkExport(directory.appendingPathComponent("out"), fixture: fixture, sim: sim)
            }
        }
    }

    @Test func aRunKilledWhileTheLargeAttachmentStreamsResumesWithoutDownloadingAgain() async throws {
        try await withNowSim(arguments: WholeRecordFixture.arguments, logRequests: true) { sim in
            try await SinkInstanceEndToEndTests.withScratch("wholeRecordResume") { directory in
                let fixture = try await WholeRecordFixture.make(on: sim, scratch: directory)
                try Self.pipeline(sim, in: directory)
                let killed = try await Self.run(
                    directory, environment: [NowETLProcess.crashPointVariable: "attachment-streaming"])
                try #require(killed.status == 128 + 9, "\(killed.stderrText)")
                // Nothing was committed; the downloads finished before the kill are recorded.
                let out = directory.appendingPathComponent("out")
                #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
                let record = out.appendingPathComponent(".nowetl/tables/incident/attachments.done")
                let finished = try WholeRecordFixture.jsonLines(record).compactMap { $0["sys_id"] as? String }
                // Downloads go in the records' order, then each record's attachments in sys_id order.
                let order = { (sysID: String) in (fixture.uploads[sysID]?.record ?? "", sysID) }
                let before = fixture.uploads.keys.filter { order($0) < order(fixture.large) }
                #expect(Set(finished) == Set(before), "the downloads before the large one")
                #expect(!finished.contains(fixture.large))

                let logged = sim.requestLog.count
                let resumed = try await Self.run(directory)
                try #require(resumed.status == 0, "\(resumed.stderrText)")
                // The attachments whose file was asked for after the kill. (The killed download itself
                // may be logged late, when nowsim notices the closed connection: it is the large one.)
                let downloaded = Set(
                    fixture.uploads.keys.filter { sysID in
                        sim.requestLog.dropFirst(logged).contains { $0.contains("/api/now/attachment/\(sysID)/file") }
                    })
                #expect(downloaded.isDisjoint(with: finished), "downloaded again: \(downloaded.intersection(finished))")
                #expect(downloaded == Set(fixture.uploads.keys).subtracting(finished))
                try await Self.checkExport(out, fixture: fixture, sim: sim)
            }
        }
    }

    /// The `kind` file an incremental run wrote that `seen` does not list, read as JSON Lines.
    static func newFile(_ kind: String, in out: URL, besides seen: inout Set<String>) throws -> [[String: Any]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).filter {
            $0.hasPrefix("incident-") && $0.hasSuffix(".\(kind).jsonl") && !seen.contains($0)
        }
        try #require(names.count == 1, "\(names)")
        seen.insert(names[0])
        return try WholeRecordFixture.jsonLines(out.appendingPathComponent(names[0]))
    }

    /// An incremental table's second run exports what is new since the first: the journal entry added
    /// to a record, and the attachment added to a record that did not change (adding one does not
    /// update the record) — but not one added to a record the table's filter leaves out.
    @Test func anIncrementalRunExportsTheAttachmentsAndEntriesAddedSinceTheLast() async throws {
        try await withNowSim(arguments: seededNowSim("incident=8", value: 31)) { sim in
            try await SinkInstanceEndToEndTests.withScratch("wholeRecordIncremental") { directory in
                let incidents = try await WholeRecordFixture.writeIncrementalPipeline(
                    sim, outputs: #"  - json: { path: "{table}-{run_id}.jsonl" }"#, in: directory)
                let excluded = incidents[7]
                let out = directory.appendingPathComponent("out")
                let first = try await WholeRecordFixture.upload(
                    sim, record: incidents[0], name: "first.txt", type: "text/plain", data: Data("one".utf8))
                try await WholeRecordFixture.note(sim, incidents[1], "first note")
                try await IncrementalTestClock.waitForTheNextSecond()
                let run1 = try await Self.run(directory)
                try #require(run1.status == 0, "\(run1.stderrText)")
                var seen: Set<String> = []
                #expect(
                    try Self.newFile("attachments", in: out, besides: &seen).map { $0["sys_id"] as? String } == [first])
                #expect(
                    try Self.newFile("journal", in: out, besides: &seen).map { $0["value"] as? String } == [
                        "first note"
                    ])

                // After the first run: an attachment on an unchanged record, one on the record the filter
                // leaves out, and a note.
                let second = try await WholeRecordFixture.upload(
                    sim, record: incidents[2], name: "second.txt", type: "text/plain", data: Data("two".utf8))
                _ = try await WholeRecordFixture.upload(
                    sim, record: excluded, name: "excluded.txt", type: "text/plain", data: Data("no".utf8))
                try await WholeRecordFixture.note(sim, incidents[3], "second note")
                try await IncrementalTestClock.waitForTheNextSecond()
                let run2 = try await Self.run(directory)
                try #require(run2.status == 0, "\(run2.stderrText)")
                let attachments = try Self.newFile("attachments", in: out, besides: &seen)
                #expect(attachments.map { $0["sys_id"] as? String } == [second])
                #expect(attachments.first?["table_sys_id"] as? String == incidents[2])
                #expect(
                    try Self.newFile("journal", in: out, besides: &seen).map { $0["value"] as? String } == [
                        "second note"
                    ])
            }
        }
    }

    /// 250 incidents are three queries of related rows (100 records each): every seeded journal entry
    /// and attachment of them is exported once, whichever query it fell in.
    @Test func recordsSpanningSeveralQueriesLoseNothing() async throws {
        try await WholeRecordFixture.withSeededPipeline(
            "incident=250,sys_journal_field=400,sys_attachment=30", value: 37, name: "wholeRecordChunks",
            output: #"csv: { path: "{table}.csv" }"#
        ) { sim, directory in
            let result = try await Self.run(directory)
            try #require(result.status == 0, "\(result.stderrText)")
            let out = directory.appendingPathComponent("out")
            let entries = try await SinkInstanceEndToEndTests.dump(sim, "sys_journal_field").filter {
                $0.value["name"] == "incident"
            }
            let journal = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.journal.jsonl"))
            #expect(entries.count == 400)
            #expect(journal.compactMap { $0["sys_id"] as? String }.sorted() == entries.keys.sorted())
            let attachments = try await SinkInstanceEndToEndTests.dump(sim, "sys_attachment")
            let listed = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.attachments.jsonl"))
            #expect(attachments.count == 30)
            #expect(listed.compactMap { $0["sys_id"] as? String }.sorted() == attachments.keys.sorted())
            // In the records' order, then each record's own: the order of the file does not depend on
            // where a query's pages ended.
            let owners = journal.compactMap { $0["element_id"] as? String }
            #expect(owners == owners.sorted())
        }
    }

    /// A sharded run's merge exports the whole record too: the shards extract the rows, the merge's join
    /// reads the related rows and attachments of every shard's records.
    @Test func aShardedRunsMergeExportsTheWholeRecord() async throws {
        try await WholeRecordFixture.withSeededPipeline(
            "incident=120,sys_journal_field=90,sys_attachment=12", value: 39, name: "wholeRecordShards",
            output: #"json: { path: "{table}.jsonl" }"#
        ) { sim, directory in
            for index in 0..<2 {
                let shard = try await NowETLProcess.run(
                    ["run", "p.yaml", "--shard", "\(index)/2", "--progress", "off"], in: directory)
                try #require(shard.status == 0, "\(shard.stderrText)")
            }
            let merge = try await NowETLProcess.run(["merge", "p.yaml"], in: directory)
            try #require(merge.status == 0, "\(merge.stderrText)")
            let out = directory.appendingPathComponent("out")
            let journal = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.journal.jsonl"))
            let entries = try await SinkInstanceEndToEndTests.dump(sim, "sys_journal_field")
            #expect(journal.compactMap { $0["sys_id"] as? String }.sorted() == entries.keys.sorted())
            let listed = try WholeRecordFixture.jsonLines(out.appendingPathComponent("incident.attachments.jsonl"))
            #expect(listed.count == 12)
            let paths = listed.compactMap { ($0["path"] as? String).map { out.appendingPathComponent($0).path } }
            let digests = try await WholeRecordFixture.sha256sum(paths, in: out)
            for line in listed {
                let path = out.appendingPathComponent(line["path"] as? String ?? "").path
                #expect(digests[path] == line["sha256"] as? String, "\(path)")
            }
        }
    }
}
