import Foundation
import NowSimTesting
import Testing

/// The `choice_labels: true` runs of the database suites: what `incident__choices` must hold, computed
/// here from nowsim's own Table API answer for `sys_choice` (never from nowetl's code), and the edits
/// that make the case interesting (an awkward label, a second language, an inactive override).
enum ChoiceLabelsEndToEnd {
    /// One row of a choices table, or of the expectation.
    struct Choice: Hashable, Comparable, CustomStringConvertible {
        var element: String
        var value: String
        var label: String
        var language: String
        var sequence: Int?
        var dependentValue: String?

        static func < (left: Choice, right: Choice) -> Bool { left.description < right.description }

        var description: String {
            [element, value, label, language, sequence.map(String.init) ?? "∅", dependentValue ?? "∅"]
                .joined(separator: "|")
        }

        /// A row as `sqlite3 -json` or PostgreSQL's `json_agg` gives it.
        init(json row: [String: Any]) {
            element = row["element"] as? String ?? "?"
            value = row["value"] as? String ?? "?"
            label = row["label"] as? String ?? "?"
            language = row["language"] as? String ?? "?"
            sequence = row["sequence"] as? Int
            dependentValue = row["dependent_value"] as? String
        }
    }

    /// The label that must survive unchanged: quotes, a backslash, SQL, a tab, emoji (4-byte UTF-8).
    static let awkwardLabel = "It's \"quoted\" \\ '); DROP TABLE incident; --\tok 🎉👩‍💻"

