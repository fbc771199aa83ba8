import Foundation
import NowQuery
import Testing

@testable import NowETL

/// A shard's journal stays inside the shard's key range: the gaps a crash leaves (a split journaled,
/// its new part not) are filled within the range, so a resumed shard never reads another shard's rows.
@Suite(.timeLimit(.minutes(1))) struct ShardJournalTests {
    @Test func gapsAreFilledWithinTheShardsKeyRangeOnly() throws {
        let shard = try #require(Shard(index: 1, count: 3))
        let range = shard.keyRange
        let pieces = shard.partitions(3)
        // The middle piece was lost: only the first and the last are journaled.
        let parts = [
            TableJournal.Part(id: 0, range: pieces[0]), TableJournal.Part(id: 2, range: pieces[2]),
        ]
        let filled = TableJournal.fillingGaps(parts, within: range)
        #expect(filled.map(\.range) == pieces)
        #expect(filled.first?.range.lowerBound == range.lowerBound)
        #expect(filled.last?.range.upperBound == range.upperBound)
        // Nothing journaled: the whole range, and nothing outside it.
        #expect(TableJournal.fillingGaps([], within: range).map(\.range) == [range])
        // The whole key space by default, as before shards.
        #expect(TableJournal.fillingGaps([]).map(\.range) == [SysIDRange()])
    }

    /// A shard journal opened again (a rerun after a crash) resumes its own parts and adds none outside
    /// its key range.
    @Test func aReopenedShardJournalKeepsToItsRange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-shard-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let shard = try #require(Shard(index: 2, count: 3))
        let (first, opened) = try TableJournal.open(
            directory: directory, fingerprint: "f", partitions: shard.partitions(2), restart: false,
            keySpace: shard.keyRange)
        #expect(opened == .fresh)
        first.close()
        let (again, state) = try TableJournal.open(
            directory: directory, fingerprint: "f", partitions: shard.partitions(2), restart: false,
            keySpace: shard.keyRange)
        defer { again.close() }
        #expect(state == .resumed(pages: 0, rows: 0, partsRestarted: 0))
        #expect(again.allParts.map(\.range) == shard.partitions(2))
    }
}
