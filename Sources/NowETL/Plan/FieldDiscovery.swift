import Foundation
import NowData

/// Reads a table's fields from the instance's dictionary through the Table API: the table's chain of
/// `sys_db_object.super_class` parents, then the `sys_dictionary` rows of every table in the chain
/// (a child's row overrides its parent's for the same element).
public struct FieldDiscovery: Sendable {
    /// The service to read with.
    public let service: NowTableService
    private let decoder: any PageDecoding

    /// Creates a discovery over `service`.
    public init(service: NowTableService, decoder: any PageDecoding = FastPageDecoder()) {
        self.service = service
        self.decoder = decoder
    }

    /// The table and its ancestors, child first (`incident`, `task`).
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails or the table is not in `sys_db_object`.
    public func hierarchy(of table: String) async throws(NowETLError) -> [String] {
        let chain = try await chain(of: table)
        if chain.isEmpty {
            throw NowETLError(.failed, table: table, "table '\(table)' is not in sys_db_object (no such table?)")
        }
        return chain
    }

    /// The table's dictionary: its chain of ancestors and its fields with inherited ones, or `nil` when
    /// `sys_db_object` has no row for it (no such table, or one this user may not see).
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails.
    public func dictionary(of table: String) async throws(NowETLError) -> TableDictionary? {
        let chain = try await chain(of: table)
        guard !chain.isEmpty else { return nil }
        return TableDictionary(table: table, chain: chain, fields: try await fields(inChain: chain, table: table))
    }

    /// The table and its ancestors, child first; empty when `sys_db_object` has no row for the table.
    ///
    /// One request reads ``chainLevelsPerRequest`` levels at once by dot-walking `super_class`
    /// (`super_class.name`, `super_class.super_class`, …): the request sits before a table's first page,
    /// so each round trip saved is one the whole run waits less. A deeper chain, or a parent the
    /// dot-walk does not show, goes on by the parent's sys_id.
    func chain(of table: String) async throws(NowETLError) -> [String] {
        var chain: [String] = []
        var query = "name=" + table
        while chain.count < 32 {
            let records = try await read(
                "sys_db_object", query: query, fields: Self.chainFields, table: table,
                step: "the table and its parents")
            guard let record = records.first else { break }
            var parent: String?
            for (name, superClass) in Self.chainPaths {
                guard let found = record.text(at: name, plainForm: .value), !found.isEmpty else { break }
                if chain.contains(found) { return chain }
                chain.append(found)
                parent = record.text(at: superClass, plainForm: .value)
                guard let next = parent, !next.isEmpty else { return chain }
            }
            guard let parent, !parent.isEmpty, SysIDRule.accepts(parent) else { break }
            query = "sys_id=" + parent
        }
        return chain
    }

    /// Levels of the `super_class` chain one request reads (incident → task, cmdb_ci_linux_server → …).
    static let chainLevelsPerRequest = 4

    /// `name` and `super_class` of the table and of its first ancestors, dot-walked, level by level.
    private static let chainPaths: [(name: RecordPath, superClass: RecordPath)] = (0..<chainLevelsPerRequest).map {
        level in
        let prefix = String(repeating: "super_class.", count: level)
        return (RecordPath(prefix + "name"), RecordPath(prefix + "super_class"))
    }

    private static let chainFields = chainPaths.flatMap { [$0.name.text, $0.superClass.text] }

    /// The tables that extend `table`, directly or through others (`sys_db_object.super_class`), sorted
    /// by name; empty for a table nothing extends. A record of such a class read through `table` is
    /// audited under its own class's name (`sys_audit_delete.tablename`).
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails.
    public func descendants(of table: String) async throws(NowETLError) -> [String] {
        var found: Set<String> = []
        var level = [table]
        for _ in 0..<32 where !level.isEmpty {
            let records = try await read(
                "sys_db_object", query: "super_class.nameIN" + level.joined(separator: ","), fields: ["name"],
                table: table, step: "child tables")
            level = records.compactMap { $0.text(at: Self.name, plainForm: .value) }.filter {
                !$0.isEmpty && $0 != table && !found.contains($0)
            }
            found.formUnion(level)
        }
        return found.sorted()
    }

    /// Every table name `sys_db_object` shows this user (at most 10,000, one request): the candidates of
    /// a "did you mean" when a pipeline names a table that is not there.
    ///
    /// - Throws: ``NowETLError`` naming `table` (the misspelt name) when the request fails.
    public func tableNames(for table: String) async throws(NowETLError) -> [String] {
        try await read("sys_db_object", query: "nameISNOTEMPTY", fields: ["name"], table: table, step: "table names")
            .compactMap { $0.text(at: Self.name, plainForm: .value) }
    }

    /// The fields of `table` with inherited ones, sorted by name.
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails.
    public func fields(of table: String) async throws(NowETLError) -> [DictionaryField] {
        try await fields(inChain: hierarchy(of: table), table: table)
    }

    private func fields(inChain chain: [String], table: String) async throws(NowETLError) -> [DictionaryField] {
        let records = try await read(
            "sys_dictionary", query: "nameIN" + chain.joined(separator: ",") + "^elementISNOTEMPTY",
            fields: ["name", "element", "internal_type", "reference", "choice", "dependent_on_field", "dependent"],
            table: table, step: "fields")
        var byName: [String: DictionaryField] = [:]
        for record in records {
            guard let element = record.text(at: Self.element, plainForm: .value), !element.isEmpty,
                let owner = record.text(at: Self.name, plainForm: .value),
                let depth = chain.firstIndex(of: owner)
            else { continue }
            let type = record.text(at: Self.internalType, plainForm: .value) ?? "string"
            if type == "collection" { continue }
            if let existing = byName[element], let existingDepth = chain.firstIndex(of: existing.definedOn),
                existingDepth <= depth
            {
                continue
            }
            let reference = record.text(at: Self.reference, plainForm: .value)
            let choice = record.text(at: Self.choice, plainForm: .value) ?? ""
            let dependent = [Self.dependentOnField, Self.dependent].lazy.compactMap {
                record.text(at: $0, plainForm: .value)
            }.first { !$0.isEmpty }
            byName[element] = DictionaryField(
                name: element, internalType: type, reference: reference?.isEmpty == false ? reference : nil,
                definedOn: owner, isChoice: !choice.isEmpty && choice != "0", dependentOnField: dependent)
        }
        return byName.values.sorted { $0.name < $1.name }
    }

    private func read(
        _ source: String, query: String, fields: [String], table: String, step: String
    ) async throws(NowETLError) -> [Record] {
        let configuration = FetchConfiguration(
            filter: Filter(query: query), limit: 10_000,
            readConfiguration: FieldReadConfiguration(
                includeFields: fields, options: [.actualValues, .excludeReferenceLink]))
        let body: Data
        do {
            body = try await service.records(from: source, configuration: configuration)
        } catch {
            throw NowETLError(table: table, during: "reading \(source) (\(step))", error)
        }
        do {
            return try decoder.records(in: body)
        } catch {
            throw NowETLError(.failed, table: table, "reading \(source) (\(step))", cause: error)
        }
    }

    private static let name = RecordPath("name")
    private static let superClass = RecordPath("super_class")
    private static let element = RecordPath("element")
    private static let internalType = RecordPath("internal_type")
    private static let reference = RecordPath("reference")
    private static let dependentOnField = RecordPath("dependent_on_field")
    private static let dependent = RecordPath("dependent")
    private static let choice = RecordPath("choice")
}
