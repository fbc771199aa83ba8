import Foundation
import NowQuery
import NowSQLite

/// The Attachment API, `/api/now[/v1]/attachment…` (ref §7.3; [DOC]
/// https://www.servicenow.com/docs/r/zurich/api-reference/rest-apis/c_AttachmentAPI.html):
///
/// - `GET /attachment` — metadata of the attachments `sysparm_query` selects (relative to
///   `sys_attachment`, ORDERBY included), `sysparm_limit` (default 1000, as documented) and
///   `sysparm_offset`, with `X-Total-Count` and a `Link` header built like the Table API's.
/// - `GET /attachment/{sys_id}` — `{"result":{…}}`; `GET /attachment/{sys_id}/file` — the file's bytes
///   (``AttachmentFileStream``) with `Content-Type` the attachment's `content_type` and the metadata
///   as JSON in `X-Attachment-Metadata`.
/// - `POST /attachment/file?table_name=&table_sys_id=&file_name=` — the raw body is the file, its
///   `Content-Type` mandatory (400 without); `POST /attachment/upload` — `multipart/form-data` with
///   `table_name` and `table_sys_id` parts and the file in the last part (its `filename` and
///   `Content-Type`). Both answer 201, `Location` and the new metadata; 404 when the record does not
///   exist or is not readable; a new sys_id every time.
/// - `DELETE /attachment/{sys_id}` — 204; the chunks go with it.
///
/// Metadata: every value a string, in the documented example's key order, followed by `state`,
/// `chunk_size_bytes` and `hash` (which current instances add) and `created_by_name` /
/// `updated_by_name` (the documented response schema); `download_link` is this server's base URL +
/// `/api/now/attachment/<sys_id>/file`.
///
/// Access (a simplification, docs/nowsim-records.md): an attachment is visible to a caller who may
/// read `sys_attachment` and the record's table (`--table-acl`), and, when a `--row-acl` restricts
/// that table, the record itself; otherwise it reads as 404 and is left out of lists (after
/// `sysparm_limit`, as ACLs act). Attaching and deleting need write rights on the record's table.
/// Errors use the Table API's envelope; an unknown or malformed sys_id is 404 `No Record found`.
struct AttachmentAPI {
    let catalog: Catalog
    let pool: SQLiteConnectionPool
    let settings: InstanceSettings
    let accessRules: AccessRules
    let caller: Caller

    /// The documented default of `sysparm_limit` for `GET /attachment`.
    static let defaultLimit = 1000

    /// The route of a path under `/api/now[/v1]/attachment`, `nil` for other paths.
    enum Route: Equatable {
        case list
        case uploadRaw
        case uploadMultipart
        case metadata(String)
        case file(String)

        init?(path: String) {
            var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard parts.count >= 3, parts[0] == "api", parts[1] == "now" else { return nil }
            parts.removeFirst(2)
            if parts.first == "v1" { parts.removeFirst() }
            guard parts.first == "attachment" else { return nil }
            parts.removeFirst()
            switch parts.count {
            case 0: self = .list
            case 1 where parts[0] == "file": self = .uploadRaw
            case 1 where parts[0] == "upload": self = .uploadMultipart
            case 1: self = .metadata(parts[0])
            case 2 where parts[1] == "file": self = .file(parts[0])
            default: return nil
            }
        }
    }

