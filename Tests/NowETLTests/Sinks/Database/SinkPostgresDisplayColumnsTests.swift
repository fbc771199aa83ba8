import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The display columns of a PostgreSQL output: the real `nowetl` against nowsim into the throwaway
/// PostgreSQL, read back with `psql` and compared with the Table API's display values.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkPostgresDisplayColumnsTests {
    static let seeded = 120

    /// A table loaded without display columns gains them at the next run under `display_value: all`
    /// (schema evolution adds them), each beside nothing but a reference or choice, as text, filled for
    /// every row with the instance's display value.
    @Test func referencesAndChoicesGetDisplayColumnsAndAnOldTableGainsThem() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.seeded, seedValue: 3, "postgresDisplay") {
            sim, database, directory in
            try (database.password + "\n").write(
                toFile: directory.path + "/pg-password", atomically: true, encoding: .utf8)
            let output = "postgres: { url: \"${PG_URL}\", schema: servicenow, password_file: pg-password }"
            let fields = "fields: [sys_id, number, caller_id, priority, category, short_description]"
            let columns =
                "SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY ordinal_position) "
                + "FROM information_schema.columns WHERE table_schema = 'servicenow' AND table_name = 'incident'"
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [fields, "display_value: all", "display_columns: false"], outputs: [output],
                in: directory)
            var result = try await DatabaseEndToEnd.run(directory, environment: ["PG_URL": database.url], timeout: 240)
            try #require(result.status == 0, "run 1: \(result.log)")
            #expect(!(try await database.psql(columns)).contains("_display"))

            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: [fields, "display_value: all"], outputs: [output], in: directory)
            result = try await DatabaseEndToEnd.run(directory, environment: ["PG_URL": database.url], timeout: 240)
            try #require(result.status == 0, "run 2: \(result.log)")
            #expect(!result.log.contains(database.password))
            let listed = try await database.psql(columns)
            #expect(
                listed.hasSuffix(
                    "caller_id_display text,priority_display text,category_display text\n"), "\(listed)")
            #expect(!listed.contains("number_display") && !listed.contains("short_description_display"))

            let labelled = ["caller_id", "priority", "category"]
            let json = try await database.psql(
                "SELECT json_agg(json_build_object('sys_id', sys_id, "
                    + labelled.map { "'\($0)', coalesce(\($0)_display, '')" }.joined(separator: ", ")
                    + ")) FROM servicenow.incident")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            var loaded: [String: [String: String]] = [:]
            for row in rows {
                loaded[row["sys_id"] as? String ?? ""] = Dictionary(
                    uniqueKeysWithValues: labelled.map { ($0, row[$0] as? String ?? "") })
            }
            let source = try await SinkSQLiteDisplayColumnsTests.displayValues(sim, labelled)
            #expect(loaded.count == Self.seeded)
            #expect(loaded == source)
        }
    }
}