    /// Adds the rows the suites need beside nowsim's seeded choices: on incident, a category with
    /// `awkwardLabel`; on task, a German priority label (inherited by incident, priority being task's
    /// alone); on incident, an inactive impact choice (which must not take impact over from task).
    static func addChoices(_ sim: NowSimInstance) async throws {
        let rows: [[String: String]] = [
            ["name": "incident", "element": "category", "value": "it's", "label": awkwardLabel, "sequence": "99"],
            ["name": "task", "element": "priority", "value": "1", "label": "1 - Kritisch", "language": "de"],
            ["name": "incident", "element": "impact", "value": "9", "label": "never shown", "inactive": "true"],
        ]
        for row in rows {
            let response = try await sim.request(
                "POST", "/api/now/table/sys_choice", body: try JSONSerialization.data(withJSONObject: row))
            try #require(response.status == 201, "POST sys_choice: \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// Sets `inactive=true` on the sys_choice row of `table.element` = `value` in `language`.
    static func deactivate(
        _ sim: NowSimInstance, table: String, element: String, value: String, language: String = "en"
    ) async throws {
        let found = try await sim.request(
            "/api/now/table/sys_choice",
            query: [
                ("sysparm_query", "name=\(table)^element=\(element)^value=\(value)^language=\(language)"),
                ("sysparm_fields", "sys_id"),
            ])
        let sysID = try #require(found.resultList.first?["sys_id"] as? String)
        let response = try await sim.request(
            "PATCH", "/api/now/table/sys_choice/\(sysID)",
            body: try JSONSerialization.data(withJSONObject: ["inactive": "true"]))
        try #require(response.status == 200, "PATCH sys_choice: \(String(decoding: response.body, as: UTF8.self))")
    }

    /// What `incident__choices` must hold: nowsim's `sys_choice` rows read whole through the Table API,
    /// those of incident and task (incident extends task) that are active, and per element incident's
    /// rows when it has any, else task's; sorted.
    static func expected(_ sim: NowSimInstance) async throws -> [Choice] {
        let records = try await SimRecords.all(
            sim, "sys_choice", pageSize: 500,
            parameters: [
                ("sysparm_fields", "sys_id,name,element,value,label,language,sequence,inactive,dependent_value")
            ])
        let active = records.filter { ($0["inactive"] as? String) != "true" }
        var byTable: [String: [Choice]] = [:]
        for record in active {
            guard let table = record["name"] as? String, ["incident", "task"].contains(table) else { continue }
            var row: [String: Any] = record
            row["sequence"] = (record["sequence"] as? String).flatMap { Int($0) }
            if (record["dependent_value"] as? String ?? "").isEmpty { row["dependent_value"] = nil }
            if (record["language"] as? String ?? "").isEmpty { row["language"] = "en" }
            byTable[table, default: []].append(Choice(json: row))
        }
        let own = Set((byTable["incident"] ?? []).map(\.element))
        let inherited = (byTable["task"] ?? []).filter { !own.contains($0.element) }
        return ((byTable["incident"] ?? []) + inherited).sorted()
    }

    /// The premises the expectation rests on: state is defined on both tables (incident's own list
    /// applies, task's does not), priority only on task (inherited, in two languages), the awkward label
    /// is there, impact stays task's.
    static func checkPremises(_ expected: [Choice], sim: NowSimInstance) async throws {
        let taskStates = try await sim.request(
            "/api/now/table/sys_choice",
            query: [("sysparm_query", "name=task^element=state"), ("sysparm_fields", "label")])
        let taskLabels = Set(taskStates.resultList.compactMap { $0["label"] as? String })
        let incidentLabels = Set(expected.filter { $0.element == "state" }.map(\.label))
        #expect(!incidentLabels.isEmpty && !taskLabels.subtracting(incidentLabels).isEmpty)
        #expect(Set(expected.filter { $0.element == "priority" }.map(\.language)) == ["en", "de"])
        #expect(expected.contains { $0.label == awkwardLabel })
        #expect(expected.contains { $0.element == "impact" } && !expected.contains { $0.label == "never shown" })
        // Dependent choices repeat a value (nowsim's subcategory email under two categories): no key.
        let subcategoryEmail = expected.filter { $0.element == "subcategory" && $0.value == "email" }
        #expect(subcategoryEmail.count == 2)
    }

    /// The first run of a choices test (``addChoices(_:)`` done): `run` exits 0, the choices table
    /// (`loaded`) equals the instance's active choices of incident (premises checked) and the log counts
    /// them. Returns the run's log.
    @discardableResult
    static func firstRun(
        _ sim: NowSimInstance, run: () async throws -> (status: Int32, log: String), loaded: () async throws -> [Choice]
    ) async throws -> String {
        let result = try await run()
        try #require(result.status == 0, "run 1: \(result.log)")
        let expected = try await expected(sim)
        try await checkPremises(expected, sim: sim)
        #expect(try await loaded() == expected)
        #expect(result.log.contains("choice_labels=\(expected.count)"), "\(result.log)")
        return result.log
    }

    /// After ``firstRun(_:run:loaded:)`` into a server database (`query` runs SQL there, its tables named
    /// `schema` + name): a BI join of the 40 incidents' state (`state`, as text) with the choices finds a
    /// label for each; a table of another shape (an older one, or a user's, keyed by a `keyType` column)
    /// is replaced whole by the next run, which leaves out a state made inactive; the third run replaces
    /// the rows in place.
    static func laterRuns(
        _ sim: NowSimInstance, query: (String) async throws -> String, schema: String, state: String,
        keyType: String, run: () async throws -> (status: Int32, log: String), loaded: () async throws -> [Choice]
    ) async throws {
        let choices = schema + "incident__choices"
        #expect(
            try await query(
                "SELECT count(*) FROM \(schema)incident i JOIN \(choices) c ON c.element = 'state' AND c.value = "
                    + "\(state) AND c.language = 'en'") == "40\n")
        _ = try await query(
            "DROP TABLE \(choices); CREATE TABLE \(choices) (element \(keyType) PRIMARY KEY, label text); "
                + "INSERT INTO \(choices) VALUES ('x', 'y')")
        try await deactivateStateAndRun(sim, value: "8", run: run, loaded: loaded)
        try await deactivateStateAndRun(sim, value: "7", run: run, loaded: loaded)
    }

    /// Makes incident's state choice `value` inactive, runs (`run`: exit status and log) and expects the
    /// choices table (`loaded`) to equal the instance's choices again, without that one.
    static func deactivateStateAndRun(
        _ sim: NowSimInstance, value: String, run: () async throws -> (status: Int32, log: String),
        loaded: () async throws -> [Choice]
    ) async throws {
        try await deactivate(sim, table: "incident", element: "state", value: value)
        let result = try await run()
        try #require(result.status == 0, "run after deactivating state \(value): \(result.log)")
        let expected = try await expected(sim)
        #expect(!expected.contains { $0.element == "state" && $0.value == value })
        #expect(try await loaded() == expected)
    }
}
