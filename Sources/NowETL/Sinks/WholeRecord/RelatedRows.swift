import Foundation
import NowData

/// Reads the rows of a system table that belong to a set of records — `sys_journal_field` entries by
/// `element_id`, `sys_audit` rows by `documentkey` — 100 records to a query, each query paged by
/// keyset on the record and the row's sys_id (`…^K>=R^K>R^ORsys_id>L^ORDERBYK^ORDERBYsys_id`, the
/// boundary rule of ``IncrementalWindow``), so the rows come in one fixed order: the records' order
/// (sys_id), each record's rows by their own sys_id. A kind whose key is a reference (the chunks of one
/// attachment) is paged by `sys_id` alone: an instance orders a reference by its display value.
///
/// Every request waits for a slot of the run's ``RequestLimiter``. What the instance answers is checked
/// where it enters: every row's `sys_id` keeps to ``SysIDRule`` and must move the keyset cursor, and
/// the key field must name one of the records asked for.
struct RelatedRows {
    /// What is read: the table, its key field, its condition and fields.
    let kind: RelatedKind
    /// The exported table, for messages.
    let exportedTable: String
    let service: NowTableService
    let limiter: RequestLimiter
    /// Rows per page.
    var pageSize: Int

    /// The system table read (`sys_journal_field`, `sys_audit`).
    var table: String { kind.table }
    /// The field naming the record (`element_id`, `documentkey`).
    var keyField: String { kind.keyField }

    /// Records to a query: 100 sys_ids of 32 characters keep the URL near 3.5 KB.
    static let recordsPerQuery = 100

    /// Calls `row` for every row of `records` (at most ``recordsPerQuery`` sys_ids), in sys_id order.
    ///
    /// - Throws: ``NowETLError`` naming the exported table; `CancellationError`.
    func forEachRow(of records: [String], _ row: ([String: String]) throws -> Void) async throws {
        try await forEachPage(of: records) { page in
            for values in page { try row(values) }
        }
    }

    /// Calls `body` with every page of rows of `records`, in sys_id order: what a caller that writes
    /// as it reads awaits between pages, so no more than one page is held. `nil` for `records` reads
    /// every row the kind's condition selects, whatever its record (an incremental run's window).
    ///
    /// - Throws: ``NowETLError`` naming the exported table; `CancellationError`.
    func forEachPage(of records: [String]?, _ body: ([[String: String]]) async throws -> Void) async throws {
        if records?.isEmpty == true { return }
        let asked = records.map(Set.init)
        let byRecord = records != nil && kind.ordersByRecord
        var after: (key: String, sysID: String)?
        while true {
            try Task.checkCancellation()
            var terms = records.map { ["\(keyField)IN\($0.joined(separator: ","))"] } ?? []
            if !kind.condition.isEmpty { terms.append(kind.condition) }
            if let after {
                terms.append(
                    byRecord
                        ? "\(keyField)>=\(after.key)^\(keyField)>\(after.key)^ORsys_id>\(after.sysID)"
                        : "sys_id>\(after.sysID)")
            }
            terms += byRecord ? ["ORDERBY\(keyField)", "ORDERBYsys_id"] : ["ORDERBYsys_id"]
            let configuration = FetchConfiguration(
                filter: Filter(query: terms.joined(separator: "^")), limit: pageSize,
                readConfiguration: FieldReadConfiguration(
                    includeFields: kind.fields ?? [], options: [.actualValues, .excludeReferenceLink]))
            let rows = try decode(try await fetch(configuration))
            for values in rows {
                let sysID = values["sys_id"] ?? ""
                let key = values[keyField] ?? ""
                guard SysIDRule.accepts(sysID), asked?.contains(key) ?? true else {
                    throw NowETLError(
                        .failed, table: exportedTable,
                        "\(table) answered a row whose sys_id '\(PrintableText.escaped(String(sysID.prefix(40))))' is no "
                            + "sys_id, or whose \(keyField) names a record that was not asked for")
                }
                let follows = after.map { byRecord ? (key, sysID) > ($0.key, $0.sysID) : sysID > $0.sysID } ?? true
                guard follows else {
                    throw NowETLError(
                        .failed, table: exportedTable,
                        "\(table) answered row \(sysID) out of order: it does not follow the previous one, so the "
                            + "pages would not end")
                }
                after = (key, sysID)
            }
            try await body(rows)
            if rows.count < pageSize { return }
        }
    }

