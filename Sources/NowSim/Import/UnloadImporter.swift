import Foundation
import NowQuery
import NowSQLite

/// Imports unload XML documents into a nowsim database as an instance's "Import XML" does
/// (ref §8.5): records go straight into their tables, no business rule runs, nothing is regenerated.
///
/// Per record (an element named after its table, see ``UnloadXMLReader``):
/// - `action="INSERT_OR_UPDATE"`: the record keeps its `sys_id`; when a record with that sys_id is
///   in the table's storage (any class of the hierarchy) it is updated, else inserted. Every field is
///   stored as given — `sys_created_on`, `sys_updated_on`, `sys_created_by`, `sys_updated_by` and
///   `sys_mod_count` included, nothing is bumped — and an empty element stores an empty value.
///   A reference stores the element's text (the sys_id); its `display_value` attribute is ignored.
///   Fields the document leaves out are left as they are on an update; on an insert they stay empty,
///   except that missing system fields get the import's time and user (and `sys_mod_count` 0), as a
///   record created now would.
/// - The class is the element name (a record under `<incident>` goes into `incident`, whatever table
///   the file was exported from); a `sys_class_name` naming the element's table or a table extending
///   it is honoured, any other is an error.
/// - Fields the target table does not have are ignored and counted (an instance ignores them too).
/// - `action="DELETE"`: the record with that sys_id is deleted from the element's table (or a table
///   extending it) and the deletion recorded in `sys_audit_delete`, as a Table API DELETE is; a
///   sys_id that is not there is counted as not found.
/// - An unknown table, a record without `sys_id`, another action or malformed XML is an error with
///   the document's name and line; so is a record whose value of a unique column (`sys_user.user_name`,
///   ``UniqueIndex``) another record holds. An instance's Import XML logs `Unique Key violation
///   detected by database` for such a record and goes on with the others; nowsim keeps its rule that a
///   document is imported completely or not at all, and names the record instead.
///
/// One document is one SQLite transaction: it is imported completely or not at all.
public struct UnloadImporter: Sendable {
    /// The schema of the database imported into.
    public var catalog: Catalog
    /// The user written to missing `sys_created_by`/`sys_updated_by` values and to the
    /// `sys_audit_delete` rows of deletions.
    public var importedBy: String
    /// The time written to missing `sys_created_on`/`sys_updated_on` values and to the
    /// `sys_audit_delete` rows of deletions.
    public var now: Date

    /// Creates an importer for the database whose schema is `catalog`.
    public init(catalog: Catalog, importedBy: String = "admin", now: Date = Date()) {
        self.catalog = catalog
        self.importedBy = importedBy
        self.now = now
    }

