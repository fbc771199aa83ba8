import Foundation
import NowETL
import NowSimTesting
import Testing

/// The incremental keys of a table (`mode`, `cursor`, `lag_seconds`, `deletes`, `start`): what they
/// decode to, and the exact `file:line:column: error: message` of every mistake.
@Suite(.timeLimit(.minutes(5))) struct ConfigIncrementalTests {
    /// Two lines of outputs that keep every run.
    static let outputs = """
        outputs:
          - json: { path: "{table}-{run_id}.jsonl.gz" }

        """

    static func load(_ text: String) throws -> PipelineConfiguration {
        try PipelineLoader.load(text: text, file: "p.yaml", environment: ["SN_PASSWORD": "hunter2"])
    }

    @Test func everyIncrementalKeyDecodes() throws {
        let pipeline = try Self.load(
            ConfigText.head + """
                tables:
                  - table: incident
                    mode: incremental
                    cursor: sys_created_on
                    lag_seconds: 120
                    deletes: true
                    start: "2024-01-01 00:00:00"

                """ + Self.outputs)
        let incident = try #require(pipeline.table(named: "incident"))
        #expect(incident.mode == .incremental)
        #expect(
            incident.incremental
                == IncrementalConfiguration(
                    cursor: "sys_created_on", lagSeconds: 120, deletes: true, start: "2024-01-01 00:00:00"))
    }

    @Test func modeIncrementalAloneTakesTheDefaults() throws {
        let pipeline = try Self.load(
            ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n" + Self.outputs)
        let incident = try #require(pipeline.table(named: "incident"))
        #expect(incident.incremental == IncrementalConfiguration())
        #expect(incident.incremental?.cursor == "sys_updated_on")
        #expect(incident.incremental?.lagSeconds == 0 && incident.incremental?.deletes == false)
        #expect(incident.incremental?.start == nil)
    }

    @Test(arguments: ["", "    mode: full\n"]) func modeFullIsTheDefault(_ mode: String) throws {
        let pipeline = try Self.load(
            ConfigText.head + "tables:\n  - table: incident\n" + mode + "outputs:\n  - csv: { path: \"{table}.csv\" }\n"
        )
        let incident = try #require(pipeline.table(named: "incident"))
        #expect(incident.mode == .full && incident.incremental == nil)
    }

    @Test func theLagTakesItsWholeRange() throws {
        for lag in [0, 604_800] {
            let pipeline = try Self.load(
                ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n    lag_seconds: \(lag)\n"
                    + Self.outputs)
            #expect(pipeline.tables.first?.incremental?.lagSeconds == lag)
        }
    }

    /// pipelines/incident-incremental.yaml is what docs/guides/incremental.md says it is.
    @Test func theNightlyIncrementalExampleReadsChangesAndDeletions() throws {
        let pipeline = try RepositoryPipelines.load("incident-incremental.yaml")
        let incident = try #require(pipeline.table(named: "incident"))
        #expect(
            incident.incremental
                == IncrementalConfiguration(
                    cursor: "sys_updated_on", lagSeconds: 60, deletes: true, start: "2024-01-01 00:00:00"))
        #expect(pipeline.outputs.map(\.kind) == [.json])
        #expect(pipeline.outputs.first?.file.path.text == "{table}-{run_id}.jsonl.gz")
        #expect(pipeline.outputs.first?.file.compression == .gzipDefault)
    }

    /// Outputs that keep every run without `{run_id}`, and XML that can carry deletions.
    @Test func directoriesPublishingAndRecordsXMLAreAccepted() throws {
        let pipeline = try Self.load(
            ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n    deletes: true\n"
                + "outputs:\n  - json: { path: \"{table}.jsonl.gz\" }\n"
                + "  - xml: { path: \"{table}-{run_id}.xml\", format: records }\n"
                + "publish: { mode: directories }\n")
        #expect(pipeline.tables.first?.incremental?.deletes == true)
        // Without deletions an unload is fine: every record in it is a real one.
        let unload = try Self.load(
            ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n"
                + "outputs:\n  - xml: { path: \"{table}-{run_id}.xml\", format: unload }\n")
        #expect(unload.tables.first?.incremental?.deletes == false)
    }

    static let h = ConfigText.head
    static let o = outputs
    /// Lines 5–7: an incremental incident table; the case's own lines follow from line 8.
    static let t = "tables:\n  - table: incident\n    mode: incremental\n"

    static let cases: [ConfigErrorCase] = [
        ConfigErrorCase(
            "misspelt mode", h + "tables:\n  - table: incident\n    mode: incremantal\n" + o, .invalidValue,
            "p.yaml:7:11: error: expected one of full, incremental for tables[0].mode, got \"incremantal\"; "
                + "did you mean 'incremental'?"),
        ConfigErrorCase(
            "cursor without mode incremental", h + "tables:\n  - table: incident\n    cursor: sys_updated_on\n" + o,
            .invalidValue, "p.yaml:7:5: error: tables[0].cursor applies only to mode: incremental"),
        ConfigErrorCase(
            "deletes with mode full", h + "tables:\n  - table: incident\n    mode: full\n    deletes: true\n" + o,
            .invalidValue, "p.yaml:8:5: error: tables[0].deletes applies only to mode: incremental"),
        ConfigErrorCase(
            "lag_seconds without mode incremental", h + "tables:\n  - table: incident\n    lag_seconds: 5\n" + o,
            .invalidValue, "p.yaml:7:5: error: tables[0].lag_seconds applies only to mode: incremental"),
        ConfigErrorCase(
            "start without mode incremental",
            h + "tables:\n  - table: incident\n    start: \"2024-01-01 00:00:00\"\n" + o, .invalidValue,
            "p.yaml:7:5: error: tables[0].start applies only to mode: incremental"),
        ConfigErrorCase(
            "dot-walked cursor", h + t + "    cursor: sys_updated_on.value\n" + o, .invalidValue,
            "p.yaml:8:27: error: cursor 'sys_updated_on.value' is not valid: name one glide_date_time field of the "
                + "table (lower-case letters, digits and underscores; no dot-walking)"),
        ConfigErrorCase(
            "negative lag", h + t + "    lag_seconds: -1\n" + o, .invalidValue,
            "p.yaml:8:18: error: tables[0].lag_seconds must be between 0 and 604800, got -1"),
        ConfigErrorCase(
            "lag over a week", h + t + "    lag_seconds: 604801\n" + o, .invalidValue,
            "p.yaml:8:18: error: tables[0].lag_seconds must be between 0 and 604800, got 604801"),
        ConfigErrorCase(
            "lag as a duration", h + t + "    lag_seconds: 5m\n" + o, .typeMismatch,
            "p.yaml:8:18: error: expected an integer for tables[0].lag_seconds, got \"5m\""),
        ConfigErrorCase(
            "deletes as a word", h + t + "    deletes: maybe\n" + o, .typeMismatch,
            "p.yaml:8:14: error: expected true or false for tables[0].deletes, got \"maybe\""),
        ConfigErrorCase(
            "start without a time", h + t + "    start: \"2024-01-01\"\n" + o, .invalidValue,
            "p.yaml:8:12: error: tables[0].start must be a UTC date-time YYYY-MM-DD HH:MM:SS, got '2024-01-01'"),
        ConfigErrorCase(
            "start on a day that does not exist", h + t + "    start: \"2023-02-29 00:00:00\"\n" + o, .invalidValue,
            "p.yaml:8:12: error: tables[0].start must be a UTC date-time YYYY-MM-DD HH:MM:SS, got "
                + "'2023-02-29 00:00:00'"),
        ConfigErrorCase(
            "display values only", h + t + "    display_value: true\n" + o, .invalidValue,
            "p.yaml:8:20: error: mode: incremental reads the cursor's stored value, which display_value: true does "
                + "not send; use display_value: all (both forms) or false"),
        ConfigErrorCase(
            "fields without sys_id", h + t + "    fields: [number, sys_updated_on]\n" + o, .invalidValue,
            "p.yaml:8:13: error: mode: incremental needs sys_id in the output (a consumer merges the runs by it): "
                + "add it to tables[0].fields"),
        ConfigErrorCase(
            "columns without sys_id", h + t + "    columns:\n      - { name: number, path: number }\n" + o,
            .invalidValue,
            "p.yaml:9:7: error: mode: incremental needs sys_id in the output (a consumer merges the runs by it): "
                + "add it to tables[0].columns"),
        ConfigErrorCase(
            "an output that replaces the last run's file",
            h + t + "outputs:\n  - json: { path: \"{table}-{run_id}.jsonl.gz\" }\n  - csv: { path: \"{table}.csv\" }\n",
            .invalidValue,
            "p.yaml:10:18: error: outputs[1].csv.path must contain {run_id} (or set publish: { mode: directories }): "
                + "table 'incident' (tables[0]) is incremental, so each run writes only what changed and must not "
                + "replace the last run's file"),
        ConfigErrorCase(
            "an unload with deletions",
            h + t + "    deletes: true\n"
                + "outputs:\n  - xml: { path: \"{table}-{run_id}.xml\", format: unload }\n", .invalidValue,
            "p.yaml:10:10: error: outputs[0].xml is an XML unload, which cannot carry the deletion records of table "
                + "'incident' (tables[0] has deletes: true); use format: records"),
    ]

    @Test(arguments: cases) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}
