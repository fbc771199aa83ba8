import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// End-to-end: TableRunner against the real nowsim, outputs read back by independent readers and
/// compared with the source as NowData reads it.
@Suite(.timeLimit(.minutes(5))) struct TableRunnerTests {
    @Test func exportsMatchTheSourceAndAreIdenticalAtAnyConcurrency() async throws {
        let server = try await ETLServers.get()
        let table = try TableConfiguration(
            table: "incident", fields: TableRunnerSupport.fields, displayValue: .all,
            columns: TableRunnerSupport.columns)
        try await withScratchDirectory { (one: String) in
            try await withScratchDirectory { (four: String) in
                let (summary, events) = try await TableRunnerSupport.run(
                    table, server, directory: four, concurrency: 4, outputs: try TableRunnerSupport.allOutputs(four))
                _ = try await TableRunnerSupport.run(
                    table, server, directory: one, concurrency: 1, outputs: try TableRunnerSupport.allOutputs(one))
                for name in ["incident.csv", "incident.jsonl", "incident.xml"] {
                    #expect(
                        try SinkTestSupport.read(one + "/" + name) == SinkTestSupport.read(four + "/" + name), "\(name)"
                    )
                }
                #expect(summary.rows == 1200)
                #expect(summary.sourceCount == 1200)
                #expect(summary.files.count == 3)
                #expect(summary.files.allSatisfy { $0.rows == 1200 })
                #expect(events.contains(.counted(table: "incident", count: 1200)))
                #expect(events.last == .finished(summary))

                let source = try await TableRunnerSupport.source(
                    server, fields: TableRunnerSupport.fields, mode: [.actualValues, .displayValues])
                func form(_ sysID: String, _ field: String, _ key: String) -> String {
                    (source[sysID]![field] as! [String: Any])[key] as! String
                }
                let sortedIDs = source.keys.sorted()

                // JSON Lines, read by Foundation's JSONSerialization line by line.
                let lines = try SinkTestSupport.read(four + "/incident.jsonl").split(separator: UInt8(ascii: "\n"))
                #expect(lines.count == 1200)
                var jsonIDs: [String] = []
                var awkward = 0
                for line in lines {
                    let row = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
                    let sysID = row["sys_id"] as! String
                    jsonIDs.append(sysID)
                    for (column, field, key) in [
                        ("number", "number", "value"), ("short_description", "short_description", "value"),
                        ("description", "description", "value"), ("caller", "caller_id", "display_value"),
                        ("caller_id", "caller_id", "value"), ("opened", "opened_at", "value"),
                    ] {
                        let expected = form(sysID, field, key)
                        let actual = row[column] as? String
                        #expect(actual == (expected.isEmpty ? nil : expected), "\(sysID) \(column)")
                    }
                    #expect((row["priority"] as? Int).map(String.init) == form(sysID, "priority", "value"))
                    if form(sysID, "short_description", "value").contains(where: {
                        $0 == "\"" || $0 == "\n" || $0 == "<"
                    }) {
                        awkward += 1
                    }
                }
                #expect(jsonIDs == sortedIDs)
                #expect(awkward > 0, "the seed should include awkward text")

                // CSV through Python's csv module.
                let csv = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(four + "/incident.csv"))
                #expect(csv.first == TableRunnerSupport.columns.map(\.name))
                #expect(csv.dropFirst().map { $0[0] } == sortedIDs)
                #expect(csv.dropFirst().allSatisfy { $0[2] == form($0[0], "short_description", "value") })

                // XML unload through Python's expat; references carry their display value.
                let xml = try await SinkTestSupport.pythonXML(try SinkTestSupport.read(four + "/incident.xml"))
                #expect(xml.root == "unload")
                #expect(xml.records.count == 1200)
                for record in xml.records.prefix(200) {
                    let sysID = record.fields.first { $0.tag == "sys_id" }!.text
                    let caller = record.fields.first { $0.tag == "caller_id" }!
                    #expect(caller.text == form(sysID, "caller_id", "value"))
                    #expect(caller.attrib["display_value"] == form(sysID, "caller_id", "display_value"))
                }
            }
        }
    }

    @Test func aclHiddenRecordsAreSkippedAndTheCountDiffers() async throws {
        let server = try await ETLServers.get(fault: "acl-hide:fraction=0.3,table=incident")
        let table = try TableConfiguration(table: "incident", fields: ["sys_id", "number"])
        try await withScratchDirectory { (directory: String) in
            let outputs = [
                try TableRunnerSupport.spec(.json(JSONSinkOptions()), "incident.jsonl", directory: directory)
            ]
            let (summary, _) = try await TableRunnerSupport.run(
                table, server, directory: directory, concurrency: 4, outputs: outputs)
            let visible = try await TableRunnerSupport.source(
                server, fields: ["sys_id", "number"], mode: [.actualValues])
            #expect(visible.count < 1000 && visible.count > 600)
            let lines = try SinkTestSupport.read(directory + "/incident.jsonl").split(separator: UInt8(ascii: "\n"))
            let exported = try lines.map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: String] }
            #expect(exported.map { $0["sys_id"]! } == visible.keys.sorted())
            #expect(exported.allSatisfy { $0["number"] == visible[$0["sys_id"]!]!["number"] as? String })
            #expect(summary.rows == visible.count)
            #expect(summary.sourceCount == 1200)
            #expect(summary.hiddenRows == 1200 - visible.count, "hidden records are a figure of their own")
        }
    }

    @Test func rateLimitedRequestsAreRetriedAndCounted() async throws {
        let server = try await ETLServers.get(fault: "rate-limit:every=3,retry-after=0,table=incident")
        let table = try TableConfiguration(table: "incident", fields: ["sys_id", "number"])
        try await withScratchDirectory { (directory: String) in
            let outputs = [try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: directory)]
            let (summary, _) = try await TableRunnerSupport.run(
                table, server, directory: directory, concurrency: 2, outputs: outputs)
            #expect(summary.rows == 1200)
            #expect(summary.counts[.retries] > 0)
            // Pages, the table's count and the retries; a range ends with its last page (X-Total-Count), and
            // only one split before its end is counted again, at most two counts per range in all.
            let ranges = 2 + summary.counts[.rangeSplits]
            #expect(summary.counts[.requests] >= summary.counts[.pages] + 1 + summary.counts[.retries])
            #expect(summary.counts[.requests] <= summary.counts[.pages] + 1 + 2 * ranges + summary.counts[.retries])
            let csv = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/incident.csv"))
            #expect(Set(csv.dropFirst().map { $0[0] }).count == 1200)
            // The 429s lowered the requests in flight for the whole table; the bytes are a plain run's.
            #expect(summary.concurrency == 2)
            #expect(summary.lowestConcurrency == 1, "\(String(describing: summary.lowestConcurrency))")
            try await withScratchDirectory("plain") { (plainDirectory: String) in
                let plainOutputs = [
                    try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: plainDirectory)
                ]
                _ = try await TableRunnerSupport.run(
                    table, try await ETLServers.get(), directory: plainDirectory, concurrency: 2, outputs: plainOutputs)
                #expect(
                    try SinkTestSupport.read(directory + "/incident.csv")
                        == SinkTestSupport.read(plainDirectory + "/incident.csv"))
            }
        }
    }

    // MARK: - Rejects

    /// `close_notes` as an integer: empty (null) for open incidents, text that will not convert otherwise.
    static func rejectTable(_ policy: RejectPolicy) throws -> TableConfiguration {
        try TableConfiguration(
            table: "incident", fields: ["sys_id", "close_notes"],
            columns: [
                ColumnConfiguration(name: "sys_id", path: "sys_id"),
                ColumnConfiguration(name: "notes", path: "close_notes", type: .int),
            ], reject: policy)
    }

    static func badRecords(_ server: NowSimInstance) async throws -> [(sysID: String, notes: String)] {
        let source = try await TableRunnerSupport.source(
            server, fields: ["sys_id", "close_notes"], mode: [.actualValues])
        return source.compactMap { sysID, record in
            let notes = record["close_notes"] as! String
            return notes.isEmpty ? nil : (sysID, notes)
        }.sorted { $0.sysID < $1.sysID }
    }

    @Test func rejectFailNamesTheRecordAndLeavesThePreviousFile() async throws {
        let server = try await ETLServers.get()
        try await withScratchDirectory { (directory: String) in
            let outputs = [try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: directory)]
            let good = try TableConfiguration(table: "incident", fields: ["sys_id"])
            _ = try await TableRunnerSupport.run(good, server, directory: directory, concurrency: 2, outputs: outputs)
            let before = try SinkTestSupport.read(directory + "/incident.csv")
            let bad = try await Self.badRecords(server)
            try #require(!bad.isEmpty)
            let error = await #expect(throws: NowETLError.self) {
                _ = try await TableRunnerSupport.run(
                    try Self.rejectTable(.fail), server, directory: directory, concurrency: 2, outputs: outputs)
            }
            #expect(error?.exitCode == 1)
            // Partitions run concurrently: whichever bad record is met first fails the table.
            let named = bad.first { error?.message.contains($0.sysID) == true }
            #expect(named != nil, "\(String(describing: error))")
            #expect(error?.message.contains("'notes'") == true)
            #expect(named.map { error?.message.contains(String($0.notes.prefix(20))) == true } == true)
            #expect(try SinkTestSupport.read(directory + "/incident.csv") == before)
            #expect(
                try SinkTestSupport.listing(directory) == [".nowetl", "incident.csv", "manifest.json"],
                "the journal kept")
        }
    }

    @Test func rejectSkipCountsAndStopsOverTheMaximum() async throws {
        let server = try await ETLServers.get()
        let bad = try await Self.badRecords(server)
        try await withScratchDirectory { (directory: String) in
            let outputs = [try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: directory)]
            let (summary, _) = try await TableRunnerSupport.run(
                try Self.rejectTable(RejectPolicy(mode: .skip)), server, directory: directory, concurrency: 3,
                outputs: outputs)
            #expect(summary.rejects == bad.count)
            #expect(summary.rows == 1200 - bad.count)
            let csv = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/incident.csv"))
            #expect(Set(csv.dropFirst().map { $0[0] }).isDisjoint(with: bad.map(\.sysID)))

            let error = await #expect(throws: NowETLError.self) {
                _ = try await TableRunnerSupport.run(
                    try Self.rejectTable(RejectPolicy(mode: .skip, maximum: 3)), server, directory: directory,
                    concurrency: 3, outputs: outputs)
            }
            #expect(error?.exitCode == 2)
            #expect(error?.code == .rejectsOverThreshold)
        }
    }

    @Test func rejectDeadLetterWritesTheRecords() async throws {
        let server = try await ETLServers.get()
        let bad = try await Self.badRecords(server)
        try await withScratchDirectory { (directory: String) in
            let outputs = [try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: directory)]
            let (summary, _) = try await TableRunnerSupport.run(
                try Self.rejectTable(RejectPolicy(mode: .deadLetter)), server, directory: directory, concurrency: 4,
                outputs: outputs)
            #expect(summary.rejects == bad.count)
            let lines = try SinkTestSupport.read(directory + "/incident.rejects.jsonl").split(
                separator: UInt8(ascii: "\n"))
            let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: String] }
            #expect(records.map { $0["sys_id"]! } == bad.map(\.sysID))
            #expect(records.map { $0["close_notes"]! } == bad.map(\.notes))
            #expect(
                try SinkTestSupport.listing(directory) == ["incident.csv", "incident.rejects.jsonl", "manifest.json"])
        }
    }

    @Test func discoveredFieldsIncludeInheritedOnes() async throws {
        let server = try await ETLServers.get()
        let service = NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin")))
        let discovery = FieldDiscovery(service: service)
        #expect(try await discovery.hierarchy(of: "incident") == ["incident", "task"])
        let fields = try await discovery.fields(of: "incident")
        let names = fields.map(\.name)
        #expect(names.contains("number"))  // from task
        #expect(names.contains("caller_id"))  // incident's own
        #expect(fields.first { $0.name == "caller_id" }?.isReference == true)
        #expect(fields.first { $0.name == "caller_id" }?.reference == "sys_user")
        #expect(names == names.sorted())
    }
}

