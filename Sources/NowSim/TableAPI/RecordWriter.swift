import Foundation
import NowQuery
import NowSQLite

/// Inserts, updates and deletes records for the Table API, maintaining the `sys_` fields (ref §2.4, §5).
struct RecordWriter {
    let api: TableAPI
    let table: TableDefinition
    let caller: Caller

    /// Fields the platform maintains unless `sysparm_suppress_auto_sys_field=true`.
    static let createdFields: Set<String> = ["sys_created_on", "sys_created_by"]
    static let updatedFields: Set<String> = ["sys_updated_on", "sys_updated_by", "sys_mod_count"]

    // MARK: - POST

    /// What every write reads from its request.
    private struct WriteRequest {
        var body: RequestBody
        /// `sysparm_suppress_auto_sys_field`.
        var suppress: Bool
        /// `sysparm_input_display_value`.
        var inputDisplay: Bool
        /// The time written to `sys_updated_on` (and `sys_created_on`).
        var now: String
    }

    /// Checks the caller's rights and reads the body; a response when the write cannot go ahead.
    private func read(_ request: HTTPRequest) -> Result<WriteRequest, ResponseFailure> {
        guard caller.mayWrite(table, catalog: api.catalog) else {
            return .failure(.init(ErrorEnvelope.aclUpdateFailed))
        }
        guard let body = try? RequestBody(bytes: request.body, contentType: request.header("content-type")) else {
            return .failure(.init(ErrorEnvelope.invalidJSONBody))
        }
        return .success(
            WriteRequest(
                body: body, suppress: isTrue(request.query("sysparm_suppress_auto_sys_field")),
                inputDisplay: isTrue(request.query("sysparm_input_display_value")),
                now: TableAPIDateFormat.string(from: api.settings.now())))
    }

    func insert(_ request: HTTPRequest) throws -> HTTPResponse {
        let write: WriteRequest
        switch read(request) {
        case .success(let parsed): write = parsed
        case .failure(let failure): return failure.response
        }
        let (body, suppress, inputDisplay, now) = (write.body, write.suppress, write.inputDisplay, write.now)

        let sysId: String
        do {
            sysId = try api.pool.withConnection { db in
                try db.transaction {
                    var values = try columnValues(body, inputDisplay: inputDisplay, db: db)
                    let journal = RecordHistory.takeJournalEntries(from: &values, table: table)
                    let sysId = (values["sys_id"] ?? nil).flatMap { Self.isSysId($0) ? $0 : nil } ?? Self.newSysId()
                    values["sys_id"] = sysId
                    values["sys_class_name"] = table.name
                    // Caller-supplied system fields stick only with sysparm_suppress_auto_sys_field=true,
                    // except sys_created_*, which the platform lets any writer set (ref §2.4).
                    let automatic: [String: String] = [
                        "sys_created_on": now, "sys_created_by": caller.userName, "sys_updated_on": now,
                        "sys_updated_by": caller.userName, "sys_mod_count": "0",
                    ]
                    for (name, value) in automatic {
                        let provided = (values[name] ?? nil) != nil
                        let keep = provided && (suppress || Self.createdFields.contains(name))
                        if !keep { values[name] = value }
                    }
                    try applyInsertDefaults(&values, now: now, db: db)
                    values = values.filter { table.column($0.key) != nil }
                    if try exists(sysId: sysId, db: db, anyClass: true) { throw WriteConflict(sysId: sysId) }
                    try checkUniqueIndexes(values, sysId: sysId, operation: "insert", db: db)
                    let names = values.keys.sorted()
                    let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
                    try db.withStatement(
                        "INSERT INTO \(SQLIdentifier.quote(table.storageTable)) (\(names.map(SQLIdentifier.quote).joined(separator: ", "))) VALUES (\(placeholders))",
                        cached: false
                    ) { statement in
                        try statement.bind(
                            names.map { name in values[name].flatMap { $0 }.map(SQLiteValue.text) ?? .null })
                        try statement.step()
                    }
                    let history = RecordHistory.Write(
                        className: table.name, sysId: sysId, user: caller.userName, now: now,
                        modCount: (values["sys_mod_count"] ?? nil) ?? "0")
                    try history.changes(old: [:], new: values, table: table, db: db)
                    try history.journal(journal, db: db)
                    try NotificationOutbox.queue(
                        table: table, sysId: sysId, action: .insert, user: caller.userName, now: now,
                        catalog: api.catalog, db: db)
                    return sysId
                }
            }
        } catch let conflict as WriteConflict {
            return ErrorEnvelope.operationFailed(
                detail: "Error during insert of \(table.name) (\(conflict.sysId)): a record with this sys_id exists")
        } catch let failure as UniqueIndexFailure {
            return failure.response
        }
        let location = TableAPI.baseURL(of: request) + ReadOptions.tablePath(of: request) + "\(table.name)/\(sysId)"
        return respond(request, status: 201, sysId: sysId, extraHeaders: [("Location", location)])
    }

