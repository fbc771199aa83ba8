import NowData

/// Rewrites the references of the records an instance output writes to the target's sys_ids, and finds
/// the references the target cannot resolve.
///
/// Every column with a ``FieldTarget`` (a `reference`, each element of a `glide_list`, a `document_id`
/// with the table its row names) is looked at. A value is, in this order:
/// 1. mapped, when a coalesced table's map knows the record: the target's sys_id (a record the map
///    `skipped` is unresolved). The referenced table's map is asked first, then the other coalesced
///    tables' — a reference into a parent table (`sysapproval` → `task`) may hold a record of a
///    coalesced child (`change_request`), and a sys_id names one record whatever table it is read from;
/// 2. resolved as it is, when it is the sys_id of a record of the table being written (the target gets
///    it in this load), or when the target has a record of that sys_id in that table (`sys_idIN…`,
///    100 distinct values a request, `concurrency` requests at a time: the values noted in the sink's
///    first pass before any write, ``prefetch()``, others group by group; answers are remembered for
///    the rest of the load);
/// 3. otherwise unresolved: ``InstanceMatching/OnUnresolved`` keeps it, clears it (a list loses just
///    that element), or stops the load before the group that holds it is written.
///
/// A value that is not a sys_id by ``SysIDRule``, or a `document_id` whose table field does not hold a
/// table name, is unresolved without a request: nothing from the source reaches a query unchecked.
/// Unresolved references are counted per field, with the first one as a sample (``unresolved``).
final class InstanceReferenceResolver {
    /// A column to look at.
    struct Column {
        /// The field.
        var name: String
        /// What it points at.
        var target: FieldTarget
    }

    let table: String
    let columns: [Column]
    let policy: InstanceMatching.OnUnresolved
    /// Unresolved references by field.
    private(set) var unresolved: [String: UnresolvedReferences] = [:]

    private let writer: InstanceTableWriter
    private var ownRows = RowIDSet()
    private let mapOf: (String) throws(NowETLError) -> InstanceTableMap?
    private let coalesced: [String]
    private let concurrency: Int
    private var maps: [String: InstanceTableMap?] = [:]
    private var present: [String: Bool] = [:]
    private static let presentLimit = 500_000
    private static let candidateLimit = 200_000
    private var candidates: [String: Set<String>] = [:]
    private var candidateCount = 0
    private static let lookupBatch = 100

    /// A resolver for the records of `table`; `mapOf` gives the map of each of the `coalesced` tables
    /// (`nil` for another table).
    init(
        table: String, columns: [Column], policy: InstanceMatching.OnUnresolved, writer: InstanceTableWriter,
        coalesced: [String], concurrency: Int, mapOf: @escaping (String) throws(NowETLError) -> InstanceTableMap?
    ) {
        self.coalesced = coalesced.sorted()
        self.concurrency = concurrency
        self.table = table
        self.columns = columns
        self.policy = policy
        self.writer = writer
        self.mapOf = mapOf
    }

    /// Starts the writes of the load whose rows have `ownRows` as sys_ids: they resolve as they are,
    /// and the maps are read again (the table's own, decided since, included).
    func beginWrites(ownRows: RowIDSet) {
        self.ownRows = ownRows
        maps.removeAll()
    }

    /// The map of `table`, read once.
    func map(of table: String) throws(NowETLError) -> InstanceTableMap? {
        if let known = maps[table] { return known }
        let map = try mapOf(table)
        maps[table] = map
        return map
    }

    /// What the maps say of `value` read from `table`: the referenced table's map first, then the other
    /// coalesced tables'; `nil` when none knows it, `.some(nil)` for a record a map skipped.
    private func mapped(_ value: String, in table: String) throws(NowETLError) -> String?? {
        if let known = try map(of: table)?.target(of: value) { return known }
        for other in coalesced where other != table {
            if let known = try map(of: other)?.target(of: value) { return known }
        }
        return nil
    }

