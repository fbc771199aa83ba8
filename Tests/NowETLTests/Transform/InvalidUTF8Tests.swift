import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// A record whose text is not valid UTF-8 (nowsim's `invalid-utf8` fault) is a record-level
/// problem: it follows the reject policy, or is repaired with U+FFFD and counted, and the rest of
/// its page is exported.
@Suite(.timeLimit(.minutes(5))) struct InvalidUTF8Tests {
    static let fields = ["sys_id", "number", "short_description"]

    /// The plain server, and one serving two records' `short_description` with a byte that is not UTF-8.
    struct Servers {
        var plain: NowSimInstance
        var damaged: NowSimInstance
        /// The damaged records' sys_ids, sorted.
        var sysIDs: [String]
        /// Their short descriptions as the plain server has them.
        var descriptions: [String]
    }

    static func servers() async throws -> Servers {
        let plain = try await ETLServers.get()
        let source = try await TableRunnerSupport.source(plain, fields: Self.fields, mode: [.actualValues])
        let sorted = source.keys.sorted()
        try #require(sorted.count == 1200)
        let chosen = [sorted[100], sorted[900]]
        var arguments = ETLServers.seed
        for sysID in chosen {
            arguments += ["--fault", "invalid-utf8:table=incident,field=short_description,sys_id=\(sysID)"]
        }
        return Servers(
            plain: plain, damaged: try await NowSimInstance.shared(arguments: arguments), sysIDs: chosen,
            descriptions: chosen.map { source[$0]?["short_description"] as? String ?? "?" })
    }

    static func table(_ policy: RejectPolicy) throws -> TableConfiguration {
        try TableConfiguration(table: "incident", fields: fields, reject: policy)
    }

    static func csvOutput(_ directory: String) throws -> [FileSinkSpec] {
        [try TableRunnerSupport.spec(.csv(CSVSinkOptions()), "incident.csv", directory: directory)]
    }

    @Test func theFaultReallyServesInvalidUTF8() async throws {
        let servers = try await Self.servers()
        let page = try await servers.damaged.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "sys_id>=\(servers.sysIDs[0])^ORDERBYsys_id"), ("sysparm_limit", "5")])
        #expect(page.status == 200)
        #expect(page.json == nil, "not valid JSON any more")
        #expect(String(data: page.body, encoding: .utf8) == nil)
        let repaired = String(decoding: page.body, as: UTF8.self)
        #expect(repaired.contains("\"short_description\":\"\u{FFFD}"))
        #expect(repaired.components(separatedBy: "\u{FFFD}").count == 2, "one value of one record")
    }

    @Test func failNamesTheRecordAndTheField() async throws {
        let servers = try await Self.servers()
        try await withScratchDirectory { (directory: String) in
            let error = await #expect(throws: NowETLError.self) {
                _ = try await TableRunnerSupport.run(
                    try Self.table(.fail), servers.damaged, directory: directory, concurrency: 2,
                    outputs: Self.csvOutput(directory))
            }
            #expect(error?.exitCode == 1)
            let message = error?.message ?? ""
            #expect(servers.sysIDs.contains { message.contains($0) }, "\(message)")
            #expect(message.contains("field 'short_description' is not valid UTF-8"), "\(message)")
            #expect(!message.contains("not valid JSON"))
            #expect(message.contains("invalid_utf8: replace"), "the way out is named")
        }
    }

    @Test func skipExportsEveryOtherRow() async throws {
        let servers = try await Self.servers()
        try await withScratchDirectory { (directory: String) in
            let (summary, _) = try await TableRunnerSupport.run(
                try Self.table(RejectPolicy(mode: .skip)), servers.damaged, directory: directory, concurrency: 3,
                outputs: Self.csvOutput(directory))
            #expect(summary.rows == 1198)
            #expect(summary.rejects == 2)
            #expect(summary.counts[.utf8Repaired] == 0)
            let csv = try await SinkTestSupport.pythonCSV(try SinkTestSupport.read(directory + "/incident.csv"))
            let all = try await TableRunnerSupport.source(servers.plain, fields: ["sys_id"], mode: [.actualValues])
            #expect(csv.dropFirst().map { $0[0] } == all.keys.sorted().filter { !servers.sysIDs.contains($0) })
        }
    }

    @Test func deadLetterHoldsTheRecords() async throws {
        let servers = try await Self.servers()
        try await withScratchDirectory { (directory: String) in
            let (summary, _) = try await TableRunnerSupport.run(
                try Self.table(RejectPolicy(mode: .deadLetter)), servers.damaged, directory: directory, concurrency: 4,
                outputs: Self.csvOutput(directory))
            #expect(summary.rows == 1198)
            #expect(summary.rejects == 2)
            let lines = try SinkTestSupport.read(directory + "/incident.rejects.jsonl").split(
                separator: UInt8(ascii: "\n"))
            let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0)) as? [String: String] ?? [:] }
            #expect(records.map { $0["sys_id"] } == servers.sysIDs)
            #expect(records.map { $0["short_description"] } == servers.descriptions.map { "\u{FFFD}" + $0 })
            #expect(records.allSatisfy { $0["number"]?.hasPrefix("INC") == true })
        }
    }

    @Test func replaceRepairsCountsAndLeavesTheOtherRowsAlone() async throws {
        let servers = try await Self.servers()
        try await withScratchDirectory { (directory: String) in
            let (summary, _) = try await TableRunnerSupport.run(
                try Self.table(RejectPolicy(mode: .fail, invalidUTF8: .replace)), servers.damaged, directory: directory,
                concurrency: 4, outputs: Self.csvOutput(directory))
            #expect(summary.rows == 1200)
            #expect(summary.rejects == 0)
            #expect(summary.counts[.utf8Repaired] == 2)
            try await withScratchDirectory("plain") { (plainDirectory: String) in
                _ = try await TableRunnerSupport.run(
                    try Self.table(.fail), servers.plain, directory: plainDirectory, concurrency: 4,
                    outputs: Self.csvOutput(plainDirectory))
                let repaired = try await SinkTestSupport.pythonCSV(
                    try SinkTestSupport.read(directory + "/incident.csv"))
                var expected = try await SinkTestSupport.pythonCSV(
                    try SinkTestSupport.read(plainDirectory + "/incident.csv"))
                for index in expected.indices where servers.sysIDs.contains(expected[index][0]) {
                    expected[index][2] = "\u{FFFD}" + expected[index][2]
                }
                #expect(repaired == expected)
                #expect(repaired.count == 1201)

                let report = RunReport(
                    PipelineRunResult(
                        runID: "r", runStarted: Date(), seconds: 1,
                        tables: [TableOutcome(table: "incident", status: .ok, summary: summary, seconds: 1)],
                        manifestPath: nil, runError: nil, exitCode: 0))
                let object = try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any]
                let tables = object?["tables"] as? [[String: Any]]
                #expect(tables?.first?["utf8_repaired"] as? Int == 2)
            }
        }
    }

    // MARK: - The scan

    @Test func theScanNamesRecordAndFieldAndLeavesBrokenPagesBroken() throws {
        func body(_ parts: [[UInt8]]) -> Data { Data(parts.joined()) }
        let bad: [UInt8] = [0xE9]
        let page = body([
            Array(#"{"result":[{"sys_id":"a","x":"ok"},{"sys_id":"b","x":"caf"#.utf8), bad,
            Array(#"","y":{"display_value":"d"#.utf8), bad, Array(#"","value":"v"}},{"sys_id":"c","k"#.utf8), bad,
            Array(#"y":"1"}]}"#.utf8),
        ])
        let scan = try #require(InvalidUTF8Scan(page))
        #expect(scan.sites.map(\.record) == [1, 1, 2])
        #expect(scan.sites.map(\.field) == ["x", "y", "k\u{FFFD}y"])
        #expect(scan.fields(ofRecord: 1) == ["x", "y"])
        let records = try FoundationPageDecoder().records(in: scan.repaired)
        #expect(records.map(\.sysID) == ["a", "b", "c"])
        #expect(records[1].fields["x"] == .text("caf\u{FFFD}"))

        #expect(InvalidUTF8Scan(Data(#"{"result":[]}"#.utf8)) == nil, "valid")
        #expect(InvalidUTF8Scan(body([Array(#"{"result":["#.utf8), bad, Array("]}".utf8)])) == nil, "between tokens")
    }
}