    // MARK: - PUT / PATCH

    /// Updates the record (PUT and PATCH alike: only the fields in the body change).
    ///
    /// As on an instance, every update adds 1 to `sys_mod_count` and sets `sys_updated_on` (nowsim's
    /// clock) and `sys_updated_by` (the caller), whatever the body says about them; with
    /// `sysparm_suppress_auto_sys_field=true` the body's system fields stick and nothing is bumped.
    /// Journal fields become `sys_journal_field` entries and audited classes get `sys_audit` rows
    /// (``RecordHistory``).
    func update(_ request: HTTPRequest, sysId: String) throws -> HTTPResponse {
        let write: WriteRequest
        switch read(request) {
        case .success(let parsed): write = parsed
        case .failure(let failure): return failure.response
        }
        let found: Bool
        do {
            found = try update(sysId: sysId, write)
        } catch let failure as UniqueIndexFailure {
            return failure.response
        }
        guard found else { return ErrorEnvelope.noRecord }
        return respond(request, status: 200, sysId: sysId, extraHeaders: [])
    }

    /// Applies an update in one transaction; `false` when the record is not found (or hidden).
    /// - Throws: ``UniqueIndexFailure`` when the update would duplicate a unique value (nothing is
    ///   written); `SQLiteError` when SQLite fails.
    private func update(sysId: String, _ write: WriteRequest) throws -> Bool {
        let (body, suppress, inputDisplay, now) = (write.body, write.suppress, write.inputDisplay, write.now)
        return try api.pool.withConnection { db in
            try db.transaction {
                guard try exists(sysId: sysId, db: db, anyClass: false) else { return false }
                var values = try columnValues(body, inputDisplay: inputDisplay, db: db)
                values["sys_id"] = nil
                values["sys_class_name"] = nil
                let journal = RecordHistory.takeJournalEntries(from: &values, table: table)
                let audited = values.keys.filter { RecordHistory.isAudited($0, in: table) }
                let stored = try RecordHistory.storedValues(
                    of: sysId, columns: ["sys_class_name", "sys_mod_count"] + audited, storageTable: table.storageTable,
                    db: db)
                var assignments: [String] = []
                var parameters: [SQLiteValue] = []
                if !suppress {
                    for name in Self.updatedFields.union(Self.createdFields) { values[name] = nil }
                    values["sys_updated_on"] = now
                    values["sys_updated_by"] = caller.userName
                    assignments.append("\"sys_mod_count\" = CAST(COALESCE(\"sys_mod_count\", '0') AS INTEGER) + 1")
                }
                for name in values.keys.sorted() where table.column(name) != nil {
                    assignments.append("\(SQLIdentifier.quote(name)) = ?")
                    parameters.append(values[name].flatMap { $0 }.map(SQLiteValue.text) ?? .null)
                }
                if assignments.isEmpty && journal.isEmpty { return true }
                let modCount = (Int(stored["sys_mod_count"] ?? "") ?? 0) + (suppress ? 0 : 1)
                let history = RecordHistory.Write(
                    className: stored["sys_class_name"] ?? table.name, sysId: sysId, user: caller.userName, now: now,
                    modCount: String(modCount))
                try history.journal(journal, db: db)
                if assignments.isEmpty { return true }
                try checkUniqueIndexes(values, sysId: sysId, operation: "update", db: db)
                try db.withStatement(
                    "UPDATE \(SQLIdentifier.quote(table.storageTable)) SET \(assignments.joined(separator: ", ")) WHERE \"sys_id\" = ?",
                    cached: false
                ) { statement in
                    try statement.bind(parameters + [.text(sysId)])
                    try statement.step()
                }
                try history.changes(old: stored, new: values, table: table, db: db)
                try NotificationOutbox.queue(
                    table: table, sysId: sysId, action: .update, user: caller.userName, now: now,
                    catalog: api.catalog, db: db)
                return true
            }
        }
    }

