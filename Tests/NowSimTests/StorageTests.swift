import Foundation
import NowSQLite
import Testing

@testable import NowSim

@Suite(.timeLimit(.minutes(5))) struct StorageTests {
    @Test(arguments: [0, 7, 10, 99, 1234, -5, -120, Int.max, Int.min])
    func integersMatchDescription(value: Int) {
        var bytes: [UInt8] = []
        DecimalText.appendInteger(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }

    @Test func paddedNumbers() {
        var bytes: [UInt8] = []
        DecimalText.appendPadded(10_001, width: 7, to: &bytes)
        DecimalText.appendPadded(12_345_678, width: 7, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "001000112345678")
    }

    @Test func sysIDsAreLowercaseHex() {
        var random = SeedRandom(seed: 9)
        var seen: Set<String> = []
        for _ in 0..<1000 {
            let id = random.sysID()
            let text = id.string
            var bytes: [UInt8] = []
            id.append(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == text)
            #expect(text.count == 32 && text.allSatisfy { "0123456789abcdef".contains($0) })
            seen.insert(text)
        }
        #expect(seen.count == 1000)
        #expect(
            SysIDBits(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210).string
                == "0123456789abcdeffedcba9876543210")
    }

    @Test func randomStreamsAreDeterministicAndIndependent() {
        var a = SeedRandom(seed: 42, stream: "incident")
        var b = SeedRandom(seed: 42, stream: "incident")
        var c = SeedRandom(seed: 42, stream: "problem")
        let first = (0..<100).map { _ in a.next() }
        #expect(first == (0..<100).map { _ in b.next() })
        #expect(first != (0..<100).map { _ in c.next() })
        // Known first output, so a change of algorithm cannot go unnoticed (it would change every seed).
        var fixed = SeedRandom(seed: 0)
        #expect(fixed.next() == SeedRandom.referenceFirstOutputOfSeedZero)
        var bounded = SeedRandom(seed: 3)
        var counts = [0, 0, 0]
        for _ in 0..<30_000 { counts[bounded.below(3)] += 1 }
        #expect(counts.allSatisfy { (9_000...11_000).contains($0) })
    }

    @Test func rowWriterStoresEmptyAsNullAndReusesItself() throws {
        let path = Database.temporaryPath()
        defer { Database.remove(at: path) }
        let connection = try SQLiteConnection(path: path)
        try connection.execute("CREATE TABLE \"t\" (\"a\" TEXT, \"group\" TEXT, \"c\" TEXT)")
        var writer = try RowWriter(connection: connection, table: "t", columns: ["a", "group", "c"])
        writer.set(0, "x")
        writer.set(1, "")
        writer.set(2, dateTime: 0)
        try writer.insert()
        writer.set(1, boolean: true)
        try writer.insert()
        writer.set(column: "c", "日本語 🇯🇵\u{0B}")
        writer.set(column: "unknown", "ignored")
        writer.set(0, integer: -42)
        try writer.insert()
        let rows = try connection.withStatement("SELECT a, \"group\", c FROM t ORDER BY rowid") { statement in
            var rows: [[String?]] = []
            while try statement.step() { rows.append([statement.text(0), statement.text(1), statement.text(2)]) }
            return rows
        }
        #expect(rows == [["x", nil, "1970-01-01 00:00:00"], [nil, "true", nil], ["-42", nil, "日本語 🇯🇵\u{0B}"]])
        #expect(writer.slot("group") == 1 && writer.slot("nope") == nil)
    }
}

extension SeedRandom {
    /// xoshiro256** seeded by SplitMix64(0): its first output, computed once and pinned here.
    static let referenceFirstOutputOfSeedZero: UInt64 = 0x99EC_5F36_CB75_F2B4
}
