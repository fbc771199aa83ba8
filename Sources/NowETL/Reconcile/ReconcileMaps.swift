import Foundation
import NowData

/// The sys_id maps `nowetl reconcile` applies: the maps of the last committed migration of a pipeline
/// whose `instance:` output coalesces tables (`<output_dir>/mapping/<table>.jsonl`,
/// ``InstanceMapFiles/committed(outputDirectory:table:)``), with the output's matching rules.
///
/// A coalesced table is compared record by record through its map (``TableReconciliation``: each
/// source record with the target record its map names); in every table a reference, a `glide_list`
/// element or a `document_id` pointing into a coalesced table is compared in its mapped form
/// (``ReconcileTranslation``). The maps are held in memory, as the migration itself held them.
public struct ReconcileMaps: Sendable {
    /// One coalesced table's map as the report names it.
    public struct Used: Sendable, Hashable, Codable {
        /// The coalesced table.
        public var table: String
        /// Its key fields (`coalesce:`).
        public var keys: [String]
        /// The map file (absolute).
        public var path: String
        /// Whether the file exists; without it no record of the table was ever mapped (every source
        /// record is looked up under its own sys_id).
        public var exists: Bool
        /// Entries per action (`updated`, `kept`, `inserted`, `skipped`, `deleted`).
        public var actions: [String: Int]
    }

    /// The output's rules (`coalesce:`, `on_match:`, `on_missing:`, `on_unresolved:`).
    public let matching: InstanceMatching
    /// The maps by coalesced table (empty for a table without a committed map).
    public let maps: [String: InstanceTableMap]
    /// The map files read, by table name.
    public let used: [Used]

    /// The maps of the coalesced tables of `matching` that the last committed migration left under
    /// `outputDirectory` (the pipeline's `output_dir`); `nil` when `matching` coalesces nothing (a
    /// reconciliation by sys_id only, as before maps existed).
    ///
    /// - Throws: ``NowETLError`` (`mapping`, `io`) for a map file that exists but cannot be read or
    ///   holds something else.
    public static func committed(matching: InstanceMatching, outputDirectory: String) throws(NowETLError)
        -> ReconcileMaps?
    {
        guard !matching.coalesce.isEmpty else { return nil }
        var maps: [String: InstanceTableMap] = [:]
        var used: [Used] = []
        for (table, keys) in matching.coalesce.sorted(by: { $0.key < $1.key }) {
            let path = InstanceMapFiles.committedPath(outputDirectory: outputDirectory, table: table)
            let map = try InstanceMapFiles.committed(outputDirectory: outputDirectory, table: table)
            maps[table] = map
            var actions: [String: Int] = [:]
            for entry in map.entries.values { actions[entry.action.rawValue, default: 0] += 1 }
            used.append(
                Used(
                    table: table, keys: keys, path: path, exists: FileManager.default.fileExists(atPath: path),
                    actions: actions))
        }
        return ReconcileMaps(matching: matching, maps: maps, used: used)
    }

    /// Maps made in memory (tests).
    public init(matching: InstanceMatching, maps: [String: InstanceTableMap], used: [Used] = []) {
        self.matching = matching
        self.maps = maps
        self.used = used
    }

    /// The key fields of `table` when it is coalesced.
    func keys(of table: String) -> [String]? { matching.coalesce[table] }

    /// The target sys_id the migration gave the record `value` of `table`: `nil` when `table` is not
    /// coalesced, or its map does not know the record or skipped it (the reference stays as it is).
    func mapped(_ value: String, in table: String) -> String? {
        guard let target = maps[table]?.target(of: value) else { return nil }
        return target
    }
}

/// How a source record of one table reads on the target after a migration with maps: its
/// references into coalesced tables mapped, and — for a record the migration matched — the fields
/// the target kept as its own.
///
/// The columns are the dictionary's reference fields (``DictionaryField/target``, the same targets
/// the migration's plan gave its columns): a `reference` is mapped when its table is coalesced and
/// the map knows the record; every element of a `glide_list` likewise (the list rejoined with commas,
/// empty elements dropped, as the migration writes it); a `document_id` when the row's table field
/// names a coalesced table.
struct ReconcileTranslation: Sendable {
    /// A field that points at records.
    struct Column: Sendable {
        var name: String
        var target: FieldTarget
        /// Whether the field holds a list (`glide_list`).
        var isList: Bool {
            if case .records = target { return true }
            return false
        }
    }

