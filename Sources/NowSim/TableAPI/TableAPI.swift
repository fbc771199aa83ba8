import Foundation
import NowQuery
import NowSQLite

/// Instance-wide behaviour switches of nowsim (the emulated system properties).
public struct InstanceSettings: Sendable {
    /// `glide.invalid_query.returns_no_rows`.
    public var invalidQueryReturnsNoRows = false
    /// The current time; injectable so tests can pin date helpers.
    public var now: @Sendable () -> Date = { Date() }

    /// Creates settings with the defaults of a new instance.
    public init(invalidQueryReturnsNoRows: Bool = false, now: @escaping @Sendable () -> Date = { Date() }) {
        self.invalidQueryReturnsNoRows = invalidQueryReturnsNoRows
        self.now = now
    }
}

/// The Table API: `GET/POST/PUT/PATCH/DELETE /api/now[/v1|/v2]/table/{table}[/{sys_id}]` (ref §1–§5).
struct TableAPI {
    let catalog: Catalog
    let pool: SQLiteConnectionPool
    let settings: InstanceSettings
    /// The fraction of records an injected ACL fault hides (0 = none).
    var hiddenFraction = 0.0
    /// The length of the runs (in sys_id order) it hides them in; 1 = record by record.
    var hiddenRun = 1
    /// The instance's read ACLs (`--table-acl`, `--row-acl`).
    var accessRules = AccessRules()
    /// Which rows of the requested table (and its child classes) the caller sees, `nil` for all.
    var visibility: RowVisibility?
    /// Lists ignore `sys_id>X` conditions (the `stuck-cursor` fault).
    var ignoresCursor = false

    /// The default and the documented ceiling-free limit: 10000 rows (ref §2.1).
    static let defaultLimit = 10_000

    func handle(_ request: HTTPRequest, route: TableRoute, caller: Caller) -> HTTPResponse {
        guard let table = catalog.table(route.table) else {
            return ErrorEnvelope.invalidTable(route.table)
        }
        // Reads, and writes that must first find (and then echo) a record, need read rights on the
        // table; an insert needs only write rights (its echo leaves out what the caller may not read).
        if ["GET", "HEAD", "PUT", "PATCH", "DELETE"].contains(request.method),
            !accessRules.mayRead(table, caller: caller, catalog: catalog)
        {
            return ErrorEnvelope.insufficientRights
        }
        var api = self
        api.visibility = RowVisibility(rules: accessRules, caller: caller, table: table, catalog: catalog)
        return api.dispatch(request, route: route, table: table, caller: caller)
    }

