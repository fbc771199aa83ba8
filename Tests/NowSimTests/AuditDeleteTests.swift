import Foundation
import NowQuery
import NowSQLite
import NowSimTesting
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Deletions recorded in `sys_audit_delete`, as an instance with auditing on records them, and who
/// may read them; each test uses its own nowsim, since it deletes.
@Suite(.timeLimit(.minutes(5))) struct AuditDeleteTests {
    static let insufficientRights =
        #"{"error":{"message":"Insufficient rights to query records","detail":null},"status":"failure"}"#
    static let missing = "0123456789abcdef0123456789abcdef"

    let sim: NowSimInstance
    init() async throws {
        sim = try await NowSimInstance.start(arguments: [
            "--seed", "incident=12,problem=4", "--seed-value", "3",
            "--user", "admin:admin:admin", "--user", "agent:pw:itil", "--user", "reader:pw:snc_read_only",
        ])
    }

    /// The current time in the Table API's UTC format, as nowsim's clock (the same machine's) reads it.
    private static func now() -> String { TableAPIDateFormat.string(from: Date()) }

    /// `count` records of `table` (sys_id, number and sys_class_name), in sys_id order.
    private func records(_ table: String, count: Int) async throws -> [[String: Any]] {
        let list = try await sim.request(
            "/api/now/table/\(table)",
            query: [
                ("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", String(count)),
                ("sysparm_fields", "sys_id,number,sys_class_name"),
            ])
        #expect(list.status == 200)
        #expect(list.resultList.count == count)
        return list.resultList
    }

    /// The audit rows as admin reads them, with every field.
    private func auditRows(query: String = "ORDERBYsys_created_on^ORDERBYsys_id") async throws -> [[String: Any]] {
        let list = try await sim.request("/api/now/table/sys_audit_delete", query: [("sysparm_query", query)])
        #expect(list.status == 200, "\(String(decoding: list.body, as: UTF8.self))")
        return list.resultList
    }

    /// `sys_audit_delete`'s count through the Aggregate API.
    private func auditCount(user: String = "admin", password: String = "admin") async throws -> Int? {
        let stats = try await sim.request(
            "/api/now/stats/sys_audit_delete", query: [("sysparm_count", "true")], user: user, password: password)
        let count = (stats.resultObject["stats"] as? [String: Any])?["count"] as? String
        return count.flatMap { Int($0) }
    }

    @Test func aDeleteRecordsOneRowDescribingTheRecord() async throws {
        // Text that needs escaping in XML, and an empty field, make the payload's form visible.
        let shortDescription = #"Printer <on> fire & "smoking" ]]> again"#
        let created = try await sim.request(
            "POST", "/api/now/table/incident",
            body: Data(#"{"short_description":"Printer <on> fire & \"smoking\" ]]> again","close_notes":""}"#.utf8))
        #expect(created.status == 201)
        let sysId = try #require(created.resultObject["sys_id"] as? String)
        let number = try #require(created.resultObject["number"] as? String)
        #expect(created.resultObject["short_description"] as? String == shortDescription)
        #expect(try await auditRows().isEmpty)

        let before = Self.now()
        let deleted = try await sim.request("DELETE", "/api/now/table/incident/\(sysId)", user: "agent", password: "pw")
        let after = Self.now()
        #expect(deleted.status == 204)

        let rows = try await auditRows()
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["tablename"] as? String == "incident")
        #expect(row["documentkey"] as? String == sysId)
        #expect(row["display_value"] as? String == number)
        #expect(row["sys_class_name"] as? String == "sys_audit_delete")
        #expect(row["sys_created_by"] as? String == "agent")
        #expect(row["sys_updated_by"] as? String == "agent")
        #expect(row["sys_mod_count"] as? String == "0")
        let auditId = try #require(row["sys_id"] as? String)
        #expect(auditId.count == 32 && auditId != sysId)
        // The deletion time comes from nowsim's clock, in the Table API's UTC format.
        let deletedOn = try #require(row["sys_created_on"] as? String)
        #expect(deletedOn.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"#, options: .regularExpression) != nil)
        #expect(before <= deletedOn && deletedOn <= after, "\(before) … \(deletedOn) … \(after)")
        #expect(row["sys_updated_on"] as? String == deletedOn)

        // The payload is the record as XML: an element named after its class, one child per column.
        let payload = try #require(row["payload"] as? String)
        #expect(payload.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?><incident>"#))
        let fields = try PayloadFields(payload)
        #expect(fields.root == "incident")
        #expect(fields.values["sys_id"] == sysId)
        #expect(fields.values["number"] == number)
        #expect(fields.values["sys_class_name"] == "incident")
        #expect(fields.values["short_description"] == shortDescription)
        #expect(fields.values["close_notes"] == nil && fields.order.contains("close_notes"))
        #expect(payload.contains("<close_notes/>"))
        #expect(payload.contains("Printer &lt;on&gt; fire &amp; \"smoking\" ]]&gt; again"))
        // Every column is there, empty ones as empty elements; no column is repeated.
        let dictionary = try await sim.request(
            "/api/now/table/sys_dictionary",
            query: [("sysparm_query", "nameINtask,incident^elementISNOTEMPTY"), ("sysparm_fields", "element")])
        let columns = Set(dictionary.resultList.compactMap { $0["element"] as? String })
        #expect(columns.count > 40)
        #expect(Set(fields.order) == columns)
        #expect(fields.order.count == columns.count)
        #expect(fields.order == fields.order.sorted())

        // The record is gone; a second delete finds nothing and records nothing.
        #expect(try await sim.request("/api/now/table/incident/\(sysId)").status == 404)
        #expect(try await sim.request("DELETE", "/api/now/table/incident/\(sysId)").status == 404)
        #expect(try await sim.request("DELETE", "/api/now/table/incident/\(Self.missing)").status == 404)
        #expect(try await auditCount() == 1)
    }

    @Test func aDeleteThroughTheParentTableRecordsTheRecordsOwnClass() async throws {
        let incident = try #require(try await records("incident", count: 1).first)
        let problem = try #require(try await records("problem", count: 1).first)
        for record in [incident, problem] {
            let sysId = try #require(record["sys_id"] as? String)
            #expect(try await sim.request("DELETE", "/api/now/table/task/\(sysId)").status == 204)
        }
        let rows = try await auditRows()
        #expect(rows.count == 2)
        for record in [incident, problem] {
            let row = try #require(rows.first { $0["documentkey"] as? String == record["sys_id"] as? String })
            #expect(row["tablename"] as? String == record["sys_class_name"] as? String)
            #expect(row["display_value"] as? String == record["number"] as? String)
            let fields = try PayloadFields(try #require(row["payload"] as? String))
            #expect(fields.root == record["sys_class_name"] as? String)
        }
        #expect(rows.contains { $0["tablename"] as? String == "incident" })
        #expect(rows.contains { $0["tablename"] as? String == "problem" })
        #expect(!rows.contains { $0["tablename"] as? String == "task" })
        // A record of another class is not found through a sibling table: nothing is deleted or recorded.
        let other = try #require(try await records("incident", count: 1).first?["sys_id"] as? String)
        #expect(try await sim.request("DELETE", "/api/now/table/problem/\(other)").status == 404)
        #expect(try await sim.request("/api/now/table/incident/\(other)").status == 200)
        #expect(try await auditCount() == 2)
    }

    @Test func aRefusedDeleteRecordsNothing() async throws {
        let sysId = try #require(try await records("incident", count: 1).first?["sys_id"] as? String)
        // snc_read_only may not write: the record stays and nothing is recorded.
        let refused = try await sim.request(
            "DELETE", "/api/now/table/incident/\(sysId)", user: "reader", password: "pw")
        #expect(refused.status == 403)
        #expect(try await sim.request("/api/now/table/incident/\(sysId)").status == 200)
        #expect(try await auditCount() == 0)
    }

    @Test func theDeleteAndItsAuditRowCommitTogether() async throws {
        let sysId = try #require(try await records("incident", count: 1).first?["sys_id"] as? String)
        // A trigger (outside nowsim) makes the audit insert fail: the delete must roll back with it.
        let connection = try SQLiteConnection(path: sim.databasePath)
        try connection.execute(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON sys_audit_delete BEGIN SELECT RAISE(ABORT, 'audit refused'); END"
        )
        let failed = try await sim.request("DELETE", "/api/now/table/incident/\(sysId)")
        #expect(failed.status == 500)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("audit refused"))
        #expect(try await sim.request("/api/now/table/incident/\(sysId)").status == 200)
        #expect(try await auditCount() == 0)

        try connection.execute("DROP TRIGGER refuse_audit")
        #expect(try await sim.request("DELETE", "/api/now/table/incident/\(sysId)").status == 204)
        #expect(try await sim.request("/api/now/table/incident/\(sysId)").status == 404)
        #expect(try await auditRows().map { $0["documentkey"] as? String } == [sysId])
    }

    @Test func batchDeletesAreRecordedToo() async throws {
        let incidents = try await records("incident", count: 2)
        let problem = try #require(try await records("problem", count: 1).first)
        let targets = [
            ("d1", "/api/now/table/incident/\(incidents[0]["sys_id"] as? String ?? "")"),
            ("d2", "/api/now/table/task/\(problem["sys_id"] as? String ?? "")"),
            ("d3", "/api/now/table/incident/\(Self.missing)"),
            ("d4", "/api/now/v2/table/incident/\(incidents[1]["sys_id"] as? String ?? "")"),
        ]
        let items = targets.map { #"{"id":"\#($0.0)","method":"DELETE","url":"\#($0.1)"}"# }
        let body = #"{"batch_request_id":"deletes","rest_requests":[\#(items.joined(separator: ","))]}"#
        let response = try await sim.request(
            "POST", "/api/now/v1/batch", body: Data(body.utf8), user: "agent", password: "pw")
        #expect(response.status == 200)
        let served = try #require((response.json as? [String: Any])?["serviced_requests"] as? [[String: Any]])
        let statuses = Dictionary(
            uniqueKeysWithValues: served.compactMap { entry in
                (entry["id"] as? String).map { ($0, entry["status_code"] as? Int) }
            })
        #expect(statuses == ["d1": 204, "d2": 204, "d3": 404, "d4": 204])

        let rows = try await auditRows()
        #expect(rows.count == 3)
        let expected = [incidents[0], problem, incidents[1]].compactMap { $0["sys_id"] as? String }
        #expect(Set(rows.compactMap { $0["documentkey"] as? String }) == Set(expected))
        #expect(rows.allSatisfy { $0["sys_created_by"] as? String == "agent" })
        let problemRow = try #require(rows.first { $0["documentkey"] as? String == problem["sys_id"] as? String })
        #expect(problemRow["tablename"] as? String == "problem")
        #expect(!rows.contains { $0["documentkey"] as? String == Self.missing })
    }

    @Test func theAuditIsQueriedLikeAnyTable() async throws {
        let incidents = try await records("incident", count: 5)
        let problems = try await records("problem", count: 2)
        let start = Self.now()
        for record in incidents + problems {
            let sysId = try #require(record["sys_id"] as? String)
            #expect(try await sim.request("DELETE", "/api/now/table/task/\(sysId)").status == 204)
        }
        #expect(try await auditCount() == 7)

        // The incremental reader's query: one table since a time, in (time, sys_id) order, some fields.
        let query = "tablename=incident^sys_created_on>=\(start)^ORDERBYsys_created_on^ORDERBYsys_id"
        let fields = "sys_id,documentkey,sys_created_on"
        let page = try await sim.request(
            "/api/now/table/sys_audit_delete",
            query: [("sysparm_query", query), ("sysparm_fields", fields), ("sysparm_limit", "3")])
        #expect(page.status == 200)
        #expect(page.header("X-Total-Count") == "5")
        #expect(page.resultList.count == 3)
        #expect(page.resultList.allSatisfy { Set($0.keys) == ["sys_id", "documentkey", "sys_created_on"] })
        let keys = page.resultList.map { "\($0["sys_created_on"] as? String ?? "")|\($0["sys_id"] as? String ?? "")" }
        #expect(keys == keys.sorted())

        // Keyset paging on sys_id reads every incident deletion exactly once.
        var seen: [String] = []
        var last = ""
        while true {
            let keyset = "tablename=incident" + (last.isEmpty ? "" : "^sys_id>\(last)") + "^ORDERBYsys_id"
            let next = try await sim.request(
                "/api/now/table/sys_audit_delete",
                query: [("sysparm_query", keyset), ("sysparm_fields", "sys_id,documentkey"), ("sysparm_limit", "2")])
            let rows = next.resultList
            if rows.isEmpty { break }
            seen += rows.compactMap { $0["documentkey"] as? String }
            last = try #require(rows.last?["sys_id"] as? String)
            #expect(seen.count <= 5)
            if seen.count > 5 { break }
        }
        #expect(Set(seen) == Set(incidents.compactMap { $0["sys_id"] as? String }))
        #expect(seen.count == 5)

        // A time after the deletions matches none of them.
        let later = try await sim.request(
            "/api/now/table/sys_audit_delete", query: [("sysparm_query", "sys_created_on>2999-01-01 00:00:00")])
        #expect(later.header("X-Total-Count") == "0")
        let byTable = try await sim.request(
            "/api/now/stats/sys_audit_delete",
            query: [("sysparm_count", "true"), ("sysparm_group_by", "tablename")])
        let groups = try #require(byTable.json as? [String: Any])["result"] as? [[String: Any]]
        let counts = Dictionary(
            uniqueKeysWithValues: (groups ?? []).compactMap { group -> (String, String)? in
                let field = (group["groupby_fields"] as? [[String: Any]])?.first?["value"] as? String
                let count = (group["stats"] as? [String: Any])?["count"] as? String
                guard let field, let count else { return nil }
                return (field, count)
            })
        #expect(counts == ["incident": "5", "problem": "2"])
    }

    @Test func theDictionaryDescribesTheAuditTable() async throws {
        let table = try await sim.request(
            "/api/now/table/sys_db_object",
            query: [("sysparm_query", "name=sys_audit_delete"), ("sysparm_fields", "name,super_class")])
        #expect(table.resultList.count == 1)
        #expect(table.resultList.first?["super_class"] as? String == "")
        let dictionary = try await sim.request(
            "/api/now/table/sys_dictionary",
            query: [
                ("sysparm_query", "name=sys_audit_delete^elementISNOTEMPTY"),
                ("sysparm_fields", "element,internal_type"),
            ])
        var types: [String: String] = [:]
        for row in dictionary.resultList {
            if let element = row["element"] as? String { types[element] = row["internal_type"] as? String }
        }
        for (element, type) in [
            ("tablename", "table_name"), ("documentkey", "GUID"), ("display_value", "string"), ("payload", "string"),
            ("sys_id", "GUID"), ("sys_created_on", "glide_date_time"), ("sys_created_by", "string"),
            ("sys_updated_on", "glide_date_time"), ("sys_mod_count", "integer"), ("sys_class_name", "sys_class_name"),
        ] {
            #expect(types[element] == type, "\(element)")
        }
    }

    @Test func onlyAdminReadsTheAuditByDefault() async throws {
        let sysId = try #require(try await records("incident", count: 1).first?["sys_id"] as? String)
        #expect(
            try await sim.request("DELETE", "/api/now/table/incident/\(sysId)", user: "agent", password: "pw").status
                == 204)
        let auditId = try #require(try await auditRows().first?["sys_id"] as? String)
        for user in ["agent", "reader"] {
            for (path, query) in [
                ("/api/now/table/sys_audit_delete", [("sysparm_query", "tablename=incident")]),
                ("/api/now/table/sys_audit_delete/\(auditId)", []),
                ("/api/now/stats/sys_audit_delete", [("sysparm_count", "true")]),
            ] {
                let denied = try await sim.request(path, query: query, user: user, password: "pw")
                #expect(denied.status == 403, "\(user) \(path)")
                #expect(String(decoding: denied.body, as: UTF8.self) == Self.insufficientRights, "\(user) \(path)")
            }
            // The same users read other tables.
            #expect(try await sim.request("/api/now/table/incident", user: user, password: "pw").status == 200)
        }
        #expect(try await sim.request("/api/now/table/sys_audit_delete/\(auditId)").status == 200)
        // Removing an audit row (admin) is not itself recorded.
        #expect(try await sim.request("DELETE", "/api/now/table/sys_audit_delete/\(auditId)").status == 204)
        #expect(try await auditCount() == 0)
    }

    @Test func aTableRuleOnTheAuditReplacesTheDefault() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=3", "--user", "admin:admin:admin", "--user", "auditor:pw:itil:auditor",
            "--user", "agent:pw:itil", "--table-acl", "sys_audit_delete=auditor",
        ]) { sim in
            let list = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_limit", "1"), ("sysparm_fields", "sys_id")])
            let sysId = try #require(list.resultList.first?["sys_id"] as? String)
            #expect(
                try await sim.request("DELETE", "/api/now/table/incident/\(sysId)", user: "agent", password: "pw")
                    .status == 204)
            let allowed = try await sim.request("/api/now/table/sys_audit_delete", user: "auditor", password: "pw")
            #expect(allowed.status == 200)
            #expect(allowed.resultList.map { $0["documentkey"] as? String } == [sysId])
            let denied = try await sim.request("/api/now/table/sys_audit_delete", user: "agent", password: "pw")
            #expect(denied.status == 403)
            #expect(String(decoding: denied.body, as: UTF8.self) == Self.insufficientRights)
        }
    }

    @Test func theHarnessDefaultUserIsAdminAndReadsTheAudit() async throws {
        // No --user: nowsim's one user is admin/admin with role admin, which reads the audit.
        try await withNowSim(arguments: ["--seed", "incident=2"]) { sim in
            let audit = try await sim.request("/api/now/table/sys_audit_delete")
            #expect(audit.status == 200)
            #expect(audit.resultList.isEmpty)
            #expect(try await sim.request("/api/now/table/incident", user: "etl", password: "pw").status == 401)
        }
    }
}

/// The child elements of a `sys_audit_delete` payload, parsed with Foundation's XML parser.
private struct PayloadFields {
    var root = ""
    /// Element names in document order.
    var order: [String] = []
    /// Text of the non-empty elements.
    var values: [String: String] = [:]

    init(_ payload: String) throws {
        let delegate = Collector()
        let parser = XMLParser(data: Data(payload.utf8))
        parser.delegate = delegate
        guard parser.parse() else {
            throw PayloadError(description: "payload does not parse: \(String(describing: parser.parserError))")
        }
        root = delegate.root
        order = delegate.order
        values = delegate.values
    }

    struct PayloadError: Error, CustomStringConvertible {
        var description: String
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var root = ""
        var order: [String] = []
        var values: [String: String] = [:]
        private var depth = 0
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            if depth == 1 { root = elementName } else { order.append(elementName) }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if depth == 2 && !text.isEmpty { values[elementName] = text }
            depth -= 1
            text = ""
        }
    }
}
