import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// Run times nowetl writes are ISO 8601 UTC with `Z`; the older forms still read.
@Suite(.timeLimit(.minutes(2))) struct SummaryTimestampTests {
    static let started = Date(timeIntervalSince1970: 1_796_114_363.75)  // 2026-12-01 08:39:23.75 UTC

    @Test func runTimesAreISO8601WithZ() throws {
        #expect(RunTimestamp(Self.started).text == "2026-12-01T08:39:23Z")
        #expect(RunLogger.timestamp(Self.started) == "2026-12-01T08:39:23Z")
        #expect(Manifest(runID: "r", runStarted: Self.started, files: []).runStarted == "2026-12-01T08:39:23Z")
        let encoded = try JSONEncoder().encode([RunTimestamp(Self.started)])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["2026-12-01T08:39:23Z"]"#)
    }

    @Test(arguments: [
        #"["2026-12-01T08:39:23Z"]"#, #"["2026-12-01 08:39:23"]"#, "[1796114363.75]", "[1796114363]",
    ])
    func everyFormWrittenSoFarReads(json: String) throws {
        let decoded = try JSONDecoder().decode([RunTimestamp].self, from: Data(json.utf8))
        #expect(decoded == [RunTimestamp(secondsSinceEpoch: 1_796_114_363)])
    }

    @Test(arguments: [
        #"["2026-12-01T08:39:23"]"#, #"["2026-12-01T08:39:23+01:00"]"#, #"["yesterday"]"#, #"[""]"#, "[1e300]",
    ])
    func otherTextIsNotATime(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([RunTimestamp].self, from: Data(json.utf8)) }
    }

    @Test func aShardManifestOfAnEarlierVersionStillLoads() throws {
        try withScratchDirectory { (directory: URL) in
            let old = """
                {"count":2,"index":0,"pipeline_sha256":"ab","run_id":"20261201T083923Z-0001",
                 "run_started":1796114363.75,"status":"ok","tables":[],"version":1}
                """
            let oldPath = directory.appendingPathComponent("shard-0.json").path
            try Data(old.utf8).write(to: URL(fileURLWithPath: oldPath))
            let manifest = try ShardManifest.read(from: oldPath)
            #expect(manifest.runStarted == RunTimestamp(secondsSinceEpoch: 1_796_114_363))

            // Written again, it is ISO 8601, and reads back the same.
            let newPath = directory.appendingPathComponent("shard-1.json").path
            try manifest.write(to: newPath)
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: newPath)))
            #expect((object as? [String: Any])?["run_started"] as? String == "2026-12-01T08:39:23Z")
            #expect(try ShardManifest.read(from: newPath) == manifest)
        }
    }

    @Test func aManifestOfAnEarlierVersionStillLoads() throws {
        try withScratchDirectory { (directory: URL) in
            let old = #"{"files":[],"run_id":"r","run_started":"2026-12-01 08:39:23","version":1}"#
            try Data(old.utf8).write(to: directory.appendingPathComponent("manifest.json"))
            let manifest = try Manifest.read(fromDirectory: directory.path)
            #expect(RunTimestamp(parsing: manifest.runStarted) == RunTimestamp(secondsSinceEpoch: 1_796_114_363))
        }
    }
}
