import NowQuery
import NowSQLite

/// The `sys_audit_delete` row that records one deleted record, as an instance with auditing on
/// writes it (the "Deleted Records" list).
///
/// `RecordWriter.delete(sysId:)` reads it from the record just before the `DELETE` and inserts it
/// in the same SQLite transaction, so a deletion and its audit row commit (or roll back) together.
/// A delete that finds nothing records nothing.
///
/// - `tablename` is the record's own class (`sys_class_name`): deleting an incident through
///   `DELETE /api/now/table/task/<sys_id>` records `incident`, as the platform does.
/// - `documentkey` is the record's sys_id, `display_value` its display value (the class's display
///   column: an incident's `number`, a user's `name`; the sys_id when the class has none).
/// - `payload` is the record as XML: `<?xml version="1.0" encoding="UTF-8"?>` and one element named
///   after the class holding every column of the class (own and inherited) in alphabetical order,
///   raw values as stored, an empty value as a self-closing element (`<closed_at/>`) — the record
///   element of the platform's XML unload (ref §8.5) without the `unload` wrapper and `action`.
/// - `sys_created_on` is the deletion time (nowsim's clock, the one `sys_updated_on` comes from, in
///   the Table API's UTC format) and `sys_created_by` the deleting user; `sys_updated_*` equal them
///   and `sys_mod_count` is `0`.
///
/// Deleting a `sys_audit_delete` row itself records nothing (the table is `no_audit_delete`). Unlike
/// an instance, nowsim also records deletions from the other `sys_` tables (an instance audits those
/// only when they are listed in `glide.ui.audit_deleted_tables`).
struct DeletionAudit {
    /// The audit table's name.
    static let tableName = "sys_audit_delete"

    /// The deleted record's class (`tablename`).
    var className: String
    /// The deleted record's sys_id (`documentkey`).
    var documentKey: String
    /// The deleted record's display value (`display_value`).
    var displayValue: String
    /// The deleted record as XML (`payload`).
    var payload: String

    /// Reads record `sysId` from `storageTable` as its audit row describes it, or `nil` when the row
    /// is not there.
    static func read(
        sysId: String, storageTable: String, catalog: Catalog, db: SQLiteConnection
    ) throws -> DeletionAudit? {
        let quotedTable = SQLIdentifier.quote(storageTable)
        let storedClass = try db.withStatement(
            "SELECT \"sys_class_name\" FROM \(quotedTable) WHERE \"sys_id\" = ?"
        ) { statement -> String?? in
            try statement.bind([.text(sysId)])
            return try statement.step() ? .some(statement.text(0)) : nil
        }
        guard let storedClass else { return nil }
        // A row without a (known) class is described by its storage table's definition.
        let className = storedClass.flatMap { catalog.table($0) == nil ? nil : $0 } ?? storageTable
        guard let definition = catalog.table(className) else { return nil }
        let elements = definition.columns.map(\.element).filter { $0 != "sys_id" }
        let selectList = (["sys_id"] + elements).map(SQLIdentifier.quote).joined(separator: ", ")
        return try db.withStatement(
            "SELECT \(selectList) FROM \(quotedTable) WHERE \"sys_id\" = ?", cached: false
        ) { statement -> DeletionAudit? in
            try statement.bind([.text(sysId)])
            guard try statement.step() else { return nil }
            var values: [String: String] = ["sys_id": sysId]
            for (offset, element) in elements.enumerated() {
                if let text = statement.text(Int32(offset + 1)), !text.isEmpty { values[element] = text }
            }
            return DeletionAudit(
                className: className, documentKey: sysId,
                displayValue: values[definition.displayField] ?? sysId,
                payload: payloadXML(className: className, columns: definition.columns.map(\.element), values: values))
        }
    }

    /// The record element: every column in `columns` order, empty values self-closing.
    static func payloadXML(className: String, columns: [String], values: [String: String]) -> String {
        var out = XMLWriter(capacity: 4096)
        out.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        out.bytes.append(UInt8(ascii: "<"))
        out.bytes.append(contentsOf: className.utf8)
        out.bytes.append(UInt8(ascii: ">"))
        for element in columns {
            if let value = values[element] {
                out.startField(element, first: false)
                out.text(value)
                out.endField(element)
            } else {
                out.bytes.append(UInt8(ascii: "<"))
                out.bytes.append(contentsOf: element.utf8)
                out.bytes.append(contentsOf: "/>".utf8)
            }
        }
        out.endField(className)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Inserts the audit row: deleted by `userName` at `now` (`yyyy-MM-dd HH:mm:ss` UTC).
    func insert(deletedBy userName: String, at now: String, db: SQLiteConnection) throws {
        let values: [(String, String)] = [
            ("sys_id", RecordWriter.newSysId()), ("tablename", className), ("documentkey", documentKey),
            ("display_value", displayValue), ("payload", payload),
        ]
        try PlatformRows.insert(
            into: Self.tableName, values + PlatformRows.systemFields(table: Self.tableName, user: userName, now: now),
            db: db)
    }
}