    /// The value a key field of a coalesced table compares with: a reference into a coalesced table
    /// mapped to the target's sys_id (so `cmn_location: [name, company]` matches on the target's
    /// company), anything else as it is.
    func keyValue(_ value: String, of field: String) throws(NowETLError) -> String {
        guard case .record(let referenced)? = columns.first(where: { $0.name == field })?.target,
            let target = try mapped(value, in: referenced), let target
        else { return value }
        return target
    }

    /// The fields ``collect(_:)`` needs of a row: the referencing columns and the table fields of
    /// `document_id` columns.
    var neededFields: Set<String> {
        Set(
            columns.flatMap { column -> [String] in
                if case .document(let tableField) = column.target { return [column.name, tableField] }
                return [column.name]
            })
    }

    /// Notes the references of one row (``neededFields``) to ask the target about before the writes
    /// (``prefetch()``): the load's references are then checked in a few concurrent requests instead
    /// of a round of them before every group. At most 200,000 values are noted; the rest are asked
    /// about group by group.
    func collect(_ fields: [FieldName: FieldValue]) throws(NowETLError) {
        guard candidateCount < Self.candidateLimit else { return }
        for column in columns {
            for (referenced, value) in try references(column, in: fields)
            where !referenced.isEmpty && SysIDRule.problem(value) == nil {
                if candidates[referenced, default: []].insert(value).inserted { candidateCount += 1 }
            }
        }
    }

    /// Asks the target about the noted references that neither a map nor the load's own rows resolve
    /// (after ``beginWrites(ownRows:)``).
    func prefetch() async throws {
        var wanted: [String: Set<String>] = [:]
        for (table, values) in candidates {
            for value in values where try needsLookup(value, in: table) { wanted[table, default: []].insert(value) }
        }
        (candidates, candidateCount) = ([:], 0)
        try await lookUp(wanted)
    }

    /// Rewrites the referencing fields of `records` (their `sys_id` is the target's already).
    ///
    /// - Throws: ``NowETLError`` (`mapping`) for an unresolved reference under `on_unresolved: fail`,
    ///   before any of `records` is written; a failed lookup's error.
    func rewrite(_ records: inout [InstanceTableWriter.Record], sources: [String]) async throws {
        guard !columns.isEmpty else { return }
        var wanted: [String: Set<String>] = [:]
        for record in records {
            for column in columns {
                for (referenced, value) in try references(column, in: record.fields)
                where try needsLookup(value, in: referenced) {
                    wanted[referenced, default: []].insert(value)
                }
            }
        }
        try await lookUp(wanted)
        for index in records.indices {
            for column in columns {
                guard let text = records[index].fields[column.name]?.text, !text.isEmpty else { continue }
                let rewritten = try rewrite(text, column: column, fields: records[index].fields, source: sources[index])
                if rewritten != text { records[index].fields[column.name] = FieldValue(rewritten) }
            }
        }
    }

    // MARK: - Classifying

    /// The (table, value) pairs `column` holds in `fields`; a `document_id` whose table field is not a
    /// table name gives its value with an empty table.
    private func references(_ column: Column, in fields: [FieldName: FieldValue]) throws(NowETLError)
        -> [(table: String, value: String)]
    {
        guard let text = fields[column.name]?.text, !text.isEmpty else { return [] }
        switch column.target {
        case .record(let referenced): return [(referenced, text)]
        case .records(let referenced):
            return text.split(separator: ",", omittingEmptySubsequences: true).map { (referenced, String($0)) }
        case .document(let tableField):
            let referenced = fields[tableField]?.text ?? ""
            return [(NameRule.offsetOfInvalidLowercaseName(referenced) == nil ? referenced : "", text)]
        }
    }

    /// Whether `value` in `table` is known neither by a map, nor as a row of this load, nor from an
    /// earlier lookup — and may be looked up at all.
    private func needsLookup(_ value: String, in table: String) throws(NowETLError) -> Bool {
        guard !table.isEmpty, SysIDRule.problem(value) == nil else { return false }
        // A map that knows the record decides (mapped, or skipped: unresolved).
        if try mapped(value, in: table) != nil { return false }
        if ownRows.contains(value) { return false }
        return present[table + "\u{0}" + value] == nil
    }

