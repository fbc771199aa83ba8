import Foundation
import NowETL
import NowSimTesting
import Testing

/// The whole-record keys of a table (`attachments`, `journal`, `audit`): what they decode to, and the
/// exact `file:line:column: error: message` of every mistake.
@Suite(.timeLimit(.minutes(5))) struct ConfigWholeRecordTests {
    static let outputs = "outputs:\n  - json: { path: \"{table}.jsonl\" }\n"

    static func load(_ tableLines: String) throws -> TableConfiguration? {
        try PipelineLoader.load(
            text: ConfigText.head + "tables:\n  - table: incident\n" + tableLines + outputs, file: "p.yaml",
            environment: ["SN_PASSWORD": "hunter2"]
        ).table(named: "incident")
    }

    @Test func nothingTravelsByDefault() throws {
        let incident = try #require(try Self.load(""))
        #expect(incident.wholeRecord == WholeRecordConfiguration())
        #expect(incident.wholeRecord.isEmpty)
    }

    @Test func everyKeyDecodes() throws {
        let incident = try #require(
            try Self.load(
                "    attachments: { content_types: [image/*, application/pdf], max_bytes: 50000000 }\n"
                    + "    journal: [work_notes, comments]\n    audit: true\n"))
        #expect(
            incident.wholeRecord
                == WholeRecordConfiguration(
                    attachments: AttachmentSelection(
                        contentTypes: ["image/*", "application/pdf"], maxBytes: 50_000_000),
                    journal: ["work_notes", "comments"], audit: true))
    }

    @Test func attachmentsTrueTakesAllAndFalseNone() throws {
        #expect(try Self.load("    attachments: true\n")?.wholeRecord.attachments == AttachmentSelection())
        #expect(try Self.load("    attachments: false\n")?.wholeRecord.attachments == nil)
    }

    @Test func theSelectionComparesTypesWithoutCaseAndBoundsTheSize() {
        let selection = AttachmentSelection(contentTypes: ["image/*", "application/pdf"], maxBytes: 100)
        #expect(selection.accepts(contentType: "IMAGE/PNG", bytes: 100))
        #expect(selection.accepts(contentType: "application/pdf; charset=binary", bytes: 1))
        #expect(!selection.accepts(contentType: "application/pdfx", bytes: 1))
        #expect(!selection.accepts(contentType: "text/plain", bytes: 1))
        #expect(!selection.accepts(contentType: "image/png", bytes: 101))
        #expect(AttachmentSelection().accepts(contentType: "", bytes: Int.max))
    }

    /// A mistake on line 7, the incident table's first key: `line` without its indentation, the
    /// message after `p.yaml:7:`.
    static func mistake(_ name: String, _ line: String, _ kind: ConfigError.Kind, _ expected: String)
        -> ConfigErrorCase
    {
        ConfigErrorCase(
            name, ConfigText.head + "tables:\n  - table: incident\n    " + line + "\n" + outputs, kind,
            "p.yaml:7:" + expected)
    }

    static let cases: [ConfigErrorCase] = [
        mistake(
            "a content type without a subtype", "attachments: { content_types: [image] }", .invalidValue,
            "36: error: 'image' in tables[0].attachments.content_types is not valid: use MIME types such as "
                + "application/pdf, or image/* for a whole kind"),
        mistake(
            "max_bytes of zero", "attachments: { max_bytes: 0 }", .invalidValue,
            "31: error: tables[0].attachments.max_bytes must be between 1 and 4611686018427387903, got 0"),
        mistake(
            "a misspelt attachments key", "attachments: { max_byte: 10 }", .unknownKey,
            "20: error: unknown key 'max_byte' in tables[0].attachments; did you mean 'max_bytes'?"),
        mistake(
            "an empty journal list", "journal: []", .invalidValue,
            "14: error: tables[0].journal must not be empty; leave it out instead"),
        mistake(
            "a journal name with upper case", "journal: [Work_notes]", .invalidValue,
            "15: error: 'Work_notes' in tables[0].journal is not valid: name journal fields of the table "
                + "(work_notes, comments)"),
        ConfigErrorCase(
            "only database outputs",
            ConfigText.head + "tables:\n  - table: incident\n    journal: [work_notes]\n"
                + "outputs:\n  - sqlite: { path: copy.db }\n", .invalidValue,
            "p.yaml:7:5: error: tables[0].journal needs a file or instance output: database outputs do not take "
                + "attachments, journal entries or audit rows (docs/whole-record.md)"),
        mistake(
            "audit that is no boolean", "audit: yes please", .typeMismatch,
            "12: error: expected true or false for tables[0].audit, got \"yes please\""),
    ]

    @Test(arguments: cases) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}

extension ConfigWholeRecordTests {
    /// pipelines/incident-whole-record.yaml is what docs/whole-record.md says it is.
    @Test func theArchiveExampleCarriesTheWholeRecord() throws {
        let incident = try #require(try RepositoryPipelines.load("incident-whole-record.yaml").table(named: "incident"))
        #expect(incident.mode == .incremental)
        #expect(incident.wholeRecord.attachments == AttachmentSelection(maxBytes: 200_000_000))
        #expect(incident.wholeRecord.journal == ["work_notes", "comments"] && incident.wholeRecord.audit)
    }
}
