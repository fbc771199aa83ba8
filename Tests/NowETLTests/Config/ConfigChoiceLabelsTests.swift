import Foundation
import NowETL
import Testing

/// `choice_labels:` of a table: off by default, a boolean, and refused (positioned, 78) in a pipeline
/// with no database output to load `<table>__choices` into.
@Suite(.timeLimit(.minutes(5))) struct ConfigChoiceLabelsTests {
    static func load(_ tableLines: String, outputs: String) throws -> TableConfiguration? {
        try PipelineLoader.load(
            text: ConfigText.head + "tables:\n  - table: incident\n" + tableLines + outputs, file: "p.yaml",
            environment: ["SN_PASSWORD": "hunter2"]
        ).table(named: "incident")
    }

    @Test func offByDefaultAndOnWithADatabaseOutput() throws {
        let sqlite = "outputs:\n  - sqlite: { path: copy.db }\n"
        #expect(try Self.load("", outputs: sqlite)?.choiceLabels == false)
        #expect(try Self.load("    choice_labels: true\n", outputs: sqlite)?.choiceLabels == true)
        // One database output among file outputs is enough.
        let mixed = "outputs:\n  - csv: { path: \"{table}.csv\" }\n  - sqlite: { path: copy.db }\n"
        #expect(try Self.load("    choice_labels: true\n", outputs: mixed)?.choiceLabels == true)
        // false asks for nothing, so file outputs alone are fine.
        let csv = "outputs:\n  - csv: { path: \"{table}.csv\" }\n"
        #expect(try Self.load("    choice_labels: false\n", outputs: csv)?.choiceLabels == false)
    }

    static let cases: [ConfigErrorCase] = [
        ConfigErrorCase(
            "no database output",
            ConfigText.head + "tables:\n  - table: problem\n  - table: incident\n    choice_labels: true\n"
                + "outputs:\n  - csv: { path: \"{table}.csv\" }\n  - json: { path: \"{table}.jsonl\" }\n",
            .invalidValue,
            "p.yaml:8:5: error: tables[1].choice_labels: true loads the table's choice labels (<table>__choices) "
                + "into its database outputs, and the pipeline has none; add a sqlite: or postgres: output, or "
                + "leave choice_labels out"),
        ConfigErrorCase(
            "not a boolean",
            ConfigText.head + "tables:\n  - table: incident\n    choice_labels: yes please\n"
                + "outputs:\n  - sqlite: { path: copy.db }\n", .typeMismatch,
            "p.yaml:7:20: error: expected true or false for tables[0].choice_labels, got \"yes please\""),
    ]

    @Test(arguments: cases) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}
