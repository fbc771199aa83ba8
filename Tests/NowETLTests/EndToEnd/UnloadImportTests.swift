import Foundation
import NowSimTesting
import Testing

/// The demo pipeline's XML unload is what an instance imports: the table's field names with stored
/// values, `display_value` attributes on references and choices, and `sys_id`, whatever `columns:`
/// says. Run with the real `nowetl` against the real `nowsim`, read by python3's xml.etree and
/// imported back (INSERT_OR_UPDATE) through nowsim's XML request bodies.
@Suite(.timeLimit(.minutes(5))) struct UnloadImportTests {
    static let seed = seededNowSim("incident=300,problem=40", value: 11)

    /// What the unload of each demo table must hold: its `fields:` plus `sys_id`, sorted, and which of
    /// them are references or choices.
    static let expected: [String: (fields: [String], withDisplayValue: Set<String>)] = [
        "incident": (
            [
                "assignment_group", "caller_id", "number", "opened_at", "priority", "short_description", "state",
                "sys_id", "sys_updated_on",
            ], ["assignment_group", "caller_id", "priority", "state"]
        ),
        "problem": (
            ["number", "opened_at", "priority", "short_description", "state", "sys_id"], ["priority", "state"]
        ),
    ]

    /// One record of an unload file as python3 reads it, with the record's XML for the import.
    struct UnloadRecord: Decodable {
        var table: String
        var action: String?
        var sysID: String?
        var fields: [[String]]
        var displayValues: [String: String]
        var xml: String

        enum CodingKeys: String, CodingKey {
            case table, action, fields, xml
            case sysID = "sys_id"
            case displayValues = "display_values"
        }
    }

    static let reader = """
        import json, sys
        import xml.etree.ElementTree as ET
        root = ET.parse(sys.argv[1]).getroot()
        assert root.tag == "unload" and "unload_date" in root.attrib, root.tag
        records = []
        for record in root:
            record.tail = None
            records.append({
                "table": record.tag, "action": record.attrib.get("action"), "sys_id": record.findtext("sys_id"),
                "fields": [[field.tag, field.text or ""] for field in record],
                "display_values": {f.tag: f.attrib["display_value"] for f in record if "display_value" in f.attrib},
                # ElementTree writes a CR of the text raw, which XML parsers turn into LF: keep it a reference.
                "xml": ET.tostring(record, encoding="unicode").replace("\\r", "&#13;"),
            })
        sys.stdout.write(json.dumps(records, ensure_ascii=True))
        """

    static func read(_ path: String) async throws -> [UnloadRecord] {
        let out = try await SinkTestSupport.output("python3", ["-c", reader, path])
        return try JSONDecoder().decode([UnloadRecord].self, from: out)
    }

    /// sys_id → field → (value, display value), read from the instance with `display_value=all`.
    static func source(_ sim: NowSimInstance, table: String) async throws -> [String: [String: [String]]] {
        let page = try await sim.request(
            "/api/now/table/\(table)",
            query: [
                ("sysparm_display_value", "all"), ("sysparm_exclude_reference_link", "true"),
                ("sysparm_fields", expected[table]!.fields.joined(separator: ",")), ("sysparm_limit", "10000"),
            ])
        try #require(page.status == 200)
        var records: [String: [String: [String]]] = [:]
        for record in page.resultList {
            var fields: [String: [String]] = [:]
            for (name, forms) in record {
                let forms = forms as? [String: Any] ?? [:]
                fields[name] = [forms["value"] as? String ?? "", forms["display_value"] as? String ?? ""]
            }
            if let sysID = fields["sys_id"]?[0] { records[sysID] = fields }
        }
        return records
    }

    /// Imports `records` as "Import XML" does (INSERT_OR_UPDATE): an insert, or an update of the record
    /// with that sys_id when it exists. Returns how many were inserted.
    static func importUnload(_ records: [UnloadRecord], into sim: NowSimInstance) async throws -> Int {
        var inserted = 0
        let headers = ["Content-Type": "application/xml"]
        for record in records {
            let body = Data(record.xml.utf8)
            let insert = try await sim.request("POST", "/api/now/table/\(record.table)", headers: headers, body: body)
            if insert.status == 201 {
                inserted += 1
                continue
            }
            let sysID = try #require(record.sysID, "a record without sys_id cannot be updated")
            let update = try await sim.request(
                "PUT", "/api/now/table/\(record.table)/\(sysID)", headers: headers, body: body)
            #expect(update.status == 200, "\(String(decoding: update.body, as: UTF8.self))")
        }
        return inserted
    }

    /// Where `actual` differs from `expected`: the first few `sys_id.field: actual ≠ expected`.
    static func differences(_ actual: [String: [String: String]], _ expected: [String: [String: String]]) -> [String] {
        var found: [String] = []
        for sysID in Set(actual.keys).union(expected.keys).sorted() {
            let fields = Set(actual[sysID]?.keys ?? [:].keys).union(expected[sysID]?.keys ?? [:].keys)
            for field in fields.sorted() where actual[sysID]?[field] != expected[sysID]?[field] {
                found.append(
                    "\(sysID).\(field): \(actual[sysID]?[field] ?? "<none>") ≠ \(expected[sysID]?[field] ?? "<none>")")
            }
        }
        return Array(found.prefix(5))
    }

    /// The stored values of `source` without `sys_updated_on` (every write sets it).
    static func storedValues(_ source: [String: [String: [String]]]) -> [String: [String: String]] {
        source.mapValues { fields in
            var values = fields.mapValues { $0[0] }
            values["sys_updated_on"] = nil
            return values
        }
    }

    @Test func theDemoUnloadIsWellFormedAndImportsWithoutDuplicates() async throws {
        try await withNowSim(arguments: Self.seed) { sim in
            try await withScratchDirectory { (directory: URL) in
                let environment = [
                    "SN_INSTANCE": sim.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin",
                ]
                let demo = RepositoryPipelines.path("demo.yaml")
                let run = try await NowETLProcess.run(
                    ["run", demo, "--progress", "off", "--output-dir", "out/demo"], in: directory,
                    environment: environment
                ).textual
                try #require(run.status == 0, "\(run.stderr)")

                // The columns still shape CSV.
                let csv = try await SinkTestSupport.gunzip(
                    directory.appendingPathComponent("out/demo/incident.csv.gz").path)
                #expect(
                    String(decoding: csv.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
                        == "sys_id,number,short_description,caller,caller_sys_id,priority,priority_label,state,"
                        + "assignment_group,opened_at,sys_updated_on")

                for table in ["incident", "problem"] {
                    let path = directory.appendingPathComponent("out/demo/\(table).xml").path
                    let lint = try await Subprocess.run("/usr/bin/xmllint", ["--noout", path], directory: directory)
                        .textual
                    #expect(lint.status == 0, "\(lint.stderr)")
                    let records = try await Self.read(path)
                    let source = try await Self.source(sim, table: table)
                    #expect(records.count == source.count && !records.isEmpty)
                    let (fields, withDisplayValue) = Self.expected[table]!
                    for record in records {
                        #expect(record.table == table && record.action == "INSERT_OR_UPDATE")
                        #expect(record.fields.map { $0[0] } == fields)
                        #expect(Set(record.displayValues.keys) == withDisplayValue)
                        let original = try #require(
                            source[record.sysID ?? ""], "unknown sys_id \(record.sysID ?? "none")")
                        for field in record.fields {
                            #expect(field[1] == original[field[0]]?[0], "\(table).\(field[0]) stored value")
                        }
                        for (field, display) in record.displayValues {
                            #expect(display == original[field]?[1], "\(table).\(field) display value")
                        }
                    }
                    // A choice's label is in the attribute, its value in the element.
                    let closed = records.first { $0.displayValues["state"] == "Closed" }
                    #expect(closed.map { record in record.fields.first { $0[0] == "state" }?[1] != "Closed" } ?? false)

                    // Into the instance it came from: every record updated, none added, nothing changed.
                    let before = Self.storedValues(source)
                    #expect(try await Self.importUnload(records, into: sim) == 0)
                    #expect(Self.differences(Self.storedValues(try await Self.source(sim, table: table)), before) == [])

                    // Into an empty instance, twice: the second import inserts nothing.
                    let empty = ["--seed", "incident=0,problem=0", "--user", "admin:admin:admin"]
                    let (first, second, imported) = try await withNowSim(arguments: empty) { empty in
                        (
                            try await Self.importUnload(records, into: empty),
                            try await Self.importUnload(records, into: empty),
                            try await Self.source(empty, table: table)
                        )
                    }
                    #expect(first == records.count)
                    #expect(second == 0)
                    #expect(Self.differences(Self.storedValues(imported), before) == [])
                }
            }
        }
    }
}