    /// Throws ``UniqueIndexFailure`` when `values` would give the record `sysId` a value of a unique
    /// column that another record holds (``UniqueIndex``).
    ///
    /// The failure carries the instance's answer: 403 `Operation Failed` / `Error during insert of
    /// <table> (<display value>)` (or `update`), the record's display value being the written one or,
    /// on an update that does not write it, the stored one (docs/table-api.md §1.4).
    private func checkUniqueIndexes(
        _ values: [String: String?], sysId: String, operation: String, db: SQLiteConnection
    ) throws {
        guard try UniqueIndex.violation(in: table, values: values, sysId: sysId, db: db) != nil else { return }
        var display = values[table.displayField].flatMap { $0 }
        if display == nil, values[table.displayField] == nil, table.column(table.displayField) != nil {
            display = try db.withStatement(
                "SELECT \(SQLIdentifier.quote(table.displayField)) FROM \(SQLIdentifier.quote(table.storageTable)) "
                    + "WHERE \"sys_id\" = ?"
            ) { statement in
                try statement.bind([.text(sysId)])
                return try statement.step() ? statement.text(0) : nil
            }
        }
        throw UniqueIndexFailure(
            response: ErrorEnvelope.writeFailed(operation: operation, table: table.name, displayValue: display ?? ""))
    }

    // MARK: - DELETE

    /// Deletes the record and, in the same transaction, records the deletion in `sys_audit_delete`
    /// (``DeletionAudit``); a record that is not found (or that the read ACLs hide) is 404 with
    /// nothing deleted and nothing recorded.
    func delete(sysId: String) throws -> HTTPResponse {
        guard caller.mayWrite(table, catalog: api.catalog) else { return ErrorEnvelope.aclUpdateFailed }
        let now = TableAPIDateFormat.string(from: api.settings.now())
        let deleted: Bool = try api.pool.withConnection { db in
            try db.transaction {
                // A record the read ACLs hide is not found, as on an instance: nothing is deleted.
                guard try exists(sysId: sysId, db: db, anyClass: false) else { return false }
                let audit =
                    table.storageTable == DeletionAudit.tableName
                    ? nil
                    : try DeletionAudit.read(
                        sysId: sysId, storageTable: table.storageTable, catalog: api.catalog, db: db)
                let (classSQL, classParameters) = api.classFilter(table)
                let removed = try db.withStatement(
                    "DELETE FROM \(SQLIdentifier.quote(table.storageTable)) AS t WHERE \(classSQL) AND t.\"sys_id\" = ?"
                ) { statement in
                    try statement.bind(classParameters + [.text(sysId)])
                    try statement.step()
                    return db.changes > 0
                }
                if removed { try audit?.insert(deletedBy: caller.userName, at: now, db: db) }
                return removed
            }
        }
        return deleted ? HTTPResponse(status: 204) : ErrorEnvelope.noRecord
    }

    // MARK: - Helpers

    /// The echoed record (or an empty body with `X-no-response-body: true`).
    ///
    /// A written record the caller may not read (a row ACL it no longer or never matched, a child
    /// class it may not read) is echoed without fields, `{"result":{}}`, as an instance leaves out
    /// the fields its ACLs hide (ref §2.1); the write itself stands.
    private func respond(
        _ request: HTTPRequest, status: Int, sysId: String, extraHeaders: [(name: String, value: String)]
    ) -> HTTPResponse {
        if isTrue(request.header("x-no-response-body")) {
            return HTTPResponse(status: status, headers: extraHeaders, body: [])
        }
        let format = ResponseFormat(accepting: request) ?? .json
        let body = try? api.pool.withConnection { db in
            try api.renderRecord(
                db: db, table: table, sysId: sysId, options: ReadOptions(request: request), request: request,
                format: format)
        }
        guard let body = body ?? nil else {
            return TableAPI.response(
                status: status, format: format, body: Self.emptyRecord(format), headers: extraHeaders)
        }
        return TableAPI.response(status: status, format: format, body: body, headers: extraHeaders)
    }

