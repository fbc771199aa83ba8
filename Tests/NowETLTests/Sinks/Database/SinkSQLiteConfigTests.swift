import Foundation
import NowETL
import Testing

/// The `sqlite:` output: what it decodes to, the rules it is exempt from (`{table}` in paths, `{run_id}`
/// for incremental tables) and the exact `file:line:column: error: message` of every mistake.
@Suite(.timeLimit(.minutes(5))) struct SinkSQLiteConfigTests {
    @Test func everyKeyDecodesAndTheDefaultsAreMergeAndFail() throws {
        let pipeline = try ConfigText.load(
            ConfigText.head + """
                tables: [{ table: incident }, { table: problem }]
                outputs:
                  - sqlite: { path: "db/report.db", mode: append, table_name: "sn_{table}", on_type_change: recreate }
                  - sqlite: { path: "other.db" }
                  - json: { path: "{table}.jsonl" }

                """)
        guard case .sqlite(let first) = pipeline.outputs[0], case .sqlite(let second) = pipeline.outputs[1] else {
            Issue.record("not SQLite outputs: \(pipeline.outputs)")
            return
        }
        #expect(first.file.path.text == "db/report.db" && first.file.compression == Compression.none)
        #expect(first.options == SQLiteSinkOptions(mode: .append, tableName: "sn_{table}", onTypeChange: .recreate))
        #expect(first.options.tableName(for: "incident") == "sn_incident")
        #expect(second.options == SQLiteSinkOptions(mode: .merge, tableName: nil, onTypeChange: .fail))
        #expect(second.options.tableName(for: "problem") == "problem")
        let spec = pipeline.outputs[0].fileSinkSpec(outputDirectory: "/tmp/out")
        #expect(spec.isDatabase && spec.format == .sqlite(first.options))
        #expect(spec.makeSink() is DatabaseSink && spec.makeSink() is any TransactionalSink)
        #expect(!pipeline.outputs[2].isDatabase)
    }

    @Test func twoOutputsMayLoadTwoTablesOfOneDatabase() throws {
        let configuration = try ConfigText.load(
            ConfigText.full
                + "  - sqlite: { path: report.db }\n  - sqlite: { path: report.db, mode: append, table_name: "
                + "\"{table}_log\" }\n")
        #expect(configuration.outputs.count == 2)
    }

    @Test func anIncrementalTableMergesWithoutRunIDInThePath() throws {
        let pipeline = try ConfigText.load(
            ConfigText.head + """
                tables:
                  - table: incident
                    mode: incremental
                    deletes: true
                outputs:
                  - sqlite: { path: "report.db" }

                """)
        #expect(pipeline.outputs.first?.isDatabase == true)
    }

    static let cases: [ConfigErrorCase] = [
        ConfigErrorCase(
            "misspelt mode", ConfigText.full + "  - sqlite: { path: report.db, mode: upsert }\n",
            "p.yaml:8:38: error: expected one of merge, replace, append for outputs[0].sqlite.mode, got \"upsert\""),
        ConfigErrorCase(
            "unknown key", ConfigText.full + "  - sqlite: { path: report.db, tabel_name: x }\n",
            "p.yaml:8:32: error: unknown key 'tabel_name' in outputs[0].sqlite; did you mean 'table_name'?"),
        ConfigErrorCase(
            "no path", ConfigText.full + "  - sqlite: { mode: merge }\n",
            "p.yaml:8:13: error: missing key 'path' in outputs[0].sqlite"),
        ConfigErrorCase(
            "a gzip'd database", ConfigText.full + "  - sqlite: { path: report.db.gz }\n",
            "p.yaml:8:21: error: outputs[0].sqlite.path names a SQLite database, which is not gzip'd; remove .gz"),
        ConfigErrorCase(
            "a bad table name", ConfigText.full + "  - sqlite: { path: report.db, table_name: \"my-table\" }\n",
            "p.yaml:8:47: error: table name 'my-table' in outputs[0].sqlite.table_name is not valid: use letters, "
                + "digits and underscores (and {table} for the pipeline table's name), not starting with a digit"),
        ConfigErrorCase(
            "one table name for two tables",
            ConfigText.head + "tables: [{ table: incident }, { table: problem }]\noutputs:\n"
                + "  - sqlite: { path: report.db, table_name: tickets }\n",
            "p.yaml:7:44: error: outputs[0].sqlite.table_name must contain {table} when the pipeline exports more "
                + "than one table (or leave it out: each table then loads the table of its own name)"),
        ConfigErrorCase(
            "replace for an incremental table",
            ConfigText.incremental + "  - sqlite: { path: report.db, mode: replace }\n",
            "p.yaml:9:38: error: outputs[0].sqlite.mode is replace, but table 'incident' (tables[0]) is "
                + "incremental: replacing the database table with one run's changes would lose the rest; use mode: "
                + "merge (or append)"),
        ConfigErrorCase(
            "two outputs loading one database table",
            ConfigText.full
                + "  - sqlite: { path: report.db }\n  - sqlite: { path: report.db, mode: append, table_name: incident }\n",
            "p.yaml:9:21: error: outputs[1].sqlite.path: outputs[0] loads the same database table incident; give one "
                + "of them another table_name:"),
        ConfigErrorCase(
            "two outputs loading one database table through two pipeline tables",
            ConfigText.head + "tables: [{ table: incident }, { table: incident_log }]\noutputs:\n"
                + "  - sqlite: { path: report.db }\n  - sqlite: { path: report.db, table_name: \"{table}_LOG\" }\n",
            "p.yaml:8:21: error: outputs[1].sqlite.path: outputs[0] loads the same database table incident_log; give "
                + "one of them another table_name:"),
        ConfigErrorCase(
            "a prune of a replaced table",
            ConfigText.full + "  - sqlite: { path: report.db, mode: replace, prune: weekly }\n",
            "p.yaml:8:54: error: outputs[0].sqlite.prune: only mode: merge prunes (replace loads exactly the source's "
                + "rows every run, append keeps a log); remove prune: or use mode: merge"),
        ConfigErrorCase(
            "soft deletes into a log",
            ConfigText.full + "  - sqlite: { path: report.db, mode: append, deletes: soft }\n",
            "p.yaml:8:55: error: outputs[0].sqlite.deletes: deletes: soft keeps deleted rows of a merged table with "
                + "_deleted_at set and needs mode: merge (append already keeps deletion records as rows)"),
        ConfigErrorCase(
            "an unknown prune",
            ConfigText.full + "  - sqlite: { path: report.db, prune: daily }\n",
            "p.yaml:8:39: error: expected one of every_run, weekly, never for outputs[0].sqlite.prune, got \"daily\""),
        ConfigErrorCase(
            "a file output writing the database's file",
            ConfigText.full + "  - sqlite: { path: report.db }\n  - csv: { path: report.db }\n",
            "p.yaml:9:18: error: outputs[1].csv.path is the same path as outputs[0]; each output needs its own file"),
    ]

    @Test(arguments: cases) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}
