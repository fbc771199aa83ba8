import NowETL
import NowQuery
import Testing

/// `--shard I/N` parsing and the key ranges shards cover.
@Suite(.timeLimit(.minutes(1))) struct ShardArgumentsTests {
    @Test(arguments: ["0/3", "2/3", "0/1", "1023/1024"])
    func validShardsParse(_ text: String) throws {
        guard case .run(let options) = try NowETLArguments.parse(["run", "p.yaml", "--shard", text]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.shard?.description == text)
    }

    @Test(arguments: ["3/3", "-1/3", "1/0", "a/b", "1", "1/2/3", "/3", "1/", " 1/3", "+1/3", "0/1025", "0x1/3"])
    func badShardsAreUsageErrors(_ text: String) {
        #expect(throws: NowETLArguments.UsageError.self) {
            try NowETLArguments.parse(["run", "p.yaml", "--shard", text])
        }
        #expect((try? Shard.parse(text)) == nil)
    }

    @Test func shardAndKeepGoingAreAUsageError() {
        #expect(throws: NowETLArguments.UsageError.self) {
            try NowETLArguments.parse(["run", "p.yaml", "--shard", "0/2", "--keep-going"])
        }
    }

    @Test func mergeParsesItsOptions() throws {
        let parsed = try NowETLArguments.parse(["merge", "p.yaml", "--summary-json", "s.json", "--log-format", "json"])
        var expected = NowETLArguments.MergeOptions(pipeline: "p.yaml")
        expected.summaryJSON = "s.json"
        expected.logFormat = .json
        #expect(parsed == .merge(expected))
        #expect(throws: NowETLArguments.UsageError.self) {
            try NowETLArguments.parse(["merge", "p.yaml", "--shard", "0/2"])
        }
    }

    @Test func runKeyGoesWithShardAndMerge() throws {
        guard
            case .run(let run) = try NowETLArguments.parse([
                "run", "p.yaml", "--shard", "0/2", "--run-key", "2026-12-02",
            ])
        else {
            Issue.record("not a run")
            return
        }
        #expect(run.runKey == "2026-12-02")
        guard case .merge(let merge) = try NowETLArguments.parse(["merge", "p.yaml", "--run-key", "nightly-29112.x:1"])
        else {
            Issue.record("not a merge")
            return
        }
        #expect(merge.runKey == "nightly-29112.x:1")
        for bad in [
            ["run", "p.yaml", "--run-key", "k"], ["merge", "p.yaml", "--run-key", "a b"],
            ["merge", "p.yaml", "--run-key", "../x"],
            ["merge", "p.yaml", "--run-key", String(repeating: "k", count: 129)],
        ] {
            #expect(throws: NowETLArguments.UsageError.self) { try NowETLArguments.parse(bad) }
        }
    }

    /// The shards' ranges, and their partitions, tile the key space in order without gaps or overlaps.
    @Test(arguments: [1, 2, 3, 7, 16])
    func shardPartitionsTileTheKeySpace(_ count: Int) throws {
        var bounds: [SysIDRange] = []
        for index in 0..<count {
            let shard = try #require(Shard(index: index, count: count))
            let pieces = shard.partitions(4)
            #expect(pieces.first?.lowerBound == shard.keyRange.lowerBound)
            #expect(pieces.last?.upperBound == shard.keyRange.upperBound)
            bounds += pieces
        }
        #expect(bounds.first?.lowerBound == nil)
        #expect(bounds.last?.upperBound == nil)
        for (left, right) in zip(bounds, bounds.dropFirst()) {
            let upper = try #require(left.upperBound)
            #expect(upper == right.lowerBound)
            if let lower = left.lowerBound { #expect(lower < upper) }
        }
    }
}
