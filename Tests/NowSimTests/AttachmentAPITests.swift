import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// The Attachment API against a real nowsim: uploads (raw and multipart), metadata, lists, the file's
/// bytes, the `sys_attachment_doc` rows as stored, attachments written through the Table API, and
/// deletes (docs/nowsim-records.md).
@Suite(.timeLimit(.minutes(5))) struct AttachmentAPITests {
    let sim: NowSimTesting.NowSimInstance
    init() async throws {
        sim = try await WritableNowSim.start(incidents: 6, value: 5)
    }

    /// `count` deterministic pseudo-random bytes (incompressible, every byte value present).
    static func binary(_ count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            var word = random.next()
            for offset in index..<min(index + 8, count) {
                bytes[offset] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        return Data(bytes)
    }

    static func sha256(_ data: Data) throws -> String {
        try data.withUnsafeBytes { try AttachmentEncoding.sha256Hex($0) }
    }

    /// The sys_ids of the seeded incidents, in sys_id order.
    private func incidents() async throws -> [String] {
        let list = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "ORDERBYsys_id"), ("sysparm_fields", "sys_id")])
        return list.resultList.compactMap { $0["sys_id"] as? String }
    }

    private func upload(_ data: Data, name: String, type: String, to record: String) async throws
        -> NowSimTesting.NowSimInstance.Response
    {
        try await sim.request(
            "POST", "/api/now/attachment/file",
            query: [("table_name", "incident"), ("table_sys_id", record), ("file_name", name)],
            headers: ["Content-Type": type], body: data)
    }

    @Test func sha256IsTheStandardDigest() throws {
        #expect(try Self.sha256(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aRawUploadRoundTripsItsBytesAndMetadata() async throws {
        let record = try #require(try await incidents().first)
        let data = Self.binary(3 * 1024 * 1024 + 17, seed: 1)
        let name = "logs/../day 1/Überblick été.bin"
        let created = try await upload(data, name: name, type: "application/octet-stream", to: record)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let metadata = created.resultObject
        let sysId = try #require(metadata["sys_id"] as? String)
        #expect(created.header("Location")?.hasSuffix("/api/now/attachment/\(sysId)") == true)
        #expect(metadata["file_name"] as? String == name)
        #expect(metadata["table_name"] as? String == "incident")
        #expect(metadata["table_sys_id"] as? String == record)
        #expect(metadata["content_type"] as? String == "application/octet-stream")
        #expect(metadata["size_bytes"] as? String == String(data.count))
        #expect(metadata["compressed"] as? String == "true")
        #expect(metadata["hash"] as? String == (try Self.sha256(data)))
        #expect(metadata["sys_created_by"] as? String == "admin")
        #expect(metadata["sys_mod_count"] as? String == "0")
        #expect((metadata["download_link"] as? String)?.hasSuffix("/api/now/attachment/\(sysId)/file") == true)
        #expect(metadata.values.allSatisfy { $0 is String })

        let read = try await sim.request("/api/now/attachment/\(sysId)")
        #expect(read.status == 200)
        #expect(NSDictionary(dictionary: read.resultObject).isEqual(to: metadata))

        let file = try await sim.request("/api/now/attachment/\(sysId)/file", headers: ["Accept": "*/*"])
        #expect(file.status == 200)
        #expect(file.body == data)
        #expect(file.header("Content-Type") == "application/octet-stream")
        let header = try #require(file.header("X-Attachment-Metadata"))
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII })
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any])
        #expect(decoded["file_name"] as? String == name)
        #expect(decoded["hash"] as? String == metadata["hash"] as? String)
    }

    @Test func theChunksAreBase64OfTheGzipStreamInPositionOrder() async throws {
        let record = try #require(try await incidents().first)
        let data = Self.binary(1_500_000, seed: 2)
        let created = try await upload(data, name: "chunks.bin", type: "application/octet-stream", to: record)
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let docs = try await sim.request(
            "/api/now/table/sys_attachment_doc",
            query: [("sysparm_query", "sys_attachment=\(sysId)^ORDERBYposition")])
        #expect(docs.status == 200)
        let rows = docs.resultList
        #expect(rows.count == 3)  // 1.5 MB of random bytes gzip to a little more: 700000 + 700000 + rest
        var stream = Data()
        for (index, row) in rows.enumerated() {
            #expect(row["position"] as? String == String(index))
            let chunk = try #require(Data(base64Encoded: row["data"] as? String ?? ""))
            #expect(row["length"] as? String == String(chunk.count))
            if index < rows.count - 1 { #expect(chunk.count == AttachmentEncoding.chunkSize) }
            stream.append(chunk)
        }
        #expect(stream.prefix(2) == Data([0x1F, 0x8B]))
        #expect(created.resultObject["size_compressed"] as? String == String(stream.count))
        let attachment = try await sim.request("/api/now/table/sys_attachment/\(sysId)")
        #expect(attachment.resultObject["chunk_size_bytes"] as? String == "700000")
        #expect(attachment.resultObject["state"] as? String == "available")
    }

    @Test func aMultipartUploadTakesTheFileFromTheLastPart() async throws {
        let record = try #require(try await incidents().last)
        let text = Data("first line\r\n--not a boundary\r\nlast line, ümlaut\n".utf8)
        let boundary = "----nowsim7b3f"
        var body = Data()
        func append(_ string: String) { body.append(Data(string.utf8)) }
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"table_name\"\r\n\r\nincident\r\n")
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"table_sys_id\"\r\n\r\n\(record)\r\n")
        append(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"uploadFile\"; filename=\"notes for Zoë.txt\"\r\n")
        append("Content-Type: text/plain\r\n\r\n")
        body.append(text)
        append("\r\n--\(boundary)--\r\n")
        let created = try await sim.request(
            "POST", "/api/now/attachment/upload",
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        #expect(created.resultObject["file_name"] as? String == "notes for Zoë.txt")
        #expect(created.resultObject["content_type"] as? String == "text/plain")
        #expect(created.resultObject["table_sys_id"] as? String == record)
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let file = try await sim.request("/api/now/attachment/\(sysId)/file")
        #expect(file.body == text)
        #expect(file.header("Content-Type") == "text/plain")
    }

    @Test func listsFollowTheQueryAndPageWithTotalsAndLinks() async throws {
        let record = try #require(try await incidents().dropFirst(2).first)
        for name in ["c.txt", "a.txt", "b.txt"] {
            #expect(try await upload(Data(name.utf8), name: name, type: "text/plain", to: record).status == 201)
        }
        let query = "table_sys_id=\(record)^ORDERBYfile_name"
        let first = try await sim.request(
            "/api/now/attachment", query: [("sysparm_query", query), ("sysparm_limit", "2")])
        #expect(first.status == 200)
        #expect(first.resultList.compactMap { $0["file_name"] as? String } == ["a.txt", "b.txt"])
        #expect(first.header("X-Total-Count") == "3")
        #expect(first.header("Link")?.contains("sysparm_offset=2&sysparm_limit=2>;rel=\"next\"") == true)
        let second = try await sim.request(
            "/api/now/attachment", query: [("sysparm_query", query), ("sysparm_limit", "2"), ("sysparm_offset", "2")])
        #expect(second.resultList.compactMap { $0["file_name"] as? String } == ["c.txt"])
        let descending = try await sim.request(
            "/api/now/attachment", query: [("sysparm_query", "table_sys_id=\(record)^ORDERBYDESCfile_name")])
        #expect(descending.resultList.compactMap { $0["file_name"] as? String } == ["c.txt", "b.txt", "a.txt"])
    }

    @Test func anAttachmentWrittenThroughTheTableAPIIsServedLikeAnyOther() async throws {
        let record = try #require(try await incidents().dropFirst(3).first)
        let data = Self.binary(50_000, seed: 3) + Data(repeating: 0x41, count: 30_000)
        // Chunks of 4000 bytes, as older instances wrote them, inserted out of order.
        var chunks: [Data] = []
        _ = try data.withUnsafeBytes { bytes in
            try AttachmentEncoding.gzipChunks(of: bytes, chunkSize: 4000) { chunks.append(Data($0)) }
        }
        let attachment = "0123456789abcdef0123456789abcd01"
        let suppress = [("sysparm_suppress_auto_sys_field", "true")]
        let metadata: [String: String] = [
            "sys_id": attachment, "file_name": "migrated.bin", "content_type": "application/x-test",
            "table_name": "incident", "table_sys_id": record, "size_bytes": String(data.count),
            "size_compressed": String(chunks.reduce(0) { $0 + $1.count }), "compressed": "true",
            "hash": try Self.sha256(data), "sys_created_on": "2022-03-04 05:06:07", "sys_created_by": "beth.anglin",
            "sys_updated_on": "2022-03-04 05:06:07", "sys_updated_by": "beth.anglin", "sys_mod_count": "0",
        ]
        let inserted = try await sim.request(
            "POST", "/api/now/table/sys_attachment", query: suppress,
            body: try JSONSerialization.data(withJSONObject: metadata))
        #expect(inserted.status == 201)
        for (position, chunk) in chunks.enumerated().reversed() {
            let row: [String: String] = [
                "sys_attachment": attachment, "position": String(position), "length": String(chunk.count),
                "data": chunk.base64EncodedString(),
            ]
            let written = try await sim.request(
                "POST", "/api/now/table/sys_attachment_doc", query: suppress,
                body: try JSONSerialization.data(withJSONObject: row))
            #expect(written.status == 201)
        }
        let file = try await sim.request("/api/now/attachment/\(attachment)/file")
        #expect(file.status == 200)
        #expect(file.body == data)
        #expect(file.header("Content-Type") == "application/x-test")
        let read = try await sim.request("/api/now/attachment/\(attachment)")
        #expect(read.resultObject["sys_created_by"] as? String == "beth.anglin")
        #expect(read.resultObject["sys_created_on"] as? String == "2022-03-04 05:06:07")

        // An uncompressed attachment: the chunks are the bytes themselves.
        let plain = "0123456789abcdef0123456789abcd02"
        var plainMetadata = metadata
        plainMetadata["sys_id"] = plain
        plainMetadata["compressed"] = "false"
        _ = try await sim.request(
            "POST", "/api/now/table/sys_attachment", query: suppress,
            body: try JSONSerialization.data(withJSONObject: plainMetadata))
        for (position, range) in [(0, 0..<40_000), (1, 40_000..<data.count)] {
            let row = [
                "sys_attachment": plain, "position": String(position), "data": data[range].base64EncodedString(),
            ]
            _ = try await sim.request(
                "POST", "/api/now/table/sys_attachment_doc", query: suppress,
                body: try JSONSerialization.data(withJSONObject: row))
        }
        #expect(try await sim.request("/api/now/attachment/\(plain)/file").body == data)
    }

    @Test func refusesWhatAnInstanceRefuses() async throws {
        let record = try #require(try await incidents().first)
        let noType = try await sim.request(
            "POST", "/api/now/attachment/file",
            query: [("table_name", "incident"), ("table_sys_id", record), ("file_name", "x.txt")],
            headers: ["Content-Type": ""], body: Data("x".utf8))
        #expect(noType.status == 400)
        #expect(noType.json as? [String: Any] != nil)
        let missingName = try await sim.request(
            "POST", "/api/now/attachment/file", query: [("table_name", "incident"), ("table_sys_id", record)],
            headers: ["Content-Type": "text/plain"], body: Data("x".utf8))
        #expect(missingName.status == 400)
        let noRecord = try await upload(
            Data("x".utf8), name: "x.txt", type: "text/plain", to: "0123456789abcdef0123456789abcdef")
        #expect(noRecord.status == 404)
        let hostile = try await upload(Data("x".utf8), name: "x.txt", type: "text/plain", to: "../../etc/passwd")
        #expect(hostile.status == 404)
        for path in ["/api/now/attachment/nothex", "/api/now/attachment/0123456789abcdef0123456789abcdef/file"] {
            let missing = try await sim.request(path)
            #expect(missing.status == 404)
            #expect(String(decoding: missing.body, as: UTF8.self).contains(#""status":"failure""#))
        }
        let readOnly = try await sim.request(
            "POST", "/api/now/attachment/file",
            query: [("table_name", "incident"), ("table_sys_id", record), ("file_name", "x.txt")],
            headers: ["Content-Type": "text/plain"], body: Data("x".utf8), user: "reader", password: "pw")
        #expect(readOnly.status == 403)
    }

    @Test func aDeleteRemovesTheAttachmentAndItsChunks() async throws {
        let record = try #require(try await incidents().dropFirst(4).first)
        let created = try await upload(Self.binary(10_000, seed: 4), name: "gone.bin", type: "image/x-test", to: record)
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let deleted = try await sim.request("DELETE", "/api/now/attachment/\(sysId)")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(try await sim.request("/api/now/attachment/\(sysId)").status == 404)
        #expect(try await sim.request("/api/now/attachment/\(sysId)/file").status == 404)
        #expect(try await sim.request("DELETE", "/api/now/attachment/\(sysId)").status == 404)
        let docs = try await sim.request(
            "/api/now/table/sys_attachment_doc", query: [("sysparm_query", "sys_attachment=\(sysId)")])
        #expect(docs.resultList.isEmpty)
    }
}
