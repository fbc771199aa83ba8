/// `POST /api/nowsim/import`: imports the unload XML document in the body into the running
/// instance, as `nowsim import` does for a file (admins only).
///
/// Not part of any ServiceNow API (an instance imports XML through the list UI): it lets a test or
/// a script load an unload file into a running nowsim. The whole body is one transaction: an error
/// (malformed XML, an unknown table, another action) is 400 with `request body:LINE: …` as detail
/// and nothing applied. The answer is
/// `{"result":{"records":N,"tables":{"incident":{"inserted":…,"updated":…,"deleted":…,"not_found":…,"ignored_fields":…,"ignored_field_names":[…]}}}}`.
struct UnloadImportEndpoint {
    static let path = "/api/nowsim/import"
    /// What the body is called in error messages.
    static let documentName = "request body"
    let instance: NowSimInstance

    func handle(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        guard caller.isAdmin else { return ErrorEnvelope.insufficientRights }
        guard request.method == "POST" else { return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["POST"]) }
        let importer = UnloadImporter(
            catalog: instance.catalog, importedBy: caller.userName, now: instance.settings.now())
        let report: UnloadImportReport
        do {
            report = try instance.pool.withConnection { db in
                try importer.importDocument(request.body, named: Self.documentName, into: db)
            }
        } catch let error as UnloadImportError {
            return ErrorEnvelope.badRequest(message: "Invalid unload XML", detail: error.description)
        } catch {
            return ErrorEnvelope.response(
                status: 500, message: "Import failed", detail: "\(Self.documentName): \(error)")
        }
        return TableAPI.json(status: 200, body: Self.body(report))
    }

    /// The JSON answer for `report`.
    static func body(_ report: UnloadImportReport) -> [UInt8] {
        var out = JSONWriter(capacity: 256)
        out.raw("{\"result\":{\"records\":")
        number(report.records, to: &out)
        out.raw(",\"tables\":{")
        for (index, name) in report.tables.keys.sorted().enumerated() {
            let counts = report.tables[name] ?? .init()
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.key(name)
            out.raw("{\"inserted\":")
            number(counts.inserted, to: &out)
            out.raw(",\"updated\":")
            number(counts.updated, to: &out)
            out.raw(",\"deleted\":")
            number(counts.deleted, to: &out)
            out.raw(",\"not_found\":")
            number(counts.notFound, to: &out)
            out.raw(",\"ignored_fields\":")
            number(counts.ignoredFields, to: &out)
            out.raw(",\"ignored_field_names\":[")
            for (offset, field) in counts.ignoredFieldNames.enumerated() {
                if offset > 0 { out.byte(UInt8(ascii: ",")) }
                out.string(field)
            }
            out.raw("]}")
        }
        out.raw("}}}")
        return out.bytes
    }

    private static func number(_ value: Int, to out: inout JSONWriter) {
        for byte in String(value).utf8 { out.byte(byte) }
    }
}
