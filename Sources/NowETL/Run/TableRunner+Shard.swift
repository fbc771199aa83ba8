import Foundation
import NowData

extension TableRunner {
    /// Extracts `shard`'s key range of `table` into the shard's run journal
    /// (``ShardLayout/journalDirectory(outputDirectory:table:shard:)``) — the extract half of a run
    /// (``TableExport``), without the join: nothing is written to `outputs`, whose kinds only shape the
    /// plan (XML unload and database columns) exactly as the merge will plan them.
    ///
    /// The shard's key range is cut into `source.concurrency` partitions; work stealing splits them
    /// further, inside the range. A rerun resumes from the journal like a run does (`restart` discards it)
    /// — but only a journal of the same `runKey`: one an earlier sharded run (another night's key) left
    /// is discarded, never resumed, so a shard never hands the merge an older night's rows as tonight's.
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`); the journal keeps what was fetched.
    func extractShard(
        _ table: TableConfiguration, outputs: [FileSinkSpec], shard: Shard, runKey: String? = nil, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> WithCounts<ShardManifest.Table> {
        let name = table.table
        var export = try await TableExport(
            table, outputs: outputs, engine: self,
            connection: TableExport.Connection(name, engine: self, progress: progress))
        let range = shard.keyRange
        export.plan.partitions = shard.partitions(configuration.source.concurrency)
        var summary = TableSummary.Builder(table: name)
        let counted = try await export.count(range: range)
        summary.summary.counts[.requests] += counted.attempts
        if let count = counted.count {
            summary.summary.sourceCount = count
            progress(.counted(table: name, count: count))
        }
        let directory = ShardLayout.journalDirectory(
            outputDirectory: configuration.outputDirectory, table: name, shard: shard)
        let (journal, alreadyRejected) = try export.openJournal(
            directory: directory, fingerprint: export.fingerprint + (runKey.map { " run-key:" + $0 } ?? ""),
            restart: restart, keySpace: range, summary: &summary, progress: progress)
        defer { journal.close() }
        do {
            try await export.extract(
                into: journal, pipeline: export.pipeline(.journalOnly, alreadyRejected: alreadyRejected),
                alreadyRows: summary.summary.counts[.resumedRows], summary: &summary, progress: progress)
        } catch {
            throw Self.tableError(error, table: name)
        }
        return WithCounts(
            export.finished(summary), plan: export.fingerprint, journalID: journal.id, range: range,
            parts: journal.allParts.map { part in
                ShardManifest.Part(
                    file: (journal.spillPath(part.id) as NSString).lastPathComponent, lower: part.range.lowerBound,
                    upper: part.range.upperBound, bytes: part.length, sha256: part.digest, rows: part.rows,
                    rejects: part.rejects, hidden: part.hidden)
            })
    }
}
