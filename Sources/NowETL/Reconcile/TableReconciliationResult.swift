import Foundation

/// What reconciling one table found: the counts of both sides, the sys_ids missing on the target and
/// extra on it, and the rows whose compared values differ — totals exact, lists capped
/// (``TableReconciliation/Limits``).
///
/// Its JSON form (snake_case keys) is one entry of the report's `tables`.
public struct TableReconciliationResult: Sendable, Hashable, Codable {
    /// One row present on both sides whose digests differ, with the fields that differ.
    public struct DifferingRow: Sendable, Hashable, Codable {
        /// The row's sys_id (the source's).
        public var sysID: String
        /// The target record's sys_id when a coalesced table's map matched the source record to another
        /// one; `nil` when both have ``sysID``.
        public var targetSysID: String? = nil
        /// The digest of the source row (64 hex digits).
        public var sourceDigest: String
        /// The digest of the target row.
        public var targetDigest: String
        /// The fields whose stored values differ, in field-name order.
        public var fields: [FieldDifference]

        enum CodingKeys: String, CodingKey {
            case sysID = "sys_id"
            case targetSysID = "target_sys_id"
            case sourceDigest = "source_digest"
            case targetDigest = "target_digest"
            case fields
        }
    }

    /// One field of a differing row with both values as shown in the report.
    public struct FieldDifference: Sendable, Hashable, Codable {
        /// The field.
        public var field: String
        /// The source's stored value, truncated (``TableReconciliation/Limits/valueLength``); `nil` for
        /// none, and for a field whose values are never shown (a password field).
        public var source: String?
        /// The target's stored value, truncated likewise.
        public var target: String?
        /// Whether a value was cut to the limit.
        public var truncated: Bool = false
        /// Whether the values are withheld because the field holds credentials.
        public var withheld: Bool = false
    }

    /// What reconciling through the maps of a migration found (``ReconcileMaps``): in a coalesced
    /// table the records the map left out or kept, the target's own records and keys the target holds
    /// twice; in every table the references compared in their mapped form and those the migration
    /// cleared. Present only when the pipeline's output coalesces tables.
    public struct Mapping: Sendable, Hashable, Codable {
        /// A source record the migration did not write (`on_missing: skip`).
        public struct Unmatched: Sendable, Hashable, Codable {
            /// The source record's sys_id.
            public var sysID: String
            /// Its key, as the map shows it.
            public var key: String

            enum CodingKeys: String, CodingKey {
                case sysID = "sys_id"
                case key
            }
        }

        /// A key (folded as the instance compares keys: ``InstanceMatching/key(_:)``) that several
        /// records of the target hold, one of them a record the map names.
        public struct Ambiguous: Sendable, Hashable, Codable {
            /// The key, lower-cased and trimmed as compared.
            public var key: String
            /// The target records holding it, in sys_id order.
            public var sysIDs: [String]

            enum CodingKeys: String, CodingKey {
                case key
                case sysIDs = "sys_ids"
            }
        }

        /// Whether the table is coalesced (compared through its map rather than by sys_id).
        public var coalesced: Bool
        /// Source records of a coalesced table that the map marks `skipped`: reported, not missing,
        /// and not a difference (the migration was told to leave them out).
        public var unmatched = 0
        /// The first of them, in sys_id order.
        public var unmatchedRecords: [Unmatched] = []
        /// Source records matched under `on_match: keep`: the target record exists (else the record is
        /// missing) and keeps its own values, so they are not compared.
        public var kept = 0
        /// Target records of a coalesced table no source record maps to: the target's own, which a
        /// target in use holds; not extra, not a difference.
        public var targetOwn = 0
        /// The first of them, in sys_id order.
        public var targetOwnSysIDs: [String] = []
        /// Keys several target records hold, one of them mapped: a difference (the map's match is no
        /// longer the only one).
        public var ambiguous = 0
        /// The first of them, in key order.
        public var ambiguousKeys: [Ambiguous] = []
        /// References compared in their mapped form (the target's sys_id).
        public var remapped = 0
        /// References the migration cleared (`on_unresolved: clear`) by field: an expected difference.
        public var cleared: [String: Int] = [:]

        /// Nothing found yet; `coalesced` for a table compared through its map.
        public init(coalesced: Bool) {
            self.coalesced = coalesced
        }

        enum CodingKeys: String, CodingKey {
            case coalesced, unmatched
            case unmatchedRecords = "unmatched_records"
            case kept
            case targetOwn = "target_own"
            case targetOwnSysIDs = "target_own_sys_ids"
            case ambiguous
            case ambiguousKeys = "ambiguous_keys"
            case remapped, cleared
        }
    }