    /// One page, holding a slot of the limiter while it is in flight.
    private func fetch(_ configuration: FetchConfiguration) async throws -> Data {
        try await limiter.withSlot(table: exportedTable, during: "reading \(table)") {
            try await service.records(from: table, configuration: configuration)
        }
    }

    /// The rows of a `{"result": [...]}` body, each value as text (a missing field reads `""`).
    private func decode(_ body: Data) throws -> [[String: String]] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let result = object["result"] as? [[String: Any]]
        else {
            throw NowETLError(.failed, table: exportedTable, "\(table) answered a body that is not a list of records")
        }
        return result.map { record in
            var values: [String: String] = [:]
            for field in kind.fields ?? Array(record.keys) {
                switch record[field] {
                case let text as String: values[field] = text
                case let number as NSNumber: values[field] = number.stringValue
                default: values[field] = ""
                }
            }
            return values
        }
    }
}

/// One kind of rows that travel with a record: the table they are in, the field naming their record,
/// the condition that selects the table's rows and the fields read (`nil`: every field, for a copy).
struct RelatedKind: Sendable, Hashable {
    /// `journal`, `audit`, `attachments`, `chunks` (file names and messages).
    var name: String
    var table: String
    var keyField: String
    var condition: String
    var fields: [String]?
    /// Whether rows come grouped by their record (a key that holds the record's sys_id as text); not
    /// for a reference key, which an instance orders by its display value (``RelatedRows``).
    var ordersByRecord = true

    /// The entries of `table`'s journal fields `elements`, with their authors and times (ref §5).
    static func journal(of table: String, elements: [String]) -> RelatedKind {
        RelatedKind(
            name: "journal", table: "sys_journal_field", keyField: "element_id",
            condition: "name=\(table)^elementIN\(elements.joined(separator: ","))",
            fields: [
                "sys_id", "name", "element", "element_id", "value", "sys_created_on", "sys_created_by",
                "sys_updated_on", "sys_updated_by", "sys_mod_count",
            ])
    }

    /// The field history of `table`'s records.
    static func audit(of table: String) -> RelatedKind {
        RelatedKind(
            name: "audit", table: "sys_audit", keyField: "documentkey", condition: "tablename=\(table)",
            fields: [
                "sys_id", "tablename", "documentkey", "fieldname", "oldvalue", "newvalue", "reason", "user",
                "record_checkpoint", "internal_checkpoint", "sys_created_on", "sys_created_by",
            ])
    }

    /// The attachments of `table`'s records, every field (a copy keeps what the instance stores).
    static func attachments(of table: String) -> RelatedKind {
        RelatedKind(
            name: "attachments", table: "sys_attachment", keyField: "table_sys_id", condition: "table_name=\(table)",
            fields: nil)
    }

    /// The stored chunks of attachments, every field.
    static let chunks = RelatedKind(
        name: "chunks", table: "sys_attachment_doc", keyField: "sys_attachment", condition: "", fields: nil,
        ordersByRecord: false)

    /// The journal and audit kinds `selection` asks for, in the order an instance loads them
    /// (KB0723022: history before the journal).
    static func rows(of table: String, _ selection: WholeRecordConfiguration) -> [RelatedKind] {
        (selection.audit ? [audit(of: table)] : [])
            + (selection.journal.isEmpty ? [] : [journal(of: table, elements: selection.journal)])
    }

    /// The summary's counter of this kind's rows (journal entries or audit rows).
    var counter: TableCounter { table == "sys_audit" ? .auditRows : .journalEntries }

    /// This kind with `extra` AND-ed to its condition (an incremental run's window).
    func and(_ extra: String) -> RelatedKind {
        guard !extra.isEmpty else { return self }
        var kind = self
        kind.condition += (condition.isEmpty ? "" : "^") + extra
        return kind
    }
}
