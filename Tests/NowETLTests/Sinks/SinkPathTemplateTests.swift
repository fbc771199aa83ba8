import NowSimTesting
import Testing

@testable import NowETL

/// Path templates: placeholders, and confinement to the output directory.
@Suite(.timeLimit(.minutes(5))) struct SinkPathTemplateTests {
    @Test func placeholdersResolve() throws {
        let template = try OutputPathTemplate("out/{table}-{run_date}/{run_id}-{part}.csv.gz")
        #expect(
            try template.resolve(table: "incident", runDate: "2024-03-01", runID: "r7", part: 12)
                == "out/incident-2024-03-01/r7-0012.csv.gz")
        #expect(try template.resolve(table: "t", runDate: "d", runID: "r", part: 12_345).hasSuffix("r-12345.csv.gz"))
        #expect(template.contains(.part) && template.contains(.runID))
        #expect(!(try OutputPathTemplate("{table}.csv")).contains(.part))
        // Not split: {part} is the first part; split without {part}: the number goes before the extension.
        #expect(try template.resolve(table: "t", runDate: "d", runID: "r").hasSuffix("r-0001.csv.gz"))
        #expect(
            try OutputPathTemplate("{table}.csv.gz").resolve(table: "incident", runDate: "d", runID: "r", part: 3)
                == "incident-0003.csv.gz")
        #expect(
            try OutputPathTemplate("{table}.csv.gz").resolve(table: "incident", runDate: "d", runID: "r")
                == "incident.csv.gz")
        #expect(template.hasGzipSuffix)
        #expect(!(try OutputPathTemplate("{table}.gz.csv").hasGzipSuffix))
        #expect(Compression.inferred(from: template) == .gzipDefault)
    }

    @Test(arguments: [
        ("{tabel}.csv", 0), ("a/{table", 2), ("ab}", 2), ("/x", 0), ("a/", 1), ("a//b", 2), ("a/./b", 2),
        ("x/a/../b", 4), ("x/{table}/..", 10),
    ])
    func parseErrorsPointAtTheOffendingCharacter(text: String, offset: Int) {
        #expect {
            _ = try OutputPathTemplate(text)
        } throws: { error in
            (error as? OutputPathTemplate.ParseError)?.offset == offset
        }
    }

    @Test(arguments: ["{tabel}.csv", "{table.csv", "table}.csv", "{}.csv", "", "{TABLE}.csv"])
    func malformedTemplatesAreRejected(text: String) {
        #expect {
            _ = try OutputPathTemplate(text)
        } throws: { error in
            (error as? OutputPathTemplate.ParseError)?.kind == .syntax
                && (error as? OutputPathTemplate.ParseError)?.template == text
        }
    }

    @Test(arguments: [
        "/etc/{table}.csv", "../{table}.csv", "out/../../{table}.csv", "out//{table}.csv", "./x.csv", "out/",
    ])
    func templatesLeavingTheDirectoryAreRejected(text: String) {
        #expect {
            _ = try OutputPathTemplate(text)
        } throws: { error in
            (error as? OutputPathTemplate.ParseError)?.kind == .location
        }
    }

    @Test(arguments: ["..", "../etc", "a/b", ".", ""])
    func placeholderValuesCannotClimbOut(table: String) throws {
        let template = try OutputPathTemplate("{table}/x.csv")
        #expect {
            _ = try template.resolve(table: table, runDate: "d", runID: "r")
        } throws: { error in
            (error as? NowETLError)?.code == .pathOutsideOutputDirectory
        }
    }

    @Test func aSinkRefusesATableNameThatClimbsOut() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "{table}.csv"))
            await #expect {
                try await sink.open(schema: RowSchema(names: ["a"]), context: SinkTestSupport.context("../../tmp/evil"))
            } throws: { error in
                (error as? NowETLError)?.code == .pathOutsideOutputDirectory
            }
            #expect(try SinkTestSupport.listing(directory).isEmpty)
        }
    }

    @Test func runDateIsTheUTCDateOfTheRunStart() async throws {
        try await withScratchDirectory { (directory: String) in
            let sink = CSVSink(options: try SinkTestSupport.options(directory, "{run_date}/{table}.csv"))
            // 2024-02-29 23:30:00 UTC
            let context = SinkContext(
                table: "incident", runID: "r", runStarted: .init(timeIntervalSince1970: 1_709_249_400))
            let files = try await SinkTestSupport.export(
                [], schema: RowSchema(names: ["a"]), into: sink, context: context)
            #expect(files.map(\.path) == ["2024-02-29/incident.csv"])
        }
    }
}