    /// The table.
    public var table: String
    /// The compared fields (sys_id included), in name order.
    public var fields: [String]
    /// Records read from the source.
    public var sourceRows: Int
    /// Records read from the target.
    public var targetRows: Int
    /// Records the source counts (Aggregate API, before ACLs) that the reader could not see.
    public var sourceHidden: Int
    /// Records the target counts that the reader could not see.
    public var targetHidden: Int
    /// Rows on both sides with equal digests.
    public var matching: Int
    /// Rows on the source that the target lacks.
    public var missing: Int
    /// The first of them, in sys_id order (at most ``TableReconciliation/Limits/listedSysIDs``).
    public var missingSysIDs: [String]
    /// Rows on the target that the source lacks.
    public var extra: Int
    /// The first of them, in sys_id order.
    public var extraSysIDs: [String]
    /// Rows on both sides whose digests differ.
    public var differing: Int
    /// The first of them, with their differing fields (at most ``TableReconciliation/Limits/sampledRows``).
    public var differingRows: [DifferingRow]
    /// Pages fetched from the source and the target.
    public var pages: Int
    /// HTTP requests to both, retries and counts included.
    public var requests: Int
    /// Wall time, seconds.
    public var seconds: Double
    /// What the maps of the migration made of the table; `nil` without maps.
    public var mapping: Mapping?
    /// The attachments and journal entries compared, for a table with `attachments:` or `journal:`;
    /// `nil` otherwise.
    public var wholeRecord: WholeRecordComparison?

    /// Both sides hold the same rows with the same values, and neither hides rows from the reader
    /// (rows the reader cannot see cannot be proven equal), and no key the map matched on is held by
    /// a second target record.
    public var isEqual: Bool {
        missing == 0 && extra == 0 && differing == 0 && sourceHidden == 0 && targetHidden == 0
            && (mapping?.ambiguous ?? 0) == 0 && (wholeRecord?.isEqual ?? true)
    }

    /// An empty result for `table` over `fields`.
    public init(table: String, fields: [String]) {
        self.table = table
        self.fields = fields
        sourceRows = 0
        targetRows = 0
        sourceHidden = 0
        targetHidden = 0
        matching = 0
        missing = 0
        missingSysIDs = []
        extra = 0
        extraSysIDs = []
        differing = 0
        differingRows = []
        pages = 0
        requests = 0
        seconds = 0
    }

    /// Encodes the result with an `equal` key (``isEqual``) beside the stored ones; decoding ignores it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(table, forKey: .table)
        // A second keyed container of the same encoder writes into the same object.
        var equal = encoder.container(keyedBy: EqualKey.self)
        try equal.encode(isEqual, forKey: .equal)
        try container.encode(fields, forKey: .fields)
        try container.encode(sourceRows, forKey: .sourceRows)
        try container.encode(targetRows, forKey: .targetRows)
        try container.encode(sourceHidden, forKey: .sourceHidden)
        try container.encode(targetHidden, forKey: .targetHidden)
        try container.encode(matching, forKey: .matching)
        try container.encode(missing, forKey: .missing)
        try container.encode(missingSysIDs, forKey: .missingSysIDs)
        try container.encode(extra, forKey: .extra)
        try container.encode(extraSysIDs, forKey: .extraSysIDs)
        try container.encode(differing, forKey: .differing)
        try container.encode(differingRows, forKey: .differingRows)
        try container.encode(pages, forKey: .pages)
        try container.encode(requests, forKey: .requests)
        try container.encode(seconds, forKey: .seconds)
        try container.encodeIfPresent(mapping, forKey: .mapping)
        try container.encodeIfPresent(wholeRecord, forKey: .wholeRecord)
    }

    /// The encoded key that is no stored property (so not one of ``CodingKeys``, which decoding uses).
    enum EqualKey: String, CodingKey {
        case equal
    }

    enum CodingKeys: String, CodingKey {
        case table, fields
        case sourceRows = "source_rows"
        case targetRows = "target_rows"
        case sourceHidden = "source_hidden"
        case targetHidden = "target_hidden"
        case matching, missing
        case missingSysIDs = "missing_sys_ids"
        case extra
        case extraSysIDs = "extra_sys_ids"
        case differing
        case differingRows = "differing_rows"
        case pages, requests, seconds, mapping
        case wholeRecord = "whole_record"
    }
}
