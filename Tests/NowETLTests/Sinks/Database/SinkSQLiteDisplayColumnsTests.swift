import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The display columns of a database output (`<name>_display` beside each reference and choice column
/// under `display_value: all` or `true`): the real `nowetl` against nowsim into SQLite, read back with
/// the `sqlite3` tool and compared with the Table API's own display values.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkSQLiteDisplayColumnsTests {
    static let seeded = 120
    static let fields = "fields: [sys_id, number, caller_id, priority, category, short_description]"

    /// The Table API's display values of `fields`, by sys_id ("" where there is none).
    static func displayValues(_ sim: NowSimInstance, _ fields: [String]) async throws -> [String: [String: String]] {
        let records = try await SimRecords.all(
            sim, "incident", pageSize: 500,
            parameters: [
                ("sysparm_fields", (["sys_id"] + fields).joined(separator: ",")),
                ("sysparm_display_value", "all"),
            ])
        var rows: [String: [String: String]] = [:]
        for record in records {
            let sysID = (record["sys_id"] as? [String: Any])?["value"] as? String ?? ""
            rows[sysID] = Dictionary(
                uniqueKeysWithValues: fields.map {
                    ($0, (record[$0] as? [String: Any])?["display_value"] as? String ?? "")
                })
        }
        return rows
    }

    /// `<field>_display` of every row of the database, by sys_id ("" for NULL).
    static func loadedDisplays(_ database: String, _ fields: [String]) async throws -> [String: [String: String]] {
        let columns = fields.map { $0 + "_display" }
        var rows: [String: [String: String]] = [:]
        for row in try await DatabaseEndToEnd.rows(
            database, "SELECT sys_id, \(columns.joined(separator: ", ")) FROM incident")
        {
            rows[row["sys_id"] as? String ?? ""] = Dictionary(
                uniqueKeysWithValues: fields.map { ($0, row[$0 + "_display"] as? String ?? "") })
        }
        return rows
    }

    /// Under `display_value: all` the database gets `caller_id_display`, `priority_display` and
    /// `category_display` beside their value columns (text, the instance's display values) and nothing
    /// for plain fields; the CSV beside it is byte for byte the file of a run with `display_columns:
    /// false`; and a table loaded without them gains them at the next merge run, filled for every row.
    @Test func referencesAndChoicesGetDisplayColumnsInTheDatabaseOnlyAndAnOldTableGainsThem() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: 3, "sqliteDisplay") { sim, directory in
            let database = directory.path + "/out/report.db"
            let outputs = [#"sqlite: { path: "report.db" }"#, #"csv: { path: "{table}.csv" }"#]
            // First without display columns: the table of an earlier nowetl.
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [Self.fields, "display_value: all", "display_columns: false"], outputs: outputs,
                in: directory)
            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            let tableInfo = "SELECT group_concat(name || ' ' || type, ',') FROM pragma_table_info('incident')"
            #expect(
                try await DatabaseEndToEnd.text(database, tableInfo)
                    == "sys_id TEXT,number TEXT,caller_id TEXT,priority INTEGER,category TEXT,"
                    + "short_description TEXT\n")
            let csvBefore = try Data(contentsOf: directory.appendingPathComponent("out/incident.csv"))

            // Then by default: the columns are added (schema evolution) and filled for every row.
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [Self.fields, "display_value: all"], outputs: outputs, in: directory)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 2: \(result.log)")
            let columns = try await DatabaseEndToEnd.text(database, tableInfo)
            #expect(columns.contains("caller_id_display TEXT"), "\(columns)")
            #expect(columns.contains("priority_display TEXT") && columns.contains("category_display TEXT"))
            #expect(!columns.contains("number_display") && !columns.contains("sys_id_display"))
            #expect(try Data(contentsOf: directory.appendingPathComponent("out/incident.csv")) == csvBefore)
            let labelled = ["caller_id", "priority", "category"]
            let source = try await Self.displayValues(sim, labelled)
            let loaded = try await Self.loadedDisplays(database, labelled)
            #expect(loaded.count == Self.seeded)
            #expect(loaded == source)
            #expect(source.values.contains { $0["caller_id"] != "" } && source.values.contains { $0["priority"] != "" })

            // A fresh database: the display column sits right beside its value column.
            try FileManager.default.removeItem(atPath: database)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 3: \(result.log)")
            #expect(
                try await DatabaseEndToEnd.text(database, tableInfo)
                    == "sys_id TEXT,number TEXT,caller_id TEXT,caller_id_display TEXT,priority INTEGER,"
                    + "priority_display TEXT,category TEXT,category_display TEXT,short_description TEXT\n")
            #expect(try await Self.loadedDisplays(database, labelled) == source)
        }
    }

    /// Under `display_value: true` the instance sends display values only: the value column holds them,
    /// and its display column the same text, so reports on `<name>_display` work in either mode.
    /// Explicit `columns:` get no display column unless `display_columns: true`, and then not one whose
    /// name a column of the pipeline already has.
    @Test func displayTrueFillsTheDisplayColumnsAndExplicitColumnsGetThemOnlyWhenAsked() async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: 4, "sqliteDisplayTrue") {
            sim, directory in
            let database = directory.path + "/out/report.db"
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [Self.fields, "display_value: true"],
                outputs: [#"sqlite: { path: "report.db" }"#], in: directory)
            var result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 1: \(result.log)")
            let source = try await Self.displayValues(sim, ["caller_id", "priority"])
            #expect(try await Self.loadedDisplays(database, ["caller_id", "priority"]) == source)
            #expect(
                try await DatabaseEndToEnd.text(
                    database, "SELECT count(*) FROM incident WHERE caller_id IS NOT caller_id_display")
                    == "0\n")

            let columns = [
                "columns:", "  - { name: sys_id, path: sys_id }", "  - { name: caller, path: caller_id.value }",
                "  - { name: caller_display, path: caller_id.display_value }", "  - { name: urgency, path: priority }",
            ]
            try FileManager.default.removeItem(atPath: database)
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [Self.fields, "display_value: all"] + columns,
                outputs: [#"sqlite: { path: "report.db" }"#], in: directory)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 2: \(result.log)")
            let tableInfo = "SELECT group_concat(name, ',') FROM pragma_table_info('incident')"
            #expect(try await DatabaseEndToEnd.text(database, tableInfo) == "sys_id,caller,caller_display,urgency\n")

            try FileManager.default.removeItem(atPath: database)
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [Self.fields, "display_value: all", "display_columns: true"] + columns,
                outputs: [#"sqlite: { path: "report.db" }"#], in: directory)
            result = try await DatabaseEndToEnd.run(directory)
            try #require(result.status == 0, "run 3: \(result.log)")
            #expect(
                try await DatabaseEndToEnd.text(database, tableInfo)
                    == "sys_id,caller,caller_display,urgency,urgency_display\n")
            #expect(
                try await DatabaseEndToEnd.text(
                    database, "SELECT count(*) FROM incident WHERE urgency_display IS NULL OR urgency_display = ''")
                    == "0\n")
        }
    }
}
