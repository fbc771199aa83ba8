import Foundation

/// The ``TableRunning`` of one shard of a sharded run (`nowetl run PIPELINE --shard I/N`): each table's
/// key range of the shard extracted into the shard's run journals (``TableRunner/extractShard(_:outputs:shard:runKey:restart:progress:)``),
/// nothing written to the outputs. ``PipelineRun`` drives the tables as for a run — pipeline order, the
/// first failed table stops the shard — and finishes with the shard's manifest instead of a commit
/// (``PipelineRun/Finish/shardManifest(_:path:)``); `nowetl merge` publishes.
///
/// A rerun resumes from the shard's journals (a finished table fetches nothing again); `restart`
/// (`--restart`) discards them. So rerunning a shard is idempotent.
struct ShardExtraction: TableRunning {
    /// The instance's runner.
    let base: TableRunner
    /// The shard.
    let shard: Shard
    /// `--run-key`: the shard's journals resume only under the same key.
    let runKey: String?

    /// Extracts the shard's share of `table`; the prepared table carries the manifest entry
    /// (``PreparedTable/shardEntry``) and no output.
    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        let entry = try await base.extractShard(
            table, outputs: outputs, shard: shard, runKey: runKey, restart: restart, progress: progress)
        var summary = entry.summary
        summary.concurrency = base.configuration.source.concurrency
        let prepared = PreparedTable(summary: summary, outputs: [], sinks: [], journalDirectory: nil)
        prepared.shardEntry = entry
        return prepared
    }

    func checkNames(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [DictionaryNameProblem]
    {
        try await base.checkNames(in: configuration, tables: tables)
    }

    /// Why `tables` of `configuration` cannot be sharded, or `nil`.
    ///
    /// Incremental tables cannot: their window's signpost is the run's start, and shards start at
    /// different times, so their windows would not fit together into one state. Instance outputs
    /// cannot: a migration writes record by record and keeps its own progress record. Both exit 78.
    static func refusal(_ configuration: PipelineConfiguration, tables: [TableConfiguration]) -> NowETLError? {
        if let table = tables.first(where: { $0.incremental != nil }) {
            return .shardsMismatch(
                "table \(table.table) is incremental (mode: incremental): shards export full tables only; run it "
                    + "without --shard (select the full tables of a sharded run with --table)")
        }
        if configuration.outputs.contains(where: \.isInstance) {
            return .shardsMismatch(
                "the pipeline has an instance output: shards and merge support file and database outputs only; "
                    + "run it without --shard")
        }
        return nil
    }
}
