import Testing

@testable import NowETL

/// Path templates: placeholders, and confinement to the output directory.
@Suite struct SinkPathTemplateTests {
    @Test func placeholdersResolve() throws {
        let template = try OutputPathTemplate("out/{table}-{run_date}/{run_id}-{part}.csv.gz")
        #expect(
            try template.resolve(table: "incident", runDate: "2024-03-01", runID: "r7", part: 12)
                == "out/incident-2024-03-01/r7-0012.csv.gz")
        #expect(try template.resolve(table: "t", runDate: "d", runID: "r", part: 12_345).hasSuffix("r-12345.csv.gz"))
        #expect(template.contains(.part) && template.contains(.runID))
        #expect(!(try OutputPathTemplate("{table}.csv")).contains(.part))
    }

    @Test(arguments: ["{tabel}.csv", "{table.csv", "table}.csv", "{}.csv", "", "{TABLE}.csv"])
    func malformedTemplatesAreRejected(text: String) {
        #expect {
            _ = try OutputPathTemplate(text)
        } throws: { error in
            (error as? SinkError)?.code == .invalidTemplate && (error as? SinkError)?.path == text
        }
    }

    @Test(arguments: [
        "/etc/{table}.csv", "../{table}.csv", "out/../../{table}.csv", "out//{table}.csv", "./x.csv", "out/",
    ])
    func templatesLeavingTheDirectoryAreRejected(text: String) {
        #expect {
            _ = try OutputPathTemplate(text)
        } throws: { error in
            (error as? SinkError)?.code == .pathOutsideOutputDirectory
        }
    }

    @Test(arguments: ["..", "../etc", "a/b", ".", ""])
    func placeholderValuesCannotClimbOut(table: String) throws {
        let template = try OutputPathTemplate("{table}/x.csv")
        #expect {
            _ = try template.resolve(table: table, runDate: "d", runID: "r", part: 1)
        } throws: { error in
            (error as? SinkError)?.code == .pathOutsideOutputDirectory
        }
    }

    @Test func aSinkRefusesATableNameThatClimbsOut() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
        #expect {
            try sink.open(schema: RowSchema(names: ["a"]), context: SinkTestSupport.context("../../tmp/evil"))
        } throws: { error in
            (error as? SinkError)?.code == .pathOutsideOutputDirectory
        }
        #expect(try SinkTestSupport.listing(directory).isEmpty)
    }

    @Test func runDateIsTheUTCDateOfTheRunStart() throws {
        let directory = try SinkTestSupport.scratchDirectory()
        let sink = CSVSink(options: try SinkTestSupport.options(directory, "{run_date}/{table}.csv"))
        // 2024-02-29 23:30:00 UTC
        let context = SinkContext(
            table: "incident", runID: "r", runStarted: .init(timeIntervalSince1970: 1_709_249_400))
        let files = try SinkTestSupport.export([], schema: RowSchema(names: ["a"]), into: sink, context: context)
        #expect(files.map(\.path) == ["2024-02-29/incident.csv"])
    }
}
