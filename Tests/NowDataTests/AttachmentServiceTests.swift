import Foundation
import NowData
import NowSimTesting
import Testing

/// ``NowAttachmentService`` against nowsim's Attachment API: the listing by encoded query, a download
/// streamed into a ``ResponseBodyStream`` (bytes identical, even past `maximumResponseBytes`, since a
/// streamed body is bounded by its stream), a stream's own error handed back, and a missing attachment.
@Suite(.timeLimit(.minutes(5))) struct AttachmentServiceTests {
    /// Collects what it is given; throws `Refused` once it holds more than `limit` bytes.
    final class Collector: ResponseBodyStream, @unchecked Sendable {
        // @unchecked: the transport calls it one call at a time, and the test reads it after the download.
        var data = Data()
        var restarts = 0
        let limit: Int
        struct Refused: Error {}

        init(limit: Int = .max) { self.limit = limit }
        func restart() throws {
            data.removeAll()
            restarts += 1
        }
        func append(_ bytes: UnsafeRawBufferPointer) throws {
            guard data.count + bytes.count <= limit else { throw Refused() }
            data.append(contentsOf: bytes)
        }
    }

    static func service(_ sim: NowSimInstance, maximumResponseBytes: Int = 1 << 20) -> NowAttachmentService {
        var configuration = NowServiceConfiguration(
            instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin"), requestTimeout: 30)
        configuration.maximumResponseBytes = maximumResponseBytes
        return NowAttachmentService(sharing: NowTableService(configuration: configuration))
    }

    /// Uploads `data` to the first incident; returns the attachment's sys_id and the incident's.
    static func upload(_ sim: NowSimInstance, _ data: Data, name: String) async throws -> (String, String) {
        let list = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
        let incident = try #require((list.json as? [String: Any]).flatMap { $0["result"] as? [[String: Any]] }?.first)
        let record = try #require(incident["sys_id"] as? String)
        let response = try await sim.request(
            "POST", "/api/now/attachment/file",
            query: [("table_name", "incident"), ("table_sys_id", record), ("file_name", name)],
            headers: ["Content-Type": "application/octet-stream"], body: data)
        try #require(response.status == 201)
        return (try #require(response.resultObject["sys_id"] as? String), record)
    }

    @Test func aDownloadStreamsTheBytesPastTheMemoryLimitAndTheListingFindsIt() async throws {
        try await withNowSim(arguments: ["--seed", "incident=2", "--user", "admin:admin:admin"]) { sim in
            // 3 MB of bytes gzip cannot shrink, over the service's 1 MB limit for answers held in memory.
            var generator = SystemRandomNumberGenerator()
            let data = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let (sysID, record) = try await Self.upload(sim, data, name: "big file.bin")
            let service = Self.service(sim)

            let listed = try await service.attachments(query: "table_sys_id=\(record)^ORDERBYsys_id", limit: 10)
            let metadata = try #require(listed.attachments.first { $0.sysId == sysID })
            #expect(metadata.fileName == "big file.bin" && metadata.tableSysId == record)
            #expect(metadata.sizeBytes == String(data.count))

            let collector = Collector()
            let answer = try await service.download(sysID: sysID, into: collector)
            #expect(collector.data == data)
            #expect(collector.restarts == 1)
            #expect(answer.contentType?.hasPrefix("application/octet-stream") == true)
        }
    }

    @Test func whatTheStreamThrowsEndsTheDownloadAndComesBack() async throws {
        try await withNowSim(arguments: ["--seed", "incident=2", "--user", "admin:admin:admin"]) { sim in
            let (sysID, _) = try await Self.upload(sim, Data(repeating: 7, count: 200_000), name: "a.bin")
            await #expect {
                _ = try await Self.service(sim).download(sysID: sysID, into: Collector(limit: 1000))
            } throws: { error in
                guard case NowDataError.network(.systemError(let cause)) = error else { return false }
                return cause is Collector.Refused
            }
        }
    }

    @Test func aMissingAttachmentIsA404AndAnIDThatIsNoSysIDIsNeverSent() async throws {
        try await withNowSim(arguments: ["--seed", "incident=1", "--user", "admin:admin:admin"]) { sim in
            let collector = Collector()
            await #expect {
                _ = try await Self.service(sim).download(sysID: String(repeating: "a", count: 32), into: collector)
            } throws: { error in
                guard case NowDataError.badResponse(404, _) = error else { return false }
                return true
            }
            #expect(collector.data.isEmpty)
            await #expect {
                _ = try await Self.service(sim).download(sysID: "../table/incident", into: collector)
            } throws: { error in
                guard case NowDataError.missingSysID = error else { return false }
                return true
            }
        }
    }
}
