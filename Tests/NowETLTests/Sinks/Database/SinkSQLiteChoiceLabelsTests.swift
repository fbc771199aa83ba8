import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `choice_labels: true` into SQLite: the real `nowetl` against nowsim, `incident__choices` read back
/// with the `sqlite3` tool and compared with what nowsim's Table API says `sys_choice` holds
/// (``ChoiceLabelsEndToEnd``).
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkSQLiteChoiceLabelsTests {
    /// The choices table's rows, sorted.
    static func loaded(_ database: String) async throws -> [ChoiceLabelsEndToEnd.Choice] {
        try await DatabaseEndToEnd.rows(
            database, "SELECT element, value, label, language, sequence, dependent_value FROM incident__choices"
        ).map(ChoiceLabelsEndToEnd.Choice.init(json:)).sorted()
    }

    /// The first run loads exactly the active choices that apply to incident (its own state list, task's
    /// priority in both languages, an awkward label intact), a BI join finds a label for every incident,
    /// and the log line counts them; a choice made inactive since is gone after the next run, which
    /// replaces the table's rows.
    @Test func theChoicesTableHoldsTheInstancesActiveChoicesAndIsReplacedEachRun() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: 40, seedValue: 5, "sqliteChoices") { sim, directory in
            try await ChoiceLabelsEndToEnd.addChoices(sim)
            let database = directory.path + "/out/report.db"
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, state, priority]", "choice_labels: true"],
                outputs: [#"sqlite: { path: "report.db" }"#, #"csv: { path: "{table}.csv" }"#], in: directory)
            try await ChoiceLabelsEndToEnd.firstRun(
                sim, run: { try await DatabaseEndToEnd.run(directory) }, loaded: { try await Self.loaded(database) })
            #expect(
                try await DatabaseEndToEnd.text(
                    database,
                    "SELECT count(*) FROM incident i JOIN incident__choices c ON c.element = 'state' "
                        + "AND c.value = i.state AND c.language = 'en'") == "40\n")
            #expect(
                try await DatabaseEndToEnd.text(
                    database, "SELECT group_concat(name, ',') FROM pragma_table_info('incident__choices')")
                    == "element,value,label,language,sequence,dependent_value\n")

            try await ChoiceLabelsEndToEnd.deactivateStateAndRun(
                sim, value: "8", run: { try await DatabaseEndToEnd.run(directory) },
                loaded: { try await Self.loaded(database) })
        }
    }

    /// Without the key nothing is loaded; with it, the output's table_name: names the choices table too.
    @Test func theChoicesTableFollowsTheOutputsTableName() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: 5, seedValue: 6, "sqliteChoicesName") { sim, directory in
            let database = directory.path + "/out/report.db"
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, state]"],
                outputs: [#"sqlite: { path: "report.db", table_name: "sn_{table}" }"#], in: directory)
            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            let tables =
                "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name)"
            #expect(try await DatabaseEndToEnd.text(database, tables) == "_nowetl_loads,_nowetl_prunes,sn_incident\n")
            #expect(!result.log.contains("choice_labels="))

            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, state]", "choice_labels: true"],
                outputs: [#"sqlite: { path: "report.db", table_name: "sn_{table}" }"#], in: directory)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 2: \(result.log)")
            #expect(
                try await DatabaseEndToEnd.text(database, tables)
                    == "_nowetl_loads,_nowetl_prunes,sn_incident,sn_incident__choices\n")
            let expected = try await ChoiceLabelsEndToEnd.expected(sim)
            let loaded = try await DatabaseEndToEnd.rows(
                database, "SELECT element, value, label, language, sequence, dependent_value FROM sn_incident__choices"
            ).map(ChoiceLabelsEndToEnd.Choice.init(json:)).sorted()
            #expect(loaded == expected)
        }
    }

    /// A `sys_choice` row whose field name is no field name (SQL in it) fails the table before its
    /// database is touched, naming the table and the step; the database keeps the previous run's rows.
    @Test func aHostileFieldNameFailsTheTableAndLeavesTheDatabase() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: 5, seedValue: 7, "sqliteChoicesHostile") { sim, directory in
            let database = directory.path + "/out/report.db"
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, state]", "choice_labels: true"],
                outputs: [#"sqlite: { path: "report.db" }"#], in: directory)
            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            let before = try await Self.loaded(database)
            let response = try await sim.request(
                "POST", "/api/now/table/sys_choice",
                body: try JSONSerialization.data(withJSONObject: [
                    "name": "incident", "element": "x'); DROP TABLE incident; --", "value": "1", "label": "bad",
                ]))
            try #require(response.status == 201)
            result = try await DatabaseEndToEnd.run(directory)
            #expect(result.status == 1, "\(result.log)")
            #expect(result.log.contains("table incident") && result.log.contains("reading sys_choice"), "\(result.log)")
            #expect(try await Self.loaded(database) == before)
            #expect(try await DatabaseEndToEnd.text(database, "SELECT count(*) FROM incident") == "5\n")
        }
    }
}
