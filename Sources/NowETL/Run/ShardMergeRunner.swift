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
        let name = table.table
        let outputDirectory = base.configuration.outputDirectory
        let entries = shards.entries(for: name)
        guard entries.count == shards.manifests.count else {
            throw NowETLError(
                .configuration, table: name, "not every shard extracted the table; run every shard again")
        }
        let export = try await TableExport(
            table, outputs: outputs, engine: base, connection: TableExport.Connection(name, engine: base) { _ in })
        var spills: [(path: String, length: Int)] = []
        for (shard, entry) in entries {
            let directory = ShardLayout.journalDirectory(outputDirectory: outputDirectory, table: name, shard: shard)
            guard entry.plan == export.fingerprint else {
                throw NowETLError(
                    .configuration, table: name,
                    "shard \(shard) extracted the table with another plan (its fields, types, filter or page size "
                        + "changed since, in the pipeline or the instance's dictionary; journal \(directory)): "
                        + "run the shards again")
            }
            for part in entry.parts {
                let path = directory + "/" + part.file
                guard let hasher = SpillReader.hasher(of: path, length: part.bytes),
                    hasher.finalizedCopy.hexString == part.sha256
                else {
                    throw NowETLError(
                        .failed, table: name,
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
        let pipeline = export.pipeline(.outputs(deadLetterRunID: nil))
        var context = context
        // The same shards merged again (after a crash) are the same load for a database sink.
        context.loadID = SHA256.hash(Array(entries.map(\.table.journalID).joined(separator: "\n").utf8)).hexString
        let prepared = try await export.join(pipeline, spills: spills, context: context).prepared
        // The shards fetched: their figures add up; the merge's own time is the table's.
        var summary = TableSummary.Builder(table: name)
        summary.measuredHere = false
        for (_, entry) in entries { summary.add(entry.summary) }
        let counts = entries.compactMap(\.table.sourceCount)
        summary.summary.sourceCount = counts.count == entries.count ? counts.reduce(0, +) : nil
        let preparedTable = export.prepared(
            pipeline, outputs: prepared, summary: summary,
            journalDirectory: ShardLayout.root(outputDirectory: outputDirectory))
        progress(.finished(preparedTable.summary))
        return preparedTable
    }

    func dependencyOrder(of tables: [String]) async throws -> TableOrder {
        try await base.dependencyOrder(of: tables)
    }
}
