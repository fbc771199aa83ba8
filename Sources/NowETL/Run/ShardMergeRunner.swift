import Foundation
import NowData

/// The ``TableRunning`` of `nowetl merge`: for each table, the spill parts every shard extracted,
/// checked and joined in sys_id order into the pipeline's outputs — the join and prepare steps of a
/// single run over the shards' journals instead of its own. ``PipelineRun`` then commits the tables
/// exactly as it commits a run's (commit record, renames, manifest last; publish mode alike), so the
/// merged outputs are the bytes a single run writes.
///
/// Per table, before anything is written:
/// * the table is planned again (fields from the pipeline or the dictionary) and the plan's fingerprint
///   must equal every shard's: a dictionary or pipeline change between the shards and the merge is an
///   error (exit 78), never a file whose columns differ from its rows;
/// * every spill part must exist and its first `bytes` bytes hash to the manifest's SHA-256 (exit 1,
///   naming the shard and the file).
///
/// The prepared tables' state directory is all of `.nowetl/shards`, which the commit removes: a
/// committed merge leaves no shard state, a failed one leaves every shard as it was.
struct ShardMergeRunner: TableRunning {
    /// Plans the tables (and their dictionary order) as a run would.
    let base: TableRunner
    /// The checked shard manifests.
    let shards: ShardSet

    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        let clock = ContinuousClock()
        let start = clock.now
        let name = table.table
        let outputDirectory = base.configuration.outputDirectory
        let entries = shards.entries(for: name)
        guard entries.count == shards.manifests.count else {
            throw TableRunError(
                table: name, kind: .configuration, "not every shard extracted the table; run every shard again")
        }
        let service = base.makeService { _ in }
        let plan = try await base.fullPlan(table, outputs: outputs, service: service)
        let fingerprint = base.fingerprint(of: plan)
        var spills: [(path: String, length: Int)] = []
        for (shard, entry) in entries {
            let directory = ShardLayout.journalDirectory(outputDirectory: outputDirectory, table: name, shard: shard)
            guard entry.plan == fingerprint else {
                throw TableRunError(
                    table: name, kind: .configuration,
                    "shard \(shard) extracted the table with another plan (its fields, types, filter or page size "
                        + "changed since, in the pipeline or the instance's dictionary; journal \(directory)): "
                        + "run the shards again")
            }
            for part in entry.parts {
                let path = directory + "/" + part.file
                guard let hasher = SpillReader.hasher(of: path, length: part.bytes),
                    hasher.finalizedCopy.hexString == part.sha256
                else {
                    throw TableRunError(
                        table: name, kind: .other,
                        "shard \(shard): the spill part \(path) is missing or does not match the shard's manifest "
                            + "(\(part.bytes) bytes, sha256 \(part.sha256.prefix(12))…); run the shard again")
                }
                spills.append((path, part.bytes))
            }
        }
        progress(
            .counted(
                table: name,
                count: entries.reduce(0) { $0 + ($1.table.sourceCount ?? $1.table.parts.reduce(0) { $0 + $1.rows }) })
        )
        var pipeline = TablePipeline(
            plan: plan, source: InstancePageSource(service: service), decoder: base.decoder,
            rejects: RejectCollector(table: name, policy: table.reject), limiter: base.limiter,
            sinks: outputs.map { $0.makeSink() })
        if table.reject.mode == .deadLetter {
            let directory =
                outputs.first(where: { !$0.isDatabase && !$0.isInstance })?.options.outputDirectory ?? outputDirectory
            pipeline.deadLetters = DeadLetterFile(outputDirectory: directory, table: name)
        }
        var context = context
        // The same shards merged again (after a crash) are the same load for a database sink.
        context.loadID = SHA256.hash(Array(entries.map(\.table.journalID).joined(separator: "\n").utf8)).hexString
        let prepared: [PreparedOutput]
        do {
            prepared = try await pipeline.join(spills: spills, context: context).prepared
        } catch {
            await pipeline.abort()
            throw TableRunner.tableError(error, table: name)
        }
        let tables = entries.map(\.table)
        let parts = tables.flatMap(\.parts)
        var summary = TableSummary(table: name)
        summary.rows = parts.reduce(0) { $0 + $1.rows }
        summary.rejects = parts.reduce(0) { $0 + $1.rejects }
        summary.hiddenRows = parts.reduce(0) { $0 + $1.hidden }
        summary.pages = tables.reduce(0) { $0 + $1.pages }
        summary.requests = tables.reduce(0) { $0 + $1.requests }
        summary.retries = tables.reduce(0) { $0 + $1.retries }
        summary.rangeSplits = tables.reduce(0) { $0 + $1.rangeSplits }
        summary.pageSizeReductions = tables.reduce(0) { $0 + $1.pageSizeReductions }
        summary.utf8Repaired = tables.reduce(0) { $0 + $1.utf8Repaired }
        summary.resumedPages = tables.reduce(0) { $0 + $1.resumedPages }
        summary.resumedRows = tables.reduce(0) { $0 + $1.resumedRows }
        summary.lowestConcurrency = tables.compactMap(\.lowestConcurrency).min()
        summary.concurrency = base.configuration.source.concurrency
        let counts = tables.compactMap(\.sourceCount)
        summary.sourceCount = counts.count == tables.count ? counts.reduce(0, +) : nil
        let elapsed = clock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let preparedTable = PreparedTable(
            summary: summary, outputs: prepared, sinks: pipeline.sinks, deadLetters: pipeline.deadLetters,
            journalDirectory: ShardLayout.root(outputDirectory: outputDirectory))
        preparedTable.summary.files = preparedTable.files
        preparedTable.summary.databaseTables = preparedTable.databaseTables
        progress(.finished(preparedTable.summary))
        return preparedTable
    }

    func dependencyOrder(of tables: [String]) async throws -> TableOrder {
        try await base.dependencyOrder(of: tables)
    }
}