    /// Body fields mapped to this table's columns; unknown and dot-walked names are ignored.
    private func columnValues(_ body: RequestBody, inputDisplay: Bool, db: SQLiteConnection) throws -> [String: String?]
    {
        var values: [String: String?] = [:]
        for (name, value) in body.fields {
            guard let column = table.column(name) else { continue }
            guard var text = value else {
                values[name] = .some(nil)
                continue
            }
            if inputDisplay {
                text = try storedValue(forDisplay: text, column: column, db: db)
            }
            values[name] = text
        }
        return values
    }

    /// With `sysparm_input_display_value=true`: reference display names and choice labels → stored values.
    private func storedValue(forDisplay text: String, column: ColumnDefinition, db: SQLiteConnection) throws -> String {
        if column.hasChoices,
            let value = api.catalog.choiceValue(table: column.definedOn, element: column.element, label: text)
                ?? api.catalog.choiceValue(table: table.name, element: column.element, label: text)
        {
            return value
        }
        if column.internalType == "reference", let targetName = column.reference,
            let target = api.catalog.table(targetName), target.column(target.displayField) != nil
        {
            let found = try db.withStatement(
                "SELECT \"sys_id\" FROM \(SQLIdentifier.quote(target.storageTable)) WHERE \(SQLIdentifier.quote(target.displayField)) = ? LIMIT 1"
            ) { statement -> String? in
                try statement.bind([.text(text)])
                return try statement.step() ? statement.text(0) : nil
            }
            if let found { return found }
        }
        return text
    }

    private func applyInsertDefaults(_ values: inout [String: String?], now: String, db: SQLiteConnection) throws {
        func isMissing(_ name: String) -> Bool { table.column(name) != nil && (values[name] ?? nil) == nil }
        if isMissing("active") { values["active"] = "true" }
        if isMissing("sys_domain") { values["sys_domain"] = "global" }
        if isMissing("sys_domain_path") { values["sys_domain_path"] = "/" }
        if isMissing("opened_at") { values["opened_at"] = now }
        if isMissing("opened_by") {
            try db.withStatement("SELECT \"sys_id\" FROM \"sys_user\" WHERE \"user_name\" = ? LIMIT 1") { statement in
                try statement.bind([.text(caller.userName)])
                if try statement.step() { values["opened_by"] = statement.text(0) }
            }
        }
        if isMissing("number"), let number = try Database.nextNumber(for: table.name, connection: db) {
            values["number"] = number
        }
    }

    /// Whether the record exists: in any class of the storage table with `anyClass` (an insert's
    /// sys_id check), else in `table` or its children and visible to the caller under the read ACLs.
    func exists(sysId: String, db: SQLiteConnection, anyClass: Bool) throws -> Bool {
        let (classSQL, classParameters) = anyClass ? ("1", []) : api.classFilter(table)
        let joins = JoinPlan(catalog: api.catalog, base: table)
        let visibility = anyClass ? nil : api.visibilitySQL(joins: joins)
        let visibilityClause = visibility.map { " AND (\($0.sql))" } ?? ""
        return try db.withStatement(
            "SELECT 1 \(joins.fromClause) WHERE \(classSQL) AND t.\"sys_id\" = ?\(visibilityClause)"
        ) { statement in
            try statement.bind(classParameters + [.text(sysId)] + (visibility?.parameters ?? []))
            return try statement.step()
        }
    }

    /// `{"result":{}}` (or its XML form): a written record echoed without the fields the caller may
    /// not read.
    static func emptyRecord(_ format: ResponseFormat) -> [UInt8] {
        switch format {
        case .json:
            var out = JSONWriter(capacity: 16)
            out.startResults(list: false)
            out.raw("{}")
            out.endResults(list: false)
            return out.bytes
        case .xml:
            var out = XMLWriter(capacity: 64)
            out.startResults(list: false)
            out.startRecord()
            out.endRecord()
            out.endResults(list: false)
            return out.bytes
        }
    }

    static func isSysId(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// A new random sys_id: 32 lowercase hex digits.
    static func newSysId() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx%016llx", generator.next() as UInt64, generator.next() as UInt64)
    }

}

/// A response that ends a write before it starts (no rights, unreadable body).
private struct ResponseFailure: Error {
    var response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

/// A write refused because it would duplicate a unique value; `response` is the instance's answer.
private struct UniqueIndexFailure: Error {
    var response: HTTPResponse
}

/// An insert whose sys_id is taken already.
struct WriteConflict: Error {
    var sysId: String
}