    /// Imports the unload XML file at `path` (a gzip'd file is read as it is) in one transaction on
    /// `connection`, streaming it: a file of any size is read in bounded memory.
    ///
    /// - Throws: ``UnloadImportError`` naming `path` and the line when the file cannot be read, is
    ///   not an unload document or holds a record that cannot be imported; nothing is applied then.
    public func importFile(atPath path: String, into connection: SQLiteConnection)
        throws(UnloadImportError) -> UnloadImportReport
    {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw UnloadImportError(document: path, line: nil, message: "no such file, or it cannot be read")
        }
        return try run(try UnloadXMLReader(path: path), connection: connection)
    }

    /// Imports the unload XML document in `bytes`, called `document` in messages, in one
    /// transaction on `connection`.
    ///
    /// - Throws: ``UnloadImportError`` as ``importFile(atPath:into:)`` does.
    public func importDocument(_ bytes: [UInt8], named document: String, into connection: SQLiteConnection)
        throws(UnloadImportError) -> UnloadImportReport
    {
        try run(try UnloadXMLReader(bytes: bytes, document: document), connection: connection)
    }

    private func run(_ reader: UnloadXMLReader, connection: SQLiteConnection) throws(UnloadImportError)
        -> UnloadImportReport
    {
        var report = UnloadImportReport(document: reader.document)
        var line: Int?
        let timestamp = TableAPIDateFormat.string(from: now)
        do {
            try connection.transaction {
                while let record = try reader.next() {
                    line = record.line
                    try apply(record, timestamp: timestamp, document: reader.document, to: &report, db: connection)
                }
            }
        } catch let error as UnloadImportError {
            throw error
        } catch {
            throw UnloadImportError(
                document: reader.document, line: line, message: "the database refused the import: \(error)")
        }
        return report
    }

    private func apply(
        _ record: UnloadRecord, timestamp: String, document: String, to report: inout UnloadImportReport,
        db: SQLiteConnection
    ) throws {
        func failure(_ message: String) -> UnloadImportError {
            UnloadImportError(document: document, line: record.line, message: message)
        }
        guard let named = catalog.table(record.table) else {
            throw failure("unknown table '\(record.table)': the target has no such table")
        }
        guard let given = record.value(of: "sys_id"), let sysId = given, !sysId.isEmpty else {
            throw failure("the record <\(record.table)> has no sys_id")
        }
        switch record.action {
        case .delete:
            try delete(sysId: sysId, from: named, timestamp: timestamp, to: &report, db: db)
        case .insertOrUpdate:
            var target = named
            if let given = record.value(of: "sys_class_name"), let className = given, className != named.name {
                guard named.classNames.contains(className), let child = catalog.table(className) else {
                    throw failure(
                        "the record <\(record.table)> has sys_class_name '\(className)', which is neither "
                            + "\(record.table) nor a table extending it")
                }
                target = child
            }
            do {
                try insertOrUpdate(record, sysId: sysId, into: target, timestamp: timestamp, to: &report, db: db)
            } catch let violation as UniqueIndex.Violation {
                throw failure(
                    "Unique Key violation: the record <\(record.table)> \(sysId) has \(violation.column) "
                        + "'\(violation.value)', which record \(violation.holder) has already")
            }
        }
    }

    private func insertOrUpdate(
        _ record: UnloadRecord, sysId: String, into table: TableDefinition, timestamp: String,
        to report: inout UnloadImportReport, db: SQLiteConnection
    ) throws {
        var counts = report.tables[table.name] ?? .init()
        var values: [String: String?] = [:]
        for (name, value) in record.fields {
            if table.column(name) != nil {
                values[name] = value
            } else {
                counts.ignoredFields += 1
                if !counts.ignoredFieldNames.contains(name) {
                    counts.ignoredFieldNames.append(name)
                    counts.ignoredFieldNames.sort()
                }
            }
        }
        values["sys_id"] = sysId
        values["sys_class_name"] = table.name
        if let violation = try UniqueIndex.violation(in: table, values: values, sysId: sysId, db: db) {
            throw violation
        }
        let storage = SQLIdentifier.quote(table.storageTable)
        let exists = try db.withStatement("SELECT 1 FROM \(storage) WHERE \"sys_id\" = ?") { statement in
            try statement.bind([.text(sysId)])
            return try statement.step()
        }
        func parameter(_ name: String) -> SQLiteValue { values[name].flatMap { $0 }.map(SQLiteValue.text) ?? .null }
        if exists {
            let names = values.keys.filter { $0 != "sys_id" }.sorted()
            let assignments = names.map { "\(SQLIdentifier.quote($0)) = ?" }.joined(separator: ", ")
            try db.withStatement("UPDATE \(storage) SET \(assignments) WHERE \"sys_id\" = ?") { statement in
                try statement.bind(names.map(parameter) + [.text(sysId)])
                try statement.step()
            }
            counts.updated += 1
        } else {
            // What a record created now would get; a value given in the document, even empty, stands.
            let created: [String: String] = [
                "sys_created_on": timestamp, "sys_updated_on": timestamp, "sys_created_by": importedBy,
                "sys_updated_by": importedBy, "sys_mod_count": "0",
            ]
            for (name, value) in created where values[name] == nil && table.column(name) != nil {
                values[name] = value
            }
            let names = values.keys.sorted()
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            try db.withStatement(
                "INSERT INTO \(storage) (\(names.map(SQLIdentifier.quote).joined(separator: ", "))) VALUES (\(placeholders))"
            ) { statement in
                try statement.bind(names.map(parameter))
                try statement.step()
            }
            counts.inserted += 1
        }
        report.tables[table.name] = counts
    }

    private func delete(
        sysId: String, from table: TableDefinition, timestamp: String, to report: inout UnloadImportReport,
        db: SQLiteConnection
    ) throws {
        let audit =
            table.storageTable == DeletionAudit.tableName
            ? nil
            : try DeletionAudit.read(sysId: sysId, storageTable: table.storageTable, catalog: catalog, db: db)
        let classes = table.classNames
        let placeholders = Array(repeating: "?", count: classes.count).joined(separator: ", ")
        let removed = try db.withStatement(
            "DELETE FROM \(SQLIdentifier.quote(table.storageTable)) WHERE \"sys_id\" = ? AND \"sys_class_name\" IN (\(placeholders))"
        ) { statement in
            try statement.bind([.text(sysId)] + classes.map(SQLiteValue.text))
            try statement.step()
            return db.changes > 0
        }
        let className = removed ? audit?.className ?? table.name : table.name
        var counts = report.tables[className] ?? .init()
        if removed {
            try audit?.insert(deletedBy: importedBy, at: timestamp, db: db)
            counts.deleted += 1
        } else {
            counts.notFound += 1
        }
        report.tables[className] = counts
    }
}