    /// Asks the target which of `wanted` (values by table) it has: 100 a request, `concurrency`
    /// requests at a time (the writes wait for these answers, so they should not queue one by one).
    private func lookUp(_ wanted: [String: Set<String>]) async throws {
        guard !wanted.isEmpty else { return }
        if present.count > Self.presentLimit { present.removeAll(keepingCapacity: true) }
        var chunks: [(table: String, values: [String])] = []
        for (table, values) in wanted.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted()
            for start in stride(from: 0, to: sorted.count, by: Self.lookupBatch) {
                chunks.append((table, Array(sorted[start..<min(start + Self.lookupBatch, sorted.count)])))
            }
        }
        let writer = writer
        let found = try await InstanceSink.concurrentMap(chunks, concurrency: concurrency) {
            try await writer.existing($0.values, in: $0.table)
        }
        for (chunk, found) in zip(chunks, found) {
            for value in chunk.values { present[chunk.table + "\u{0}" + value] = found.contains(value) }
        }
    }

    /// The target's form of one reference, or `nil` when it is unresolved.
    private func resolved(_ value: String, in table: String) throws(NowETLError) -> String? {
        guard !table.isEmpty, SysIDRule.problem(value) == nil else { return nil }
        if let target = try mapped(value, in: table) { return target }
        if ownRows.contains(value) { return value }
        return present[table + "\u{0}" + value] == true ? value : nil
    }

    // MARK: - Rewriting

    private func rewrite(_ text: String, column: Column, fields: [FieldName: FieldValue], source: String)
        throws(NowETLError) -> String
    {
        let references = try references(column, in: fields)
        var kept: [String] = []
        for (referenced, value) in references {
            if let target = try resolved(value, in: referenced) {
                kept.append(target)
                continue
            }
            try note(field: column.name, table: referenced, value: value, source: source)
            if policy == .keep { kept.append(value) }
        }
        switch column.target {
        case .records: return kept.joined(separator: ",")
        case .record, .document: return kept.first ?? ""
        }
    }

    private func note(field: String, table referenced: String, value: String, source: String) throws(NowETLError) {
        let sample =
            "\(source) → \(referenced.isEmpty ? "(no table)" : referenced):\(InstanceMatching.shown(value))"
        if policy == .fail {
            throw NowETLError(
                .mapping, path: writer.target,
                "table \(table): field \(field) of record \(sample) points at a record the target \(writer.target) "
                    + "does not have and the run neither migrates nor maps (on_unresolved: fail); migrate or coalesce "
                    + "\(referenced.isEmpty ? "its table" : referenced), or choose on_unresolved: keep or clear")
        }
        unresolved[field, default: UnresolvedReferences(count: 0, sample: sample)].count += 1
    }
}

/// The sys_ids of the rows one load writes, compact: a platform sys_id (32 lowercase hex digits) takes
/// 16 bytes in a sorted array; any other id is kept as text.
struct RowIDSet: Sendable {
    private struct Packed: Comparable, Sendable {
        var high: UInt64
        var low: UInt64
        static func < (a: Packed, b: Packed) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }

    private var packed: [Packed] = []
    private var other: Set<String> = []
    private var sorted = true

    /// Adds `id`.
    mutating func insert(_ id: String) {
        guard let value = Self.pack(id) else {
            other.insert(id)
            return
        }
        if let last = packed.last, value < last { sorted = false }
        packed.append(value)
    }

    /// Sorts what was added out of order; call before ``contains(_:)``.
    mutating func finish() {
        if !sorted { packed.sort() }
        sorted = true
    }

    /// Whether `id` was added.
    func contains(_ id: String) -> Bool {
        guard let value = Self.pack(id) else { return other.contains(id) }
        var (low, high) = (0, packed.count)
        while low < high {
            let middle = (low + high) / 2
            if packed[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < packed.count && packed[low] == value
    }

    private static func pack(_ id: String) -> Packed? {
        let bytes = id.utf8
        guard bytes.count == 32 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var offset = 0
        for byte in bytes {
            defer { offset += 1 }
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
            if offset < 16 { high = high << 4 | digit } else { low = low << 4 | digit }
        }
        return Packed(high: high, low: low)
    }
}