extension TableRunnerTests {
    /// The chain of parents is read `FieldDiscovery.chainLevelsPerRequest` levels per request (dot-walked
    /// `super_class`): incident → task in one request, a chain of six in two, the same names in order.
    @Test func theTableChainIsReadSeveralLevelsPerRequest() async throws {
        try await withNowSim { sim in
            // t1 ← t2 ← … ← t6 as sys_db_object rows (nowsim keeps them as records; no table is made).
            var parent = ""
            for level in 1...6 {
                let sysID = String(format: "%032x", 0xc4a1_0000 + level)
                let row = ["sys_id": sysID, "name": "chain_t\(level)", "super_class": parent]
                let response = try await sim.request(
                    "POST", "/api/now/table/sys_db_object", body: try JSONSerialization.data(withJSONObject: row))
                try #require(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
                parent = sysID
            }
            let service = NowTableService(
                configuration: NowServiceConfiguration(
                    instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin")))
            let discovery = FieldDiscovery(service: service)
            // The requests for sys_db_object, counted by a fault that changes nothing (the request log's
            // line may come after the answer).
            try await sim.setFaults(["delay:ms=0,table=sys_db_object,api=table"])
            func chainReads() async throws -> Int { try await sim.matchedFaultCounts().first ?? -1 }
            var before = try await chainReads()
            #expect(try await discovery.hierarchy(of: "incident") == ["incident", "task"])
            #expect(try await chainReads() - before == 1)
            before = try await chainReads()
            #expect(try await discovery.chain(of: "chain_t6") == (1...6).reversed().map { "chain_t\($0)" })
            #expect(try await chainReads() - before == 2)
        }
    }
}

/// Collects progress events from any thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [TableProgress] = []

    func append(_ event: TableProgress) { lock.withLock { events.append(event) } }
    var all: [TableProgress] { lock.withLock { events } }
}
