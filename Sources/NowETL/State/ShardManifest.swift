import Foundation
import NowQuery

/// What one shard of a run (`nowetl run --shard I/N`) extracted: per table, the spill parts with their
/// lengths and SHA-256, the plan's fingerprint and the figures of the summary —
/// `<output_dir>/.nowetl/shards/shard-<I>.json`, written atomically when the shard ends.
///
/// The merge (`nowetl merge`) reads every shard's manifest and refuses to publish anything unless
/// they are one set: the same pipeline file (``pipelineSHA256``), the same shard count, every index
/// present, every shard ``Status/ok``, the same tables, the same plan per table (fields, filter,
/// types: the journal's fingerprint), and every spill part still hashing to its digest.
///
/// A shard removes its manifest when it starts, so a shard that dies leaves none (the merge says it is
/// missing) rather than the previous night's.
struct ShardManifest: Sendable, Hashable, Codable {
    /// The format's version (1).
    var version = 1
    /// SHA-256 of the pipeline file's bytes as the shard read them (before `${VAR}` interpolation).
    var pipelineSHA256: String
    /// The shard's index, `0..<count`.
    var index: Int
    /// The shard count.
    var count: Int
    /// The shard's own run id and start (`2026-12-01T08:39:23Z`; manifests of older versions hold
    /// seconds since 1970 there, which still decode).
    var runID: String
    var runStarted: RunTimestamp
    /// The shard's `--run-key` (the sharded run it belongs to), `nil` without one.
    var runKey: String?
    /// How the shard ended.
    var status: Status
    /// Why it failed (redacted), for ``Status/failed``.
    var error: String?
    /// The tables extracted, in run order (a failed shard lists those done before the failure), each with
    /// the shard's counts (``TableCounter``) beside it.
    var tables: [WithCounts<Table>]

    /// How a shard ended.
    enum Status: String, Sendable, Hashable, Codable {
        /// Every table extracted.
        case ok
        /// A table failed; the shard must be run again before a merge.
        case failed
    }

    /// One table's extraction by the shard (its counts stand beside it: ``ShardManifest/tables``).
    struct Table: Sendable, Hashable, Codable {
        var table: String
        /// The fingerprint of the plan (``TableExport/fingerprint``).
        var plan: String
        /// The journal's id (``TableJournal/id``): the merge's load id derives from the shards'.
        var journalID: String
        /// The shard's key range.
        var lower: String?
        var upper: String?
        /// The spill parts, in sys_id order.
        var parts: [Part]
        /// The instance's count of the shard's key range (Aggregate API), when it was read.
        var sourceCount: Int?
        var lowestConcurrency: Int?
        var seconds: Double

        enum CodingKeys: String, CodingKey {
            case table, plan, lower, upper, parts, seconds
            case journalID = "journal_id"
            case sourceCount = "source_count"
            case lowestConcurrency = "lowest_concurrency"
        }
    }

    /// One spill part of a table.
    struct Part: Sendable, Hashable, Codable {
        /// The spill file's name in the table's shard journal directory (``ShardLayout/journalDirectory(outputDirectory:table:shard:)``).
        var file: String
        var lower: String?
        var upper: String?
        var bytes: Int
        var sha256: String
        var rows: Int
        var rejects: Int
        var hidden: Int
    }

    enum CodingKeys: String, CodingKey {
        case version, index, count, status, error, tables
        case pipelineSHA256 = "pipeline_sha256"
        case runID = "run_id"
        case runStarted = "run_started"
        case runKey = "run_key"
    }

    /// The shard.
    var shard: Shard? { Shard(index: index, count: count) }

    /// Writes the manifest atomically (temporary file, `fsync`, rename) to `path`.
    func write(to path: String) throws {
        let data = try JSONDocument.data(self)
        try OwnFiles.makeDirectories((path as NSString).deletingLastPathComponent)
        try AtomicFile.holding(data, targetPath: path, displayPath: path, mode: OwnFiles.privateFileMode)
            .commitOrAbort()
    }

    /// The manifest at `path`.
    ///
    /// - Throws: when it cannot be read or decoded.
    static func read(from path: String) throws -> ShardManifest {
        try JSONDecoder().decode(ShardManifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// Where shards keep their state under the shared `output_dir`:
///
/// ```
/// <output_dir>/.nowetl/shards/shard-<I>.json                         the shard's manifest
/// <output_dir>/.nowetl/shards/locks/shard-<I>/.nowetl.lock            held while the shard runs
/// <output_dir>/.nowetl/shards/tables/<table>/<I>-of-<N>/journal.jsonl the table's run journal in the shard
/// <output_dir>/.nowetl/shards/tables/<table>/<I>-of-<N>/part-<k>.spill its spill parts
/// ```
///
/// The merge's commit removes the whole `.nowetl/shards` directory (as a single run's commit removes
/// its tables' journals), so a committed merge leaves no shard state behind.
enum ShardLayout {
    /// `.nowetl/shards`, relative to `output_dir`.
    static let relativeRoot = ".nowetl/shards"

    /// `<output_dir>/.nowetl/shards`, absolute.
    static func root(outputDirectory: String) -> String {
        RunCommit.stateDirectory(outputDirectory: outputDirectory) + "/shards"
    }

    /// The manifest of shard `index`.
    static func manifestPath(outputDirectory: String, index: Int) -> String {
        root(outputDirectory: outputDirectory) + "/shard-\(index).json"
    }

    /// The directory whose lock a shard holds while it runs (and the merge while it reads the shard).
    static func lockDirectory(outputDirectory: String, index: Int) -> String {
        root(outputDirectory: outputDirectory) + "/locks/shard-\(index)"
    }

    /// The run journal of `table` in `shard`.
    static func journalDirectory(outputDirectory: String, table: String, shard: Shard) -> String {
        let safe = String(table.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return root(outputDirectory: outputDirectory) + "/tables/" + safe + "/\(shard.index)-of-\(shard.count)"
    }

    /// The indexes of the shard manifests present, sorted.
    static func manifestIndexes(outputDirectory: String) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root(outputDirectory: outputDirectory))) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasPrefix("shard-"), name.hasSuffix(".json") else { return nil }
            return Int(name.dropFirst(6).dropLast(5))
        }.sorted()
    }
}

extension WithCounts<ShardManifest.Table> {
    /// The entry of a shard's extraction of a table: the figures of `summary`, the plan's fingerprint,
    /// the journal, the shard's key range and the spill parts.
    init(
        _ summary: TableSummary, plan: String, journalID: String, range: SysIDRange, parts: [ShardManifest.Part]
    ) {
        self.init(
            ShardManifest.Table(
                table: summary.table, plan: plan, journalID: journalID, lower: range.lowerBound,
                upper: range.upperBound, parts: parts, sourceCount: summary.sourceCount,
                lowestConcurrency: summary.lowestConcurrency, seconds: summary.seconds),
            counts: summary.counts)
    }

    /// The entry's figures as the summary of the shard's extraction (rows, rejects and hidden rows
    /// from its parts).
    var summary: TableSummary {
        TableSummary(
            table: value.table, rows: value.parts.reduce(0) { $0 + $1.rows }, counts: counts,
            rejects: value.parts.reduce(0) { $0 + $1.rejects }, sourceCount: value.sourceCount,
            seconds: value.seconds, lowestConcurrency: value.lowestConcurrency,
            hiddenRows: value.parts.reduce(0) { $0 + $1.hidden })
    }
}