    private func dispatch(_ request: HTTPRequest, route: TableRoute, table: TableDefinition, caller: Caller)
        -> HTTPResponse
    {
        do {
            switch (request.method, route.sysId) {
            case ("GET", nil), ("HEAD", nil):
                return try list(request, route: route, table: table)
            case ("GET", let sysId?), ("HEAD", let sysId?):
                return try read(request, table: table, sysId: sysId)
            case ("POST", nil):
                return try RecordWriter(api: self, table: table, caller: caller).insert(request)
            case ("PUT", let sysId?), ("PATCH", let sysId?):
                return try RecordWriter(api: self, table: table, caller: caller).update(request, sysId: sysId)
            case ("DELETE", let sysId?):
                return try RecordWriter(api: self, table: table, caller: caller).delete(sysId: sysId)
            case (_, nil):
                return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["GET", "HEAD", "POST"])
            default:
                return ErrorEnvelope.methodNotAllowed(
                    request.method, allowed: ["GET", "HEAD", "PUT", "PATCH", "DELETE"])
            }
        } catch {
            return ErrorEnvelope.response(status: 500, message: "Internal server error", detail: "\(error)")
        }
    }

    // MARK: - Reads

    private func list(_ request: HTTPRequest, route: TableRoute, table: TableDefinition) throws -> HTTPResponse {
        let options = ReadOptions(request: request)
        let format = ResponseFormat(accepting: request) ?? .json
        let limit = max(0, Int(request.query("sysparm_limit") ?? "") ?? Self.defaultLimit)
        let offset = max(0, Int(request.query("sysparm_offset") ?? "") ?? 0)
        let noCount = isTrue(request.query("sysparm_no_count"))
        let suppressLink = isTrue(request.query("sysparm_suppress_pagination_header"))

        let filter = RecordFilter(
            request: request, table: table, catalog: catalog, settings: settings, ignoringCursor: ignoresCursor)
        let joins = filter.joins
        let whereSQL = filter.whereSQL
        let parameters = filter.parameters
        // Without ORDERBY the rows come in storage order: let SQLite walk the table and stop at the
        // limit rather than collect a whole class through the class index and sort it.
        let (classSQL, classParameters) = classFilter(table, usesIndex: !filter.orderSQL.isEmpty)
        let countFrom = joins.fromClause
        // Read ACLs are a last column (1 = visible), so that they act after LIMIT as real ones do.
        let visibility = visibilitySQL(joins: joins)
        let visibilityColumn = visibility.map { ", CASE WHEN (\($0.sql)) THEN 1 ELSE 0 END" } ?? ""
        let projection = RecordProjection(
            catalog: catalog, joins: joins, options: options, includeSysId: hiddenFraction > 0)
        let orderSQL = filter.orderSQL.isEmpty ? "t.rowid" : filter.orderSQL
        let sql =
            "SELECT \(projection.selectList)\(visibilityColumn) \(joins.fromClause) WHERE \(classSQL) AND (\(whereSQL)) ORDER BY \(orderSQL) LIMIT ? OFFSET ?"

        let baseURL = Self.baseURL(of: request)
        return try pool.withConnection { db in
            var total: Int?
            if !noCount || !suppressLink {
                total = try db.withStatement("SELECT COUNT(*) \(countFrom) WHERE \(classSQL) AND (\(whereSQL))") {
                    count in
                    try count.bind(classParameters + parameters)
                    _ = try count.step()
                    return count.integer(0)
                }
            }
            return try db.withStatement(sql) { statement in
                try statement.bind(
                    (visibility?.parameters ?? []) + classParameters + parameters + [.integer(limit), .integer(offset)])
                let visibilityIndex = visibility == nil ? nil : statement.columnCount - 1
                var rows = 0
                var scanned = 0
                var hiding = aclHiding(table)
                func renderRows<Output: ResultEnvelope>(_ out: inout Output) throws {
                    out.startResults(list: true)
                    while try statement.step() {
                        scanned += 1
                        if let visibilityIndex, statement.integer(visibilityIndex) == 0 { continue }
                        // Injected ACLs act after sysparm_limit, as real ones do: the page just comes back short.
                        if let index = projection.sysIdIndex, hiding != nil,
                            try statement.withUTF8(index, { try hiding?.isHidden($0, db: db) ?? false })
                        {
                            continue
                        }
                        if rows > 0 { out.separateRecords() }
                        projection.render(row: statement, into: &out, baseURL: baseURL)
                        rows += 1
                    }
                    out.endResults(list: true)
                }
                let body: [UInt8]
                switch format {
                case .json:
                    var out = JSONWriter(capacity: 64 * 1024)
                    try renderRows(&out)
                    body = out.bytes
                case .xml:
                    var out = XMLWriter(capacity: 64 * 1024)
                    try renderRows(&out)
                    body = out.bytes
                }
                if rows == 0 && route.emptyListIsNotFound {
                    return ErrorEnvelope.noRecord
                }
                var headers: [(name: String, value: String)] = []
                if !suppressLink {
                    let link = LinkHeader.value(
                        request: request, baseURL: baseURL, offset: offset, limit: limit, total: total,
                        pageWasFull: scanned >= limit)
                    if !link.isEmpty { headers.append(("Link", link)) }
                }
                if !noCount, let total { headers.append(("X-Total-Count", String(total))) }
                return Self.response(status: 200, format: format, body: body, headers: headers)
            }
        }
    }

    private func read(_ request: HTTPRequest, table: TableDefinition, sysId: String) throws -> HTTPResponse {
        let options = ReadOptions(request: request)
        let format = ResponseFormat(accepting: request) ?? .json
        return try pool.withConnection { db in
            guard
                let body = try renderRecord(
                    db: db, table: table, sysId: sysId, options: options, request: request, format: format)
            else { return ErrorEnvelope.noRecord }
            return Self.response(status: 200, format: format, body: body)
        }
    }

    /// `{"result":{…}}` (or its XML form) for one record, or `nil` when it does not exist (in `table`
    /// or its children).
    func renderRecord(
        db: SQLiteConnection, table: TableDefinition, sysId: String, options: ReadOptions, request: HTTPRequest,
        format: ResponseFormat
    ) throws -> [UInt8]? {
        let joins = JoinPlan(catalog: catalog, base: table)
        if var hiding = aclHiding(table) {
            var id = sysId
            let hidden = try id.withUTF8 { try hiding.isHidden($0, db: db) }
            if hidden { return nil }
        }
        let visibility = visibilitySQL(joins: joins)
        let projection = RecordProjection(catalog: catalog, joins: joins, options: options)
        let (classSQL, classParameters) = classFilter(table)
        let visibilityClause = visibility.map { " AND (\($0.sql))" } ?? ""
        return try db.withStatement(
            "SELECT \(projection.selectList) \(joins.fromClause) WHERE \(classSQL) AND t.\"sys_id\" = ?\(visibilityClause)"
        ) { statement in
            try statement.bind(classParameters + [.text(sysId)] + (visibility?.parameters ?? []))
            guard try statement.step() else { return nil }
            func render<Output: ResultEnvelope>(_ out: inout Output) {
                out.startResults(list: false)
                projection.render(row: statement, into: &out, baseURL: Self.baseURL(of: request))
                out.endResults(list: false)
            }
            switch format {
            case .json:
                var out = JSONWriter(capacity: 4096)
                render(&out)
                return out.bytes
            case .xml:
                var out = XMLWriter(capacity: 4096)
                render(&out)
                return out.bytes
            }
        }
    }

    /// What the injected ACL fault hides from this request, `nil` when it hides nothing.
    private func aclHiding(_ table: TableDefinition) -> ACLHiding? {
        guard hiddenFraction > 0 else { return nil }
        return ACLHiding(fraction: hiddenFraction, run: hiddenRun, table: table, classFilter: classFilter(table))
    }

    /// The read ACLs' condition on the rows behind `joins` (true = visible), `nil` when all are.
    func visibilitySQL(joins: JoinPlan) -> (sql: String, parameters: [SQLiteValue])? {
        visibility?.sql(joins: joins, catalog: catalog, compile: compileRowCondition)
    }

    /// A row ACL's encoded query as SQL on `joins` (adding the joins it dot-walks). Its fields were
    /// checked at start-up (``AccessRules/unknownFields(in:)``), so no condition is dropped.
    private func compileRowCondition(_ query: String, joins: JoinPlan) -> (sql: String, parameters: [SQLiteValue]) {
        let (parsed, _) = QueryReader.parseLeniently(query)
        let filter = RecordFilter(query: parsed, joins: joins, catalog: catalog, settings: settings)
        return (filter.whereSQL, filter.parameters)
    }

    /// The condition that keeps rows of `table` and its children out of a shared storage table.
    ///
    /// With `usesIndex` false the column is written `+t."sys_class_name"`, which stops SQLite from
    /// choosing the class index for this term.
    func classFilter(_ table: TableDefinition, usesIndex: Bool = true) -> (String, [SQLiteValue]) {
        if table.isRoot { return ("1", []) }
        let placeholders = Array(repeating: "?", count: table.classNames.count).joined(separator: ", ")
        let column = usesIndex ? "t.\"sys_class_name\"" : "+t.\"sys_class_name\""
        return ("\(column) IN (\(placeholders))", table.classNames.map { .text($0) })
    }

    // MARK: - Responses

    static func json(status: Int, body: [UInt8], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        response(status: status, format: .json, body: body, headers: headers)
    }

    /// A response in `format` with the instance's no-cache headers.
    static func response(
        status: Int, format: ResponseFormat, body: [UInt8], headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var all: [(name: String, value: String)] = [("Content-Type", format.contentType)]
        all.append(contentsOf: headers)
        all.append(("Cache-Control", "no-cache,no-store,must-revalidate,max-age=-1"))
        all.append(("Pragma", "no-store,no-cache"))
        // `0`, not an HTTP date: what recorded instance answers and the Batch API docs show.
        all.append(("Expires", "0"))
        return HTTPResponse(status: status, headers: all, body: body)
    }

    /// `scheme://host[:port]` as the caller addressed this instance (used in links and `Location`).
    static func baseURL(of request: HTTPRequest) -> String {
        let host = request.header("host") ?? "localhost"
        return (request.isSecure ? "https://" : "http://") + host
    }
}
