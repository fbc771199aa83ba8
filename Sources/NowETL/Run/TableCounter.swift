import Synchronization

/// The counts of a table's export that add up — across a resumed window and its catch-up, across the
/// shards a merge joins — listed once. Everything that carries or shows them goes through this list:
/// the extraction's ``ExtractionCounters``, ``TableSummary/counts``, a shard's manifest entry
/// (``ShardManifest/tables``), the merge's sums (``TableSummary/Builder``), `--summary-json`
/// (``RunReport/tables``, both through ``WithCounts``) and the `table finished` log line. A new counter
/// is a case here and the line that counts it.
///
/// The raw values are the keys of the JSON files and the log line.
public enum TableCounter: String, CaseIterable, Sendable, Hashable, CodingKey {
    /// Pages fetched.
    case pages
    /// HTTP requests sent, retries included.
    case requests
    /// Requests retried after 429/5xx/connection errors.
    case retries
    /// Pages of the table a previous, interrupted run had fetched and this one reused (journal).
    case resumedPages = "resumed_pages"
    /// Rows of those pages.
    case resumedRows = "resumed_rows"
    /// sys_id ranges split to keep every partition busy (work stealing).
    case rangeSplits = "range_splits"
    /// Pages retried at a smaller page size because the instance cancelled the transaction or cut the body.
    case pageSizeReductions = "page_size_reductions"
    /// Records exported with their invalid UTF-8 replaced by U+FFFD (`reject.invalid_utf8: replace`), in
    /// pages this run fetched (pages resumed from the journal are not counted again).
    case utf8Repaired = "utf8_repaired"
    /// Bytes of the page bodies this run received (decompressed), for watching how much a table moves.
    case responseBytes = "response_bytes"
    /// Attachments of the exported records written to files or copied into instance outputs
    /// (``WholeRecordSink``).
    case attachments
    /// Their bytes.
    case attachmentBytes = "attachment_bytes"
    /// Journal entries (`sys_journal_field`) of the exported records written or copied.
    case journalEntries = "journal_entries"
    /// Audit rows (`sys_audit`) of the exported records written or copied.
    case auditRows = "audit_rows"
    /// Rows database outputs removed (or marked deleted) because the source no longer has them under the
    /// filter (`prune:`), added up over the table's database outputs.
    case pruned
    /// Rows whose columns added to a database copy were filled from a scan of the source (backfill).
    case backfilled

    /// Whether the `table finished` log line names the counter when it is 0 (the rare ones only when
    /// something happened).
    var isLoggedWhenZero: Bool {
        switch self {
        case .pages, .requests, .retries, .responseBytes: true
        case .resumedPages, .resumedRows, .rangeSplits, .pageSizeReductions, .utf8Repaired, .attachments,
            .attachmentBytes, .journalEntries, .auditRows, .pruned, .backfilled:
            false
        }
    }
}

/// A count per ``TableCounter``, 0 for any not counted. Its JSON form is flat: each counter under its
/// key in the enclosing object (``encode(to:)``, ``init(from:)``), so files written before the list
/// existed read the same.
public struct TableCounts: Sendable, Hashable, Codable {
    private var values: [TableCounter: Int] = [:]

    /// No counts.
    public init() {}

    /// The count of `counter`.
    public subscript(counter: TableCounter) -> Int {
        get { values[counter] ?? 0 }
        // 0 is kept as no entry, so that equal counts are equal values however they were made.
        set { values[counter] = newValue == 0 ? nil : newValue }
    }

    /// Adds every count of `other`.
    public mutating func add(_ other: TableCounts) {
        for counter in TableCounter.allCases { self[counter] += other[counter] }
    }

    /// Reads the counters from the enclosing object (absent ones are 0).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TableCounter.self)
        for counter in TableCounter.allCases {
            self[counter] = try container.decodeIfPresent(Int.self, forKey: counter) ?? 0
        }
    }

    /// Writes every counter into the enclosing object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TableCounter.self)
        for counter in TableCounter.allCases { try container.encode(self[counter], forKey: counter) }
    }

    /// The log line's fields: every counter that is logged when 0 or is not 0, in the list's order.
    var logFields: [(String, any LogFieldValue)] {
        TableCounter.allCases.compactMap { counter in
            counter.isLoggedWhenZero || self[counter] != 0 ? (counter.rawValue, self[counter]) : nil
        }
    }
}

/// A value with a table's counts beside it — a run report's or a shard manifest's table entry — whose
/// JSON form is one object: the value's own keys (its synthesized `Codable`) and each counter beside
/// them (``TableCounts/encode(to:)``). The value's members read and write through the wrapper
/// (`entry.rows`, `entry.counts[.pages]`).
@dynamicMemberLookup
public struct WithCounts<Value> {
    /// The entry without its counts.
    public var value: Value
    /// Its counts.
    public var counts: TableCounts

    /// `value` with `counts`.
    public init(_ value: Value, counts: TableCounts) {
        self.value = value
        self.counts = counts
    }

    /// A member of ``value``.
    public subscript<Member>(dynamicMember member: WritableKeyPath<Value, Member>) -> Member {
        get { value[keyPath: member] }
        set { value[keyPath: member] = newValue }
    }
}

extension WithCounts: Sendable where Value: Sendable {}
extension WithCounts: Equatable where Value: Equatable {}
extension WithCounts: Hashable where Value: Hashable {}

extension WithCounts: Codable where Value: Codable {
    /// Reads the value and the counts from the same object (absent counters are 0).
    public init(from decoder: any Decoder) throws {
        self.init(try Value(from: decoder), counts: try TableCounts(from: decoder))
    }

    /// Writes the value's keys and every counter into one object: two keyed containers of one encoder
    /// write into the same object.
    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        try counts.encode(to: encoder)
    }
}

/// What one extraction counted, shared by its partition tasks.
final class ExtractionCounters: Sendable {
    /// Rows so far, those of resumed pages included (the progress display's total).
    let rows = Atomic<Int>(0)
    private let counts = Mutex(TableCounts())

    /// Adds `amount` to `counter`; returns the new count.
    @discardableResult
    func add(_ counter: TableCounter, _ amount: Int) -> Int {
        counts.withLock { counts in
            counts[counter] += amount
            return counts[counter]
        }
    }

    /// Sets `counter` to `value` (a count another part keeps, read at the end).
    func store(_ counter: TableCounter, _ value: Int) {
        counts.withLock { $0[counter] = value }
    }

    /// The counts so far.
    var snapshot: TableCounts { counts.withLock { $0 } }
}
