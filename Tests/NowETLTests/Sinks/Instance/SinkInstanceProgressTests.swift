import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// The pieces of the instance sink that need no instance: the load's progress record (what a rerun
/// trusts) and the rate ceiling's slots.
@Suite(.timeLimit(.minutes(2))) struct SinkInstanceProgressTests {
    static func sysID(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 32 - hex.count) + hex
    }

    @Test func confirmedRowsSurviveAReopenOfTheSameLoadOnly() throws {
        try withScratchDirectory("instanceProgress") { (scratch: String) in
            let directory = scratch + "/tables/incident"  // created by the record
            var progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load-1")
            #expect(progress.confirmed.isEmpty)
            try progress.confirm([Self.sysID(1), Self.sysID(2)])
            try progress.confirm([Self.sysID(3)])
            progress.close()
            progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load-1")
            #expect(progress.confirmed == [Self.sysID(1), Self.sysID(2), Self.sysID(3)])
            progress.close()
            // Another load (a fresh journal) trusts nothing of it.
            progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load-2")
            #expect(progress.confirmed.isEmpty)
            try progress.confirm([Self.sysID(4)])
            progress.close()
            progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load-1")
            #expect(progress.confirmed.isEmpty)
            progress.close()
        }
    }

    @Test func aTornLastLineIsNoConfirmationAndLaterAppendsStayReadable() throws {
        try withScratchDirectory("instanceProgressTorn") { (directory: String) in
            var progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load")
            try progress.confirm([Self.sysID(1)])
            progress.close()
            // A crash in the middle of an append: half a sys_id, no newline; and a line that is no sys_id
            // by the rule (`legacy-import-0001` would be one).
            let handle = try #require(FileHandle(forWritingAtPath: directory + "/p.progress"))
            handle.seekToEndOfFile()
            handle.write(Data("not a sys_id^\n\(Self.sysID(2).prefix(20))".utf8))
            try handle.close()
            progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load")
            #expect(progress.confirmed == [Self.sysID(1)])
            try progress.confirm([Self.sysID(3)])
            progress.close()
            progress = try InstanceLoadProgress.open(directory: directory, name: "p.progress", loadID: "load")
            #expect(progress.confirmed == [Self.sysID(1), Self.sysID(3)])
            progress.close()
            let text = try String(contentsOfFile: directory + "/p.progress", encoding: .utf8)
            #expect(text == "nowetl-instance-progress 1 load\n\(Self.sysID(1))\n\(Self.sysID(3))\n")
        }
    }

    @Test func theRateCeilingSpacesSlotsAndSavesNoBurst() {
        let limiter = TargetRateLimiter(ratePerSecond: 20)
        #expect(limiter.interval == .milliseconds(50))
        let start = ContinuousClock.now
        let slots = (0..<3).map { _ in limiter.reserveSlot(at: start) }
        #expect(slots == [start, start + .milliseconds(50), start + .milliseconds(100)])
        // After a pause the next request goes at once, and the one after it one interval later.
        let later = start + .seconds(10)
        #expect(limiter.reserveSlot(at: later) == later)
        #expect(limiter.reserveSlot(at: later) == later + .milliseconds(50))
    }

    /// A Batch API call of 25 writes takes 25 slots: the ceiling counts writes, not calls.
    @Test func aBatchOfWritesTakesOneSlotPerWrite() {
        let limiter = TargetRateLimiter(ratePerSecond: 20)
        let start = ContinuousClock.now
        #expect(limiter.reserveSlot(at: start, count: 25) == start)
        #expect(limiter.reserveSlot(at: start) == start + .milliseconds(25 * 50))
    }

    /// An insert's answer must name the record's own sys_id: a target that made up another one (it does
    /// not let the user set sys_id) would get a new copy every run, so it is exit 77.
    @Test func anInsertStoredUnderAnotherSysIDIsAPermissionError() throws {
        let configuration = NowServiceConfiguration(
            instanceURL: try #require(URL(string: "http://127.0.0.1:9")),
            authentication: .basic(username: "a", password: "b"), allowsInsecureHTTP: true)
        let writer = InstanceTableWriter(
            service: NowTableService(configuration: configuration), table: "incident", target: "http://127.0.0.1:9",
            rateLimiter: nil)
        let record = InstanceTableWriter.Record(sysID: "a1b2", fields: ["sys_id": "a1b2"])
        try writer.checkKept(record, answer: Data(#"{"result":{"sys_id":"a1b2"}}"#.utf8))
        #expect {
            try writer.checkKept(record, answer: Data(#"{"result":{"sys_id":"ffff"}}"#.utf8))
        } throws: { error in
            (error as? NowETLError)?.exitCode == 77 && "\(error)".contains("a1b2") && "\(error)".contains("ffff")
        }
    }

    @Test func aWaitForTheCeilingEndsWhenTheTaskIsCancelled() async throws {
        // One request per 1,000 s: the second waits, and cancellation ends the wait with an error.
        let limiter = TargetRateLimiter(ratePerSecond: 0.001)
        try await limiter.acquire()
        let waiting = Task { try await limiter.acquire() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
