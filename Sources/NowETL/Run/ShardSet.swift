import Foundation

/// The manifests of every shard of a sharded run, read and checked against each other and the
/// pipeline before `nowetl merge` touches an output.
///
/// The checks, each an error naming the shard and its manifest file (``NowETLError``: ``NowETLError/Code/shardToRerun``, exit 1, or ``NowETLError/Code/shardsMismatch``, exit 78):
/// * at least one manifest, each readable and named for its own index (exit 1);
/// * every shard ran with the merge's `--run-key` (exit 1: a shard of another key — an older night's —
///   has not run for this one yet);
/// * one shard count for all, every index of `0..<N` present (a missing one is exit 1, another count 78);
/// * the pipeline file they ran is this one, byte for byte (exit 78);
/// * every shard ended ``ShardManifest/Status/ok`` (exit 1: run it again);
/// * every shard extracted the same tables (exit 78).
///
/// The plans and the spill parts' digests are checked per table, when the merge joins it
/// (``ShardMergeRunner``).
struct ShardSet: Sendable {
    /// The manifests in shard order.
    let manifests: [ShardManifest]
    /// The tables every shard extracted, in the first shard's order.
    let tables: [String]

    /// Reads the shard manifests of `outputDirectory` and checks them for a merge of the pipeline whose
    /// file hashes to `pipelineSHA256`.
    static func load(outputDirectory: String, pipelineSHA256: String, runKey: String? = nil)
        throws(NowETLError) -> ShardSet
    {
        let indexes = ShardLayout.manifestIndexes(outputDirectory: outputDirectory)
        let root = ShardLayout.root(outputDirectory: outputDirectory)
        guard !indexes.isEmpty else {
            throw .shardToRerun(
                "no shard manifest in \(root): run the shards (nowetl run PIPELINE --shard I/N for every I) first")
        }
        var manifests: [ShardManifest] = []
        for index in indexes {
            let path = ShardLayout.manifestPath(outputDirectory: outputDirectory, index: index)
            let manifest: ShardManifest
            do {
                manifest = try ShardManifest.read(from: path)
            } catch {
                throw .shardToRerun(
                    "shard \(index): cannot read its manifest \(path)", cause: error, remedy: "run the shard again")
            }
            guard manifest.version == 1, manifest.index == index, manifest.shard != nil else {
                throw .shardToRerun(
                    "shard \(index): its manifest \(path) is not a version-1 manifest of shard \(index)")
            }
            manifests.append(manifest)
        }
        let describe = { (key: String?) in key.map { "--run-key \($0)" } ?? "no --run-key" }
        if let stale = manifests.first(where: { $0.runKey != runKey }) {
            throw .shardToRerun(
                "shard \(stale.index) of \(stale.count) belongs to another sharded run (\(describe(stale.runKey)), "
                    + "this merge: \(describe(runKey)); "
                    + "\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: stale.index))): "
                    + "run nowetl run PIPELINE --shard \(stale.index)/\(stale.count)\(runKey.map { " --run-key " + $0 } ?? ""), "
                    + "then merge")
        }
        let count = manifests[0].count
        if let other = manifests.first(where: { $0.count != count }) {
            throw .shardsMismatch(
                "the shards ran with different shard counts: shard \(manifests[0].index) with N=\(count) "
                    + "(\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: manifests[0].index))), "
                    + "shard \(other.index) with N=\(other.count) "
                    + "(\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: other.index))); "
                    + "run every shard with the same N, and remove the manifests of the other run")
        }
        if let beyond = manifests.first(where: { $0.index >= count }) {
            throw .shardsMismatch(
                "shard \(beyond.index) is not a shard of N=\(count) "
                    + "(\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: beyond.index)))")
        }
        let present = Set(manifests.map(\.index))
        if let missing = (0..<count).first(where: { !present.contains($0) }) {
            throw .shardToRerun(
                "shard \(missing) of \(count) is missing: no \(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: missing)) "
                    + "(it has not finished, or it died); run nowetl run PIPELINE --shard \(missing)/\(count), then merge"
            )
        }
        for manifest in manifests where manifest.pipelineSHA256 != pipelineSHA256 {
            throw .shardsMismatch(
                "shard \(manifest.index) ran another version of the pipeline file "
                    + "(sha256 \(manifest.pipelineSHA256.prefix(12))…, this one is \(pipelineSHA256.prefix(12))…; "
                    + "\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: manifest.index))); "
                    + "run every shard with the pipeline the merge uses")
        }
        for manifest in manifests where manifest.status != .ok {
            throw .shardToRerun(
                "shard \(manifest.index) of \(count) failed: \(manifest.error ?? "unknown error") "
                    + "(\(ShardLayout.manifestPath(outputDirectory: outputDirectory, index: manifest.index))); "
                    + "run nowetl run PIPELINE --shard \(manifest.index)/\(count) again, then merge")
        }
        let tables = manifests[0].tables.map(\.table)
        for manifest in manifests where manifest.tables.map(\.table) != tables {
            throw .shardsMismatch(
                "shard \(manifest.index) extracted the tables \(manifest.tables.map(\.table).joined(separator: ",")), "
                    + "shard 0 \(tables.joined(separator: ",")): run every shard with the same --table options")
        }
        return ShardSet(manifests: manifests, tables: tables)
    }

    /// Every shard's entry for `table`, in shard order.
    func entries(for table: String) -> [(shard: Shard, table: WithCounts<ShardManifest.Table>)] {
        manifests.compactMap { manifest in
            guard let shard = manifest.shard, let entry = manifest.tables.first(where: { $0.table == table }) else {
                return nil
            }
            return (shard, entry)
        }
    }

    /// When the earliest shard started: the merged run's `{run_date}`, XML `unload_date` and manifest
    /// `run_started` (the data is as of then).
    var runStarted: Date {
        manifests.map(\.runStarted).min()?.date ?? Date(timeIntervalSince1970: 0)
    }

    /// The merged run's id: its start's, with a suffix from the shards' run ids, so the merge of the
    /// same shards, run again after a crash, is the same run.
    var runID: String {
        let digest = SHA256.hash(Array(manifests.map(\.runID).joined(separator: "\n").utf8)).hexString
        return RunID(started: runStarted, random: UInt16(digest.prefix(4), radix: 16) ?? 0).text
    }
}

extension NowETLError {
    /// A shard to run again, then merge: missing, failed, or its files do not match its manifest (exit 1).
    static func shardToRerun(
        _ message: String, cause: (any Error)? = nil, remedy: String? = nil, file: String = #fileID, line: Int = #line
    ) -> NowETLError {
        NowETLError(.shardToRerun, message, cause: cause, remedy: remedy, file: file, line: line)
    }

    /// Shards that do not belong together, or a pipeline that cannot be sharded (exit 78).
    static func shardsMismatch(_ message: String, file: String = #fileID, line: Int = #line) -> NowETLError {
        NowETLError(.shardsMismatch, message, file: file, line: line)
    }
}
