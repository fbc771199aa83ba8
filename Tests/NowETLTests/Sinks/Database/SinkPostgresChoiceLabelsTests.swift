import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `choice_labels: true` into PostgreSQL: the real `nowetl` against nowsim into the throwaway
/// PostgreSQL, `servicenow.incident__choices` read back with `psql` and compared with what nowsim's
/// Table API says `sys_choice` holds (``ChoiceLabelsEndToEnd``).
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkPostgresChoiceLabelsTests {
    /// The first run loads exactly the active choices that apply to incident, with text columns, an
    /// integer sequence and no primary key, and a BI join (state compared as text: it is an integer
    /// field) finds a label for every incident; a table of another shape is replaced by the next run,
    /// and a choice made inactive since is gone.
    @Test func theChoicesTableHoldsTheInstancesActiveChoicesAndIsReplacedEachRun() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: 40, seedValue: 5, "postgresChoices") {
            sim, database, directory in
            try await ChoiceLabelsEndToEnd.addChoices(sim)
            try (database.password + "\n").write(
                toFile: directory.path + "/pg-password", atomically: true, encoding: .utf8)
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: ["fields: [sys_id, number, state, priority]", "choice_labels: true"],
                outputs: ["postgres: { url: \"${PG_URL}\", schema: servicenow, password_file: pg-password }"],
                in: directory)
            func loaded() async throws -> [ChoiceLabelsEndToEnd.Choice] {
                let json = try await database.psql(
                    "SELECT coalesce(json_agg(json_build_object('element', element, 'value', value, 'label', label, "
                        + "'language', language, 'sequence', sequence, 'dependent_value', dependent_value)), '[]') "
                        + "FROM servicenow.incident__choices")
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
                return rows.map(ChoiceLabelsEndToEnd.Choice.init(json:)).sorted()
            }
            let run = { try await DatabaseEndToEnd.run(directory, environment: ["PG_URL": database.url], timeout: 240) }
            let log = try await ChoiceLabelsEndToEnd.firstRun(sim, run: run, loaded: loaded)
            #expect(!log.contains(database.password))
            #expect(
                try await database.psql(
                    "SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY ordinal_position) FROM "
                        + "information_schema.columns WHERE table_schema = 'servicenow' AND table_name = "
                        + "'incident__choices'")
                    == "element text,value text,label text,language text,sequence bigint,dependent_value text\n")
            #expect(
                try await database.psql(
                    "SELECT count(*) FROM pg_index WHERE indisprimary AND indrelid = 'servicenow.incident__choices'"
                        + "::regclass") == "0\n")
            try await ChoiceLabelsEndToEnd.laterRuns(
                sim, query: database.psql, schema: "servicenow.", state: "i.state::text", keyType: "text", run: run,
                loaded: loaded)
        }
    }
}