    func handle(_ request: HTTPRequest, route: Route) -> HTTPResponse {
        do {
            switch (request.method, route) {
            case ("GET", .list): return try list(request)
            case ("GET", .metadata(let sysId)): return try metadata(request, sysId: sysId)
            case ("GET", .file(let sysId)): return try file(request, sysId: sysId)
            case ("DELETE", .metadata(let sysId)): return try delete(sysId: sysId)
            case ("POST", .uploadRaw): return try uploadRaw(request)
            case ("POST", .uploadMultipart): return try uploadMultipart(request)
            case (_, .list), (_, .file): return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["GET"])
            case (_, .metadata): return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["GET", "DELETE"])
            case (_, .uploadRaw), (_, .uploadMultipart):
                return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["POST"])
            }
        } catch {
            return ErrorEnvelope.response(status: 500, message: "Internal server error", detail: "\(error)")
        }
    }

    // MARK: - Reads

    private func list(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let table = catalog.table("sys_attachment") else { return ErrorEnvelope.invalidTable("sys_attachment") }
        guard accessRules.mayRead(table, caller: caller, catalog: catalog) else {
            return ErrorEnvelope.insufficientRights
        }
        let format = ResponseFormat(accepting: request) ?? .json
        let limit = max(0, Int(request.query("sysparm_limit") ?? "") ?? Self.defaultLimit)
        let offset = max(0, Int(request.query("sysparm_offset") ?? "") ?? 0)
        let filter = RecordFilter(request: request, table: table, catalog: catalog, settings: settings)
        let columns = AttachmentStore.columns.map { "t.\(SQLIdentifier.quote($0))" }.joined(separator: ", ")
        let order = filter.orderSQL.isEmpty ? "t.rowid" : filter.orderSQL
        let from = filter.joins.fromClause
        let baseURL = TableAPI.baseURL(of: request)
        return try pool.withConnection { db in
            let total = try db.withStatement("SELECT COUNT(*) \(from) WHERE \(filter.whereSQL)") { count in
                try count.bind(filter.parameters)
                _ = try count.step()
                return count.integer(0)
            }
            var records: [AttachmentStore.Metadata] = []
            var scanned = 0
            try db.withStatement(
                "SELECT \(columns) \(from) WHERE \(filter.whereSQL) ORDER BY \(order) LIMIT ? OFFSET ?"
            ) { statement in
                try statement.bind(filter.parameters + [.integer(limit), .integer(offset)])
                while try statement.step() {
                    scanned += 1
                    let metadata = AttachmentStore.metadata(from: statement)
                    // The parent's ACLs act after the limit, as an instance's do: the page comes back short.
                    if try isVisible(metadata, db: db) { records.append(metadata) }
                }
            }
            let body = try body(format: format, list: true, records: records, baseURL: baseURL, db: db)
            var headers: [(name: String, value: String)] = []
            let link = LinkHeader.value(
                request: request, baseURL: baseURL, offset: offset, limit: limit, total: total,
                pageWasFull: scanned >= limit)
            if !link.isEmpty { headers.append(("Link", link)) }
            headers.append(("X-Total-Count", String(total)))
            return TableAPI.response(status: 200, format: format, body: body, headers: headers)
        }
    }

    private func metadata(_ request: HTTPRequest, sysId: String) throws -> HTTPResponse {
        try pool.withConnection { db in
            guard let metadata = try visibleMetadata(sysId, db: db) else { return ErrorEnvelope.noRecord }
            return try metadataResponse(request, metadata, status: 200, db: db)
        }
    }

    private func file(_ request: HTTPRequest, sysId: String) throws -> HTTPResponse {
        try pool.withConnection { db in
            guard let metadata = try visibleMetadata(sysId, db: db) else { return ErrorEnvelope.noRecord }
            let stream = try AttachmentFileStream.open(
                sysId: metadata["sys_id"], compressed: metadata["compressed"] == "true", db: db, pool: pool)
            var names = UserNames()
            var header = JSONWriter(capacity: 1024)
            try write(metadata, baseURL: TableAPI.baseURL(of: request), names: &names, db: db, into: &header)
            let contentType = metadata["content_type"].isEmpty ? "application/octet-stream" : metadata["content_type"]
            var response = HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", Self.headerSafe(contentType)),
                    ("X-Attachment-Metadata", Self.asciiJSON(header.bytes)),
                    ("Cache-Control", "no-cache,no-store,must-revalidate,max-age=-1"),
                ])
            response.stream = stream
            return response
        }
    }

    // MARK: - Writes

    private func uploadRaw(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let tableName = request.query("table_name"), !tableName.isEmpty,
            let tableSysId = request.query("table_sys_id"), !tableSysId.isEmpty,
            let fileName = request.query("file_name"), !fileName.isEmpty
        else {
            return ErrorEnvelope.badRequest(
                message: "Missing parameter", detail: "table_name, table_sys_id and file_name are required")
        }
        guard let contentType = request.header("content-type"), !contentType.isEmpty else {
            return ErrorEnvelope.badRequest(
                message: "Missing header", detail: "Content-Type of the file is required")
        }
        let file = AttachmentStore.NewFile(
            fileName: fileName, contentType: contentType, tableName: tableName, tableSysId: tableSysId)
        return try create(request, file: file, range: 0..<request.body.count)
    }

    private func uploadMultipart(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let form = MultipartForm(body: request.body, contentType: request.header("content-type")) else {
            return ErrorEnvelope.badRequest(
                message: "Bad Request", detail: "the body is not multipart/form-data with a boundary")
        }
        guard let filePart = form.parts.last, let fileName = filePart.fileName, !fileName.isEmpty,
            let tableName = form.text("table_name", in: request.body), !tableName.isEmpty,
            let tableSysId = form.text("table_sys_id", in: request.body), !tableSysId.isEmpty
        else {
            return ErrorEnvelope.badRequest(
                message: "Missing parameter",
                detail: "table_name and table_sys_id parts and a file in the last part are required")
        }
        let file = AttachmentStore.NewFile(
            fileName: fileName, contentType: filePart.contentType ?? "application/octet-stream", tableName: tableName,
            tableSysId: tableSysId)
        return try create(request, file: file, range: filePart.range)
    }

    /// Stores `request.body[range]` as `file`, after checking the record and the caller's rights.
    private func create(_ request: HTTPRequest, file: AttachmentStore.NewFile, range: Range<Int>) throws
        -> HTTPResponse
    {
        guard let table = catalog.table(file.tableName) else { return ErrorEnvelope.noRecord }
        let now = TableAPIDateFormat.string(from: settings.now())
        return try pool.withConnection { db in
            guard RecordWriter.isSysId(file.tableSysId), try recordIsVisible(table, sysId: file.tableSysId, db: db)
            else { return ErrorEnvelope.noRecord }
            guard caller.mayWrite(table, catalog: catalog) else { return ErrorEnvelope.aclUpdateFailed }
            let sysId = try db.transaction {
                try request.body.withUnsafeBytes { bytes in
                    try AttachmentStore.insert(
                        UnsafeRawBufferPointer(rebasing: bytes[range]), as: file, user: caller.userName, now: now,
                        db: db)
                }
            }
            guard let metadata = try AttachmentStore.metadata(sysId, db: db) else { return ErrorEnvelope.noRecord }
            var response = try metadataResponse(request, metadata, status: 201, db: db)
            response.headers.append(("Location", TableAPI.baseURL(of: request) + "/api/now/attachment/\(sysId)"))
            return response
        }
    }

    private func delete(sysId: String) throws -> HTTPResponse {
        try pool.withConnection { db in
            guard let metadata = try visibleMetadata(sysId, db: db) else { return ErrorEnvelope.noRecord }
            if let table = catalog.table(metadata["table_name"]) {
                guard caller.mayWrite(table, catalog: catalog) else { return ErrorEnvelope.aclUpdateFailed }
            } else if !caller.isAdmin {
                return ErrorEnvelope.aclUpdateFailed
            }
            return try AttachmentStore.delete(metadata["sys_id"], db: db)
                ? HTTPResponse(status: 204) : ErrorEnvelope.noRecord
        }
    }

    // MARK: - Access

    /// The metadata of `sysId` when it exists and the caller may see it.
    private func visibleMetadata(_ sysId: String, db: SQLiteConnection) throws -> AttachmentStore.Metadata? {
        guard RecordWriter.isSysId(sysId), let table = catalog.table("sys_attachment"),
            accessRules.mayRead(table, caller: caller, catalog: catalog),
            let metadata = try AttachmentStore.metadata(sysId, db: db), try isVisible(metadata, db: db)
        else { return nil }
        return metadata
    }

    /// Whether the caller may see an attachment of the record its metadata names.
    private func isVisible(_ metadata: AttachmentStore.Metadata, db: SQLiteConnection) throws -> Bool {
        if caller.isAdmin { return true }
        guard let table = catalog.table(metadata["table_name"]) else { return false }
        guard accessRules.mayRead(table, caller: caller, catalog: catalog) else { return false }
        guard RowVisibility(rules: accessRules, caller: caller, table: table, catalog: catalog) != nil else {
            return true
        }
        return try recordIsVisible(table, sysId: metadata["table_sys_id"], db: db)
    }

    /// Whether record `sysId` of `table` (or a child class) exists and the read ACLs show it.
    private func recordIsVisible(_ table: TableDefinition, sysId: String, db: SQLiteConnection) throws -> Bool {
        guard accessRules.mayRead(table, caller: caller, catalog: catalog) else { return false }
        var api = TableAPI(catalog: catalog, pool: pool, settings: settings)
        api.accessRules = accessRules
        api.visibility = RowVisibility(rules: accessRules, caller: caller, table: table, catalog: catalog)
        return try RecordWriter(api: api, table: table, caller: caller).exists(sysId: sysId, db: db, anyClass: false)
    }

    // MARK: - Rendering

    private func metadataResponse(
        _ request: HTTPRequest, _ metadata: AttachmentStore.Metadata, status: Int, db: SQLiteConnection
    ) throws -> HTTPResponse {
        let format = ResponseFormat(accepting: request) ?? .json
        let body = try body(
            format: format, list: false, records: [metadata], baseURL: TableAPI.baseURL(of: request), db: db)
        return TableAPI.response(status: status, format: format, body: body)
    }

    /// `{"result":…}` (or its XML form) holding `records` (a list, or the one record).
    private func body(
        format: ResponseFormat, list: Bool, records: [AttachmentStore.Metadata], baseURL: String, db: SQLiteConnection
    ) throws -> [UInt8] {
        switch format {
        case .json: try body(JSONWriter.self, list: list, records: records, baseURL: baseURL, db: db)
        case .xml: try body(XMLWriter.self, list: list, records: records, baseURL: baseURL, db: db)
        }
    }

    private func body<Output: ResultEnvelope>(
        _: Output.Type, list: Bool, records: [AttachmentStore.Metadata], baseURL: String, db: SQLiteConnection
    ) throws -> [UInt8] {
        var out = Output(capacity: 4096)
        var names = UserNames()
        out.startResults(list: list)
        for (index, metadata) in records.enumerated() {
            if index > 0 { out.separateRecords() }
            try write(metadata, baseURL: baseURL, names: &names, db: db, into: &out)
        }
        out.endResults(list: list)
        return out.bytes
    }

    /// One metadata record, every value a string.
    private func write<Output: RecordOutput>(
        _ metadata: AttachmentStore.Metadata, baseURL: String, names: inout UserNames, db: SQLiteConnection,
        into out: inout Output
    ) throws {
        let sysId = metadata["sys_id"]
        let fields: [(String, String)] = [
            ("table_sys_id", metadata["table_sys_id"]), ("size_bytes", metadata["size_bytes"]),
            ("download_link", baseURL + "/api/now/attachment/\(sysId)/file"),
            ("sys_updated_on", metadata["sys_updated_on"]), ("sys_id", sysId),
            ("image_height", metadata["image_height"]), ("sys_created_on", metadata["sys_created_on"]),
            ("file_name", metadata["file_name"]), ("sys_created_by", metadata["sys_created_by"]),
            ("compressed", metadata["compressed"]), ("average_image_color", metadata["average_image_color"]),
            ("sys_updated_by", metadata["sys_updated_by"]), ("sys_tags", metadata["sys_tags"]),
            ("table_name", metadata["table_name"]), ("image_width", metadata["image_width"]),
            ("sys_mod_count", metadata["sys_mod_count"]), ("content_type", metadata["content_type"]),
            ("size_compressed", metadata["size_compressed"]), ("state", metadata["state"]),
            ("chunk_size_bytes", metadata["chunk_size_bytes"]), ("hash", metadata["hash"]),
            ("created_by_name", try names.name(of: metadata["sys_created_by"], db: db)),
            ("updated_by_name", try names.name(of: metadata["sys_updated_by"], db: db)),
        ]
        out.startRecord()
        for (index, field) in fields.enumerated() {
            out.startField(field.0, first: index == 0)
            out.text(field.1)
            out.endField(field.0)
        }
        out.endRecord()
    }

    /// JSON with every non-ASCII character escaped, fit for a header value (`X-Attachment-Metadata`).
    static func asciiJSON(_ bytes: [UInt8]) -> String {
        var out = ""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar.isASCII && scalar.value >= 0x20 {
                out.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
            }
        }
        return out
    }

    /// `value` without control characters (a stored content type goes into a header).
    static func headerSafe(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }
}

/// Full names of users by user name (`created_by_name`), looked up once per response.
struct UserNames {
    private var cache: [String: String] = [:]

    /// `sys_user.name` of `userName`, the user name itself when no user has a name.
    mutating func name(of userName: String, db: SQLiteConnection) throws -> String {
        if userName.isEmpty { return "" }
        if let cached = cache[userName] { return cached }
        let name = try db.withStatement("SELECT \"name\" FROM \"sys_user\" WHERE \"user_name\" = ? LIMIT 1") {
            statement in
            try statement.bind([.text(userName)])
            return try statement.step() ? statement.text(0) : nil
        }
        let result = (name ?? nil).flatMap { $0.isEmpty ? nil : $0 } ?? userName
        cache[userName] = result
        return result
    }
}
