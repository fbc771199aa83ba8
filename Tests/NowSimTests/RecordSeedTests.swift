import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// `--seed …,sys_journal_field=N,sys_attachment=N`: journal entries and attachments of seeded
/// incidents, served like any other.
@Suite(.timeLimit(.minutes(5))) struct RecordSeedTests {
    static let arguments = ["--seed", "incident=30,sys_journal_field=60,sys_attachment=45", "--seed-value", "11"]

    @Test func seededAttachmentsAndEntriesBelongToIncidentsAndServeTheirBytes() async throws {
        try await withNowSim(arguments: Self.arguments) { sim in
            let incidents = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_fields", "sys_id"), ("sysparm_limit", "100")])
            let ids = Set(incidents.resultList.compactMap { $0["sys_id"] as? String })
            #expect(ids.count == 30)

            let entries = try await sim.request("/api/now/table/sys_journal_field", query: [("sysparm_limit", "100")])
            #expect(entries.resultList.count == 60)
            #expect(entries.resultList.allSatisfy { ids.contains($0["element_id"] as? String ?? "") })
            #expect(entries.resultList.allSatisfy { ["work_notes", "comments"].contains($0["element"] as? String) })

            let attachments = try await sim.request("/api/now/attachment", query: [("sysparm_limit", "100")])
            #expect(attachments.header("X-Total-Count") == "45")
            #expect(Set(attachments.resultList.compactMap { $0["content_type"] as? String }).count == 3)
            for metadata in attachments.resultList {
                #expect(ids.contains(metadata["table_sys_id"] as? String ?? ""))
                let sysId = try #require(metadata["sys_id"] as? String)
                let file = try await sim.request("/api/now/attachment/\(sysId)/file")
                #expect(file.status == 200)
                #expect(metadata["size_bytes"] as? String == String(file.body.count))
                #expect(metadata["hash"] as? String == (try AttachmentAPITests.sha256(file.body)))
            }
            let png = try #require(attachments.resultList.first { $0["content_type"] as? String == "image/png" })
            #expect(!(png["image_width"] as? String ?? "").isEmpty)
        }
    }

    @Test func theSameSeedGivesTheSameAttachments() async throws {
        func hashes() async throws -> [String] {
            try await withNowSim(arguments: Self.arguments) { sim in
                let list = try await sim.request(
                    "/api/now/attachment", query: [("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "100")])
                return list.resultList.map { "\($0["sys_id"] ?? "") \($0["hash"] ?? "") \($0["file_name"] ?? "")" }
            }
        }
        let first = try await hashes()
        #expect(first.count == 45)
        #expect(try await hashes() == first)
    }
}
