import Foundation
import NowSimTesting
import Testing

/// `nowsim import --db PATH FILE.xml…` and `POST /api/nowsim/import`: unload XML applied with an
/// instance's INSERT_OR_UPDATE semantics — sys_ids and system fields kept, the element name is the
/// class, unknown fields ignored and counted, DELETE by sys_id, one transaction per document — checked
/// through the Table API of the real `nowsim` binary. (The round trip from a `nowetl` export is in
/// NowETLTests' `UnloadMigrationTests`.)
@Suite(.timeLimit(.minutes(5))) struct UnloadImportTests {
    static let callerID = "5137153cc611227c000bbd1bd8cd2005"
    static let incidentID = "8d6353eac0a8016400d8a125ca14fc1f"
    static let problemID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let taskIncidentID = "0f0e0d0c0b0a09080706050403020100"
    /// Awkward text as the document carries it (`&#13;` is a carriage return that survives parsing)…
    static let awkwardXML = "Quote \" apos ' &lt;tag&gt; &amp; ]]&gt; 日本語 Русский 🚀 =SUM(A1)&#13;\nline 2\tend "
    /// … and as it must be stored.
    static let awkward = "Quote \" apos ' <tag> & ]]> 日本語 Русский 🚀 =SUM(A1)\r\nline 2\tend "

    /// A user, an incident referring to it (with a display value to ignore and a field the table does
    /// not have), a problem, and an incident exported from `task`.
    static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <unload unload_date="2026-11-30 02:00:00">
        <sys_user action="INSERT_OR_UPDATE">
        <name>Fred Luddy</name>
        <sys_created_by>maint</sys_created_by>
        <sys_created_on>2015-01-02 03:04:05</sys_created_on>
        <sys_id>\(callerID)</sys_id>
        <sys_mod_count>7</sys_mod_count>
        <sys_updated_by>fred</sys_updated_by>
        <sys_updated_on>2016-02-03 04:05:06</sys_updated_on>
        <user_name>fred.luddy</user_name>
        </sys_user>
        <incident action="INSERT_OR_UPDATE">
        <active>true</active>
        <caller_id display_value="Somebody Else">\(callerID)</caller_id>
        <description><![CDATA[first line
        <b>not markup</b> & more]]></description>
        <number>INC0099001</number>
        <parent display_value=""/>
        <short_description>\(awkwardXML)</short_description>
        <sys_class_name>incident</sys_class_name>
        <sys_created_by>alice</sys_created_by>
        <sys_created_on>2016-02-06 22:08:24</sys_created_on>
        <sys_id>\(incidentID)</sys_id>
        <sys_mod_count>44</sys_mod_count>
        <sys_updated_by>bob</sys_updated_by>
        <sys_updated_on>2018-01-30 06:43:08</sys_updated_on>
        <u_legacy_code>X-1</u_legacy_code>
        </incident>
        <problem action="INSERT_OR_UPDATE">
        <number>PRB0099001</number>
        <short_description>  padded  </short_description>
        <sys_id>\(problemID)</sys_id>
        </problem>
        <task action="INSERT_OR_UPDATE">
        <number>INC0099002</number>
        <sys_class_name>incident</sys_class_name>
        <sys_id>\(taskIncidentID)</sys_id>
        </task>
        </unload>

        """

    static let incidentFields = [
        "active", "caller_id", "description", "number", "parent", "short_description", "sys_class_name",
        "sys_created_by", "sys_created_on", "sys_id", "sys_mod_count", "sys_updated_by", "sys_updated_on",
    ]

    /// What the incident must read as: every value as the document gave it.
    static let expectedIncident: [String: String] = [
        "active": "true", "caller_id": callerID, "description": "first line\n<b>not markup</b> & more",
        "number": "INC0099001", "parent": "", "short_description": awkward, "sys_class_name": "incident",
        "sys_created_by": "alice", "sys_created_on": "2016-02-06 22:08:24", "sys_id": incidentID,
        "sys_mod_count": "44", "sys_updated_by": "bob", "sys_updated_on": "2018-01-30 06:43:08",
    ]

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowsim-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func write(_ text: String, to directory: URL, as name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func nowsimImport(_ arguments: [String]) async throws -> SubprocessResult {
        try await Subprocess.run(NowSimInstance.binaryPath(), ["import"] + arguments, timeout: 120)
    }

    /// The record's fields (stored values, no reference links), or `nil` when it is not there.
    static func record(_ sim: NowSimInstance, _ table: String, _ sysID: String, fields: [String]) async throws
        -> [String: String]?
    {
        let response = try await sim.request(
            "/api/now/table/\(table)/\(sysID)",
            query: [("sysparm_fields", fields.joined(separator: ",")), ("sysparm_exclude_reference_link", "true")])
        guard response.status == 200 else { return nil }
        return response.resultObject.compactMapValues { $0 as? String }
    }

    static func count(_ sim: NowSimInstance, _ table: String, _ query: String = "") async throws -> Int {
        let response = try await sim.request(
            "/api/now/stats/\(table)", query: [("sysparm_count", "true"), ("sysparm_query", query)])
        let stats = response.resultObject["stats"] as? [String: Any]
        return Int(stats?["count"] as? String ?? "") ?? -1
    }

    @Test func theCommandKeepsSysIDsAndSystemFieldsAndUpdatesOnTheSecondImport() async throws {
        try await withScratchDirectory { (directory: URL) in
            let file = try Self.write(Self.document, to: directory, as: "records.xml")
            try await withNowSim { sim in
                let first = try await Self.nowsimImport(["--db", sim.databasePath, file])
                try #require(first.status == 0, "\(first.output)")
                #expect(first.stdoutText.contains("\(file): imported 4 records"), "\(first.output)")
                #expect(
                    first.stdoutText.contains(
                        "incident: 2 inserted, 0 updated, 0 deleted, 0 not found, 1 ignored field values (u_legacy_code)"
                    ),
                    "\(first.output)")
                #expect(first.stdoutText.contains("problem: 1 inserted, 0 updated"), "\(first.output)")
                #expect(first.stdoutText.contains("sys_user: 1 inserted, 0 updated"), "\(first.output)")

                // The running instance reads what was imported into its database, exactly as given.
                let incident = try await Self.record(sim, "incident", Self.incidentID, fields: Self.incidentFields)
                #expect(incident == Self.expectedIncident)
                let user = try await Self.record(
                    sim, "sys_user", Self.callerID,
                    fields: [
                        "user_name", "sys_created_on", "sys_updated_on", "sys_created_by", "sys_updated_by",
                        "sys_mod_count",
                    ])
                #expect(
                    user == [
                        "user_name": "fred.luddy", "sys_created_on": "2015-01-02 03:04:05",
                        "sys_updated_on": "2016-02-03 04:05:06", "sys_created_by": "maint", "sys_updated_by": "fred",
                        "sys_mod_count": "7",
                    ])
                // The reference resolves to the imported user: its display value is the user's, not the file's.
                let shown = try await sim.request(
                    "/api/now/table/incident/\(Self.incidentID)",
                    query: [("sysparm_fields", "caller_id"), ("sysparm_display_value", "true")])
                #expect(
                    String(decoding: shown.body, as: UTF8.self).contains("\"display_value\":\"Fred Luddy\""),
                    "\(String(decoding: shown.body, as: UTF8.self))")
                // A record missing system fields gets the import's; its given fields stick (whitespace too).
                let problem = try await Self.record(
                    sim, "problem", Self.problemID,
                    fields: [
                        "short_description", "sys_class_name", "sys_created_by", "sys_mod_count", "sys_created_on",
                    ])
                #expect(problem?["short_description"] == "  padded  ")
                #expect(problem?["sys_class_name"] == "problem")
                #expect(problem?["sys_created_by"] == "admin")
                #expect(problem?["sys_mod_count"] == "0")
                #expect(problem?["sys_created_on"]?.count == 19)
                // The record under <task> with sys_class_name incident is an incident.
                let fromTask = try await Self.record(
                    sim, "incident", Self.taskIncidentID, fields: ["number", "sys_class_name"])
                #expect(fromTask == ["number": "INC0099002", "sys_class_name": "incident"])

                // Again: every record updated, none added, the system fields still the file's.
                let second = try await Self.nowsimImport(["--db", sim.databasePath, file])
                try #require(second.status == 0, "\(second.output)")
                #expect(second.stdoutText.contains("incident: 0 inserted, 2 updated"), "\(second.output)")
                #expect(second.stdoutText.contains("problem: 0 inserted, 1 updated"), "\(second.output)")
                #expect(second.stdoutText.contains("sys_user: 0 inserted, 1 updated"), "\(second.output)")
                #expect(try await Self.count(sim, "incident") == 2)
                #expect(try await Self.count(sim, "sys_user", "user_name=fred.luddy") == 1)
                #expect(
                    try await Self.record(sim, "incident", Self.incidentID, fields: Self.incidentFields)
                        == Self.expectedIncident)
            }
        }
    }

    @Test func aDeleteActionRemovesTheRecordAndRecordsTheDeletion() async throws {
        try await withScratchDirectory { (directory: URL) in
            let file = try Self.write(Self.document, to: directory, as: "records.xml")
            let deletions = try Self.write(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <unload unload_date="2026-11-30 03:00:00">
                <incident action="DELETE"><sys_id>\(Self.incidentID)</sys_id></incident>
                <incident action="DELETE"><sys_id>ffffffffffffffffffffffffffffffff</sys_id></incident>
                </unload>
                """, to: directory, as: "deletions.xml")
            try await withNowSim { sim in
                let result = try await Self.nowsimImport([
                    "--db", sim.databasePath, "--user", "migrator", file, deletions,
                ])
                try #require(result.status == 0, "\(result.output)")
                #expect(
                    result.stdoutText.contains("incident: 0 inserted, 0 updated, 1 deleted, 1 not found"),
                    "\(result.output)")
                #expect(try await Self.record(sim, "incident", Self.incidentID, fields: ["number"]) == nil)
                #expect(try await Self.record(sim, "incident", Self.taskIncidentID, fields: ["number"]) != nil)
                #expect(
                    try await Self.count(
                        sim, "sys_audit_delete",
                        "documentkey=\(Self.incidentID)^tablename=incident^sys_created_by=migrator"
                    ) == 1)
            }
        }
    }

    @Test func aGzipFileIsReadAsItIs() async throws {
        try await withScratchDirectory { (directory: URL) in
            let file = try Self.write(Self.document, to: directory, as: "records.xml")
            let zipped = try await Subprocess.run(Subprocess.tool("gzip"), [file])
            try #require(zipped.status == 0, "\(zipped.output)")
            let database = directory.appendingPathComponent("target.sqlite").path
            let result = try await Self.nowsimImport(["--db", database, file + ".gz"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdoutText.contains("\(file).gz: imported 4 records"), "\(result.output)")
        }
    }

    /// A broken document names file:line and leaves the database as it was, also the records before
    /// the break; earlier files of the same command stay imported.
    @Test(arguments: [
        (
            "<incident action=\"INSERT_OR_UPDATE\"><sys_id>0123456789abcdef0123456789abcdef</sys_id>\n<number>INC1</numbr>\n</incident>",
            4, "mismatch"
        ),
        (
            "<incdent action=\"INSERT_OR_UPDATE\"><sys_id>0123456789abcdef0123456789abcdef</sys_id></incdent>", 3,
            "unknown table 'incdent'"
        ),
        (
            "<incident action=\"INSERT\"><sys_id>0123456789abcdef0123456789abcdef</sys_id></incident>", 3,
            "action \"INSERT\""
        ),
        ("<incident action=\"INSERT_OR_UPDATE\"><number>INC1</number></incident>", 3, "has no sys_id"),
        (
            "<incident action=\"INSERT_OR_UPDATE\"><sys_id>0123456789abcdef0123456789abcdef</sys_id><sys_class_name>problem</sys_class_name></incident>",
            3, "sys_class_name 'problem'"
        ),
        (
            "<incident action=\"INSERT_OR_UPDATE\"><sys_id>0123456789abcdef0123456789abcdef</sys_id><number><b>x</b></number></incident>",
            3, "unexpected element <b>"
        ),
    ])
    func aBadDocumentNamesFileAndLineAndChangesNothing(body: String, line: Int, message: String) async throws {
        try await withScratchDirectory { (directory: URL) in
            let good = try Self.write(Self.document, to: directory, as: "good.xml")
            // A valid record first: it must not stay behind when the document fails.
            let bad = try Self.write(
                "<unload unload_date=\"2026-11-30 02:00:00\">\n<problem action=\"INSERT_OR_UPDATE\"><sys_id>\(Self.problemID)</sys_id><number>PRB0000001</number></problem>\n\(body)\n</unload>\n",
                to: directory, as: "bad.xml")
            try await withNowSim { sim in
                let result = try await Self.nowsimImport(["--db", sim.databasePath, good, bad])
                #expect(result.status == 1, "\(result.output)")
                #expect(result.stderrText.contains("\(bad):\(line): "), "\(result.output)")
                #expect(result.stderrText.contains(message), "\(result.output)")
                #expect(result.stderrText.contains("nothing of \(bad) was imported; imported before it: \(good)"))
                // good.xml is in (its problem number), bad.xml's problem update is not.
                #expect(
                    try await Self.record(sim, "problem", Self.problemID, fields: ["number"]) == [
                        "number": "PRB0099001"
                    ])
                #expect(try await Self.count(sim, "incident") == 2)
            }
        }
    }

    @Test func aMissingFileOrAMissingRootIsAnError() async throws {
        try await withScratchDirectory { (directory: URL) in
            let database = directory.appendingPathComponent("target.sqlite").path
            let missing = directory.appendingPathComponent("missing.xml").path
            let absent = try await Self.nowsimImport(["--db", database, missing])
            #expect(absent.status == 1)
            #expect(absent.stderrText.contains("\(missing): no such file"), "\(absent.output)")
            let records = try Self.write("<xml><incident/></xml>", to: directory, as: "records.xml")
            let wrongRoot = try await Self.nowsimImport(["--db", database, records])
            #expect(wrongRoot.status == 1)
            #expect(wrongRoot.stderrText.contains("\(records):1: the root element is <xml>"), "\(wrongRoot.output)")
            let withDTD = try Self.write(
                "<?xml version=\"1.0\"?>\n<!DOCTYPE unload [<!ENTITY a \"aaaa\">]>\n<unload/>\n", to: directory,
                as: "dtd.xml")
            let refused = try await Self.nowsimImport(["--db", database, withDTD])
            #expect(refused.status == 1)
            #expect(
                refused.stderrText.contains("\(withDTD): a DOCTYPE is not part of an unload document"),
                "\(refused.output)")
            let empty = try Self.write("", to: directory, as: "empty.xml")
            let nothing = try await Self.nowsimImport(["--db", database, empty])
            #expect(nothing.status == 1)
            #expect(nothing.stderrText.contains("\(empty):"), "\(nothing.output)")
        }
    }

    /// Imported records keep ids that are not 32 hex digits, as an instance's Import XML keeps them:
    /// they list, read by sys_id, page by keyset and import again as updates.
    @Test func oddSysIDsAreKeptAsImported() async throws {
        let ids = ["legacy-import-0001", "zz^NQsys_idISNOTEMPTY", "a.b_c-d.0001", "LEGACY_Import.2"]
        let document =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<unload unload_date=\"2026-11-30 02:00:00\">\n"
            + ids.enumerated().map { index, id in
                "<incident action=\"INSERT_OR_UPDATE\"><number>INC00990\(index)</number>"
                    + "<sys_id>\(id)</sys_id></incident>\n"
            }.joined() + "</unload>\n"
        try await withNowSim { sim in
            let xml = ["Content-Type": "application/xml"]
            let imported = try await sim.request("POST", "/api/nowsim/import", headers: xml, body: Data(document.utf8))
            #expect(imported.status == 200, "\(String(decoding: imported.body, as: UTF8.self))")
            let tables = imported.resultObject["tables"] as? [String: [String: Any]]
            #expect(tables?["incident"]?["inserted"] as? Int == ids.count)

            let listed = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_query", "ORDERBYsys_id"), ("sysparm_fields", "sys_id")])
            #expect(listed.resultList.compactMap { $0["sys_id"] as? String } == ids.sorted())
            for (index, id) in ids.enumerated() {
                let record = try await sim.request(
                    "/api/now/table/incident/\(NowSimInstance.encode(id))", query: [("sysparm_fields", "sys_id,number")]
                )
                #expect(record.status == 200, "\(id)")
                #expect(record.resultObject["sys_id"] as? String == id)
                #expect(record.resultObject["number"] as? String == "INC00990\(index)")
            }
            // A keyset page after an odd id is the ids above it.
            let after = try await sim.request(
                "/api/now/table/incident",
                query: [("sysparm_query", "sys_id>LEGACY_Import.2^ORDERBYsys_id"), ("sysparm_fields", "sys_id")])
            #expect(
                after.resultList.compactMap { $0["sys_id"] as? String }
                    == ids.sorted().filter { $0 > "LEGACY_Import.2" })

            let again = try await sim.request("POST", "/api/nowsim/import", headers: xml, body: Data(document.utf8))
            let updated = again.resultObject["tables"] as? [String: [String: Any]]
            #expect(updated?["incident"]?["updated"] as? Int == ids.count)
            #expect(try await Self.count(sim, "incident") == ids.count)
        }
    }

    @Test func theAdminEndpointImportsLikeTheCommandAndRefusesOthers() async throws {
        try await withNowSim(arguments: ["--user", "admin:admin:admin", "--user", "agent:agent:itil"]) { sim in
            let xml = ["Content-Type": "application/xml"]
            let refused = try await sim.request(
                "POST", "/api/nowsim/import", headers: xml, body: Data(Self.document.utf8), user: "agent",
                password: "agent")
            #expect(refused.status == 403)
            #expect(try await Self.record(sim, "incident", Self.incidentID, fields: ["number"]) == nil)

            let broken = try await sim.request(
                "POST", "/api/nowsim/import", headers: xml,
                body: Data(Self.document.replacingOccurrences(of: "</problem>", with: "</problme>").utf8))
            #expect(broken.status == 400)
            let detail = (broken.json as? [String: Any])?["error"] as? [String: Any]
            let brokenLine =
                try #require(
                    Self.document.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                        $0 == "</problem>"
                    }) + 1
            #expect(
                (detail?["detail"] as? String)?.hasPrefix("request body:\(brokenLine): ") == true,
                "\(String(decoding: broken.body, as: UTF8.self))")
            #expect(try await Self.record(sim, "sys_user", Self.callerID, fields: ["user_name"]) == nil)

            let imported = try await sim.request(
                "POST", "/api/nowsim/import", headers: xml, body: Data(Self.document.utf8))
            #expect(imported.status == 200, "\(String(decoding: imported.body, as: UTF8.self))")
            #expect(imported.resultObject["records"] as? Int == 4)
            let tables = imported.resultObject["tables"] as? [String: [String: Any]]
            #expect(tables?["incident"]?["inserted"] as? Int == 2)
            #expect(tables?["incident"]?["ignored_fields"] as? Int == 1)
            #expect(tables?["incident"]?["ignored_field_names"] as? [String] == ["u_legacy_code"])
            #expect(
                try await Self.record(sim, "incident", Self.incidentID, fields: Self.incidentFields)
                    == Self.expectedIncident)

            let again = try await sim.request(
                "POST", "/api/nowsim/import", headers: xml, body: Data(Self.document.utf8))
            let updated = again.resultObject["tables"] as? [String: [String: Any]]
            #expect(updated?["incident"]?["updated"] as? Int == 2)
            #expect(updated?["incident"]?["inserted"] as? Int == 0)
            #expect(try await Self.count(sim, "incident") == 2)

            let get = try await sim.request("/api/nowsim/import")
            #expect(get.status == 405)
        }
    }
}
