import Foundation
import NowSimTesting
import Testing

/// Many clients writing and reading one nowsim at once, over HTTP: no write fails on the lock, and
/// every read sees every commit made before it (no stale snapshot on a pooled connection).
@Suite(.timeLimit(.minutes(5))) struct ConcurrentWriteTests {
    static let writers = 8
    static let recordsPerWriter = 12

    private static func json(_ object: [String: String]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    private static func count(_ sim: NowSimInstance) async throws -> (aggregate: Int?, header: Int?) {
        let stats = try await sim.request("/api/now/stats/incident", query: [("sysparm_count", "true")])
        let aggregate =
            (((stats.json as? [String: Any])?["result"] as? [String: Any])?["stats"] as? [String: Any])?[
                "count"] as? String
        let list = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_limit", "1"), ("sysparm_fields", "sys_id")])
        return (aggregate.flatMap { Int($0) }, list.header("X-Total-Count").flatMap { Int($0) })
    }

    /// One writer: POST, GET, PATCH, GET per record; returns the sys_ids it created.
    private static func write(_ sim: NowSimInstance, writer: Int) async throws -> [String] {
        var created: [String] = []
        for index in 0..<recordsPerWriter {
            let text = "writer \(writer) record \(index)"
            let post = try await sim.request(
                "POST", "/api/now/table/incident", body: try json(["short_description": text]))
            #expect(post.status == 201, "POST \(text): \(String(decoding: post.body, as: UTF8.self))")
            guard let sysId = post.resultObject["sys_id"] as? String else { continue }
            created.append(sysId)
            let read = try await sim.request("/api/now/table/incident/\(sysId)")
            #expect(read.status == 200 && read.resultObject["short_description"] as? String == text, "GET \(text)")
            let patch = try await sim.request(
                "PATCH", "/api/now/table/incident/\(sysId)", body: try json(["short_description": text + " (patched)"]))
            #expect(patch.status == 200, "PATCH \(text): \(String(decoding: patch.body, as: UTF8.self))")
            let reread = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_query", "sys_id=\(sysId)"), ("sysparm_limit", "5")])
            #expect(
                reread.resultList.first?["short_description"] as? String == text + " (patched)",
                "GET after PATCH \(text)")
        }
        return created
    }

    @Test func parallelWritersAndReadersSeeEveryCommitAtOnce() async throws {
        try await withNowSim { sim in
            let done = ConcurrentFlag()
            let created = try await withThrowingTaskGroup(of: [String]?.self) { group in
                for writer in 0..<Self.writers {
                    group.addTask { try await Self.write(sim, writer: writer) }
                }
                // Readers counting while the writers write: a count never goes down.
                for _ in 0..<2 {
                    group.addTask {
                        var highest = 0
                        while !done.isSet && !Task.isCancelled {
                            let (aggregate, header) = try await Self.count(sim)
                            for value in [aggregate, header] {
                                guard let value else {
                                    Issue.record("no count")
                                    continue
                                }
                                #expect(value >= highest, "a count went down from \(highest) to \(value)")
                                highest = max(highest, value)
                            }
                        }
                        return nil
                    }
                }
                var all: [String] = []
                var finishedWriters = 0
                // Writers answer their sys_ids, readers nil once the writers are done.
                while let ids = try await group.next() {
                    guard let ids else { continue }
                    all += ids
                    finishedWriters += 1
                    if finishedWriters == Self.writers { done.set() }
                }
                return all
            }
            let expected = Self.writers * Self.recordsPerWriter
            #expect(created.count == expected)
            #expect(Set(created).count == expected)
            let (aggregate, header) = try await Self.count(sim)
            #expect(aggregate == expected)
            #expect(header == expected)
            let list = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_limit", "1000"), ("sysparm_fields", "sys_id")])
            #expect(Set(list.resultList.compactMap { $0["sys_id"] as? String }) == Set(created))
        }
    }
}

/// A flag set once by one task and read by others.
private final class ConcurrentFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
