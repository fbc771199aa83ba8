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

    static let h = ConfigText.head
    static let t = "tables:\n  - table: incident\n"
    static let o = outputs

    static let cases: [ConfigErrorCase] = [
        ConfigErrorCase(
            "a content type without a subtype", h + t + "    attachments: { content_types: [image] }\n" + o,
            .invalidValue,
            "p.yaml:7:36: error: 'image' in tables[0].attachments.content_types is not valid: use MIME types such as "
                + "application/pdf, or image/* for a whole kind"),
        ConfigErrorCase(
            "max_bytes of zero", h + t + "    attachments: { max_bytes: 0 }\n" + o, .invalidValue,
            "p.yaml:7:31: error: tables[0].attachments.max_bytes must be between 1 and 4611686018427387903, got 0"),
        ConfigErrorCase(
            "a misspelt attachments key", h + t + "    attachments: { max_byte: 10 }\n" + o, .unknownKey,
            "p.yaml:7:20: error: unknown key 'max_byte' in tables[0].attachments; did you mean 'max_bytes'?"),
        ConfigErrorCase(
            "an empty journal list", h + t + "    journal: []\n" + o, .invalidValue,
            "p.yaml:7:14: error: tables[0].journal must not be empty; leave it out instead"),
        ConfigErrorCase(
            "a journal name with upper case", h + t + "    journal: [Work_notes]\n" + o, .invalidValue,
            "p.yaml:7:15: error: 'Work_notes' in tables[0].journal is not valid: name journal fields of the table "
                + "(work_notes, comments)"),
        ConfigErrorCase(
            "audit that is no boolean", h + t + "    audit: yes please\n" + o,
            "p.yaml:7:12: error: expected true or false for tables[0].audit, got \"yes please\""),
    ]

    @Test(arguments: cases) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}