    /// The fields a matched (updated) record keeps from the target: the migration writes the source's
    /// values into the target's record but leaves its creation and modification count
    /// (``InstanceSink``'s prepare).
    static let targetsOwnFields = ["sys_created_on", "sys_created_by", "sys_mod_count"]

    let maps: ReconcileMaps
    let columns: [Column]

    /// A translation of the records of a table with the fields of `dictionary`.
    init(maps: ReconcileMaps, dictionary: [DictionaryField]) {
        self.maps = maps
        columns = dictionary.compactMap { field in field.target.map { Column(name: field.name, target: $0) } }
            .sorted { $0.name < $1.name }
    }

    /// One reference of a column: the source's value, and the target's form when a map rewrote it.
    struct Reference {
        var value: String
        var mapped: String?
        /// What the target holds for it.
        var expected: String { mapped ?? value }
    }

    /// The references `column` holds in `record` (none for an empty field).
    func references(_ column: Column, in record: Record) -> [Reference] {
        guard let text = RowDigest.value(of: column.name, in: record), !text.isEmpty else { return [] }
        switch column.target {
        case .record(let table):
            return [Reference(value: text, mapped: maps.mapped(text, in: table))]
        case .records(let table):
            return text.split(separator: ",", omittingEmptySubsequences: true).map {
                Reference(value: String($0), mapped: maps.mapped(String($0), in: table))
            }
        case .document(let tableField):
            let table = RowDigest.value(of: tableField, in: record) ?? ""
            return [Reference(value: text, mapped: maps.mapped(text, in: table))]
        }
    }

    /// The record the target should hold for `source`: references mapped; with `matchedTarget` (the
    /// target record a coalesced table's map matched it to), that record's sys_id and the fields it
    /// keeps (``targetsOwnFields``). Returns how many references the maps rewrote.
    func expected(_ source: Record, matchedTarget: Record? = nil) -> (record: Record, remapped: Int) {
        var changes: [String: Record.Value?] = [:]
        var remapped = 0
        for column in columns {
            let references = references(column, in: source)
            guard !references.isEmpty else { continue }
            let expected = column.isList ? references.map(\.expected).joined(separator: ",") : references[0].expected
            remapped += references.count(where: { $0.mapped != nil })
            if expected != RowDigest.value(of: column.name, in: source) { changes[column.name] = .text(expected) }
        }
        if let matchedTarget {
            changes["sys_id"] = .some(matchedTarget.value(of: "sys_id"))
            for field in Self.targetsOwnFields { changes[field] = .some(matchedTarget.value(of: field)) }
        }
        guard !changes.isEmpty else { return (source, remapped) }
        var fields = source.fields
        for (field, value) in changes { fields[field] = value }
        return (Record(fields: fields), remapped)
    }

    /// Whether the difference in `field` between `source` and `target` is only references the
    /// migration cleared under `on_unresolved: clear`: the target's value is the expected one with
    /// references left out, and no left-out reference is one a map resolves (a mapped reference always
    /// resolves, so clearing it is a real difference). Returns how many references were cleared, `nil`
    /// when the difference is something else.
    ///
    /// Reconcile does not ask the target again whether it has the records the cleared references
    /// pointed at: the migration looked that up when it cleared them, and reported them per field.
    func cleared(_ field: String, source: Record, target: Record) -> Int? {
        guard maps.matching.onUnresolved == .clear, let column = columns.first(where: { $0.name == field })
        else { return nil }
        let references = references(column, in: source)
        let held = (RowDigest.value(of: field, in: target) ?? "").split(
            separator: ",", omittingEmptySubsequences: true
        ).map(String.init)
        if held.count > 1, !column.isList { return nil }
        // The target's elements in order, each one of the expected ones; the others left out.
        var next = held.startIndex
        var left = 0
        for reference in references {
            if next < held.endIndex, held[next] == reference.expected {
                next += 1
            } else if reference.mapped == nil {
                left += 1
            } else {
                return nil
            }
        }
        return next == held.endIndex && left > 0 ? left : nil
    }
}
