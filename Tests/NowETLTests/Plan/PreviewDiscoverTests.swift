import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl discover` and `nowetl preview` in-process against the real nowsim.
@Suite(.timeLimit(.minutes(5))) struct PreviewDiscoverTests {
    static let credentials = ["SN_USER": "admin", "SN_PASSWORD": "admin"]

    /// Runs `nowetl discover` for `table` on `server` in-process.
    static func discover(_ server: NowSimInstance, table: String) async -> (code: Int32, streams: CapturedStreams) {
        await InProcessNowETL.run(
            ["discover", "--instance", server.baseURL.absoluteString, "--table", table], environment: credentials)
    }

    /// A temporary directory holding `pipeline.yaml` with `tableYAML` under `tables:`.
    static func pipeline(_ server: NowSimInstance, tableYAML: String) throws -> (
        directory: URL, path: String, text: String
    ) {
        try TemporaryPipeline.write("pv", PipelineYAML(server, source: ["page_size: 7"], tables: tableYAML))
    }

    @Test func discoverListsInheritedFieldsReferencesAndMappedTypes() async throws {
        let server = try await ETLServers.get()
        let (code, captured) = await Self.discover(server, table: "incident")
        #expect(code == 0, "\(captured.standardError)")
        let lines = captured.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("    - number  # from task"))
        #expect(lines.contains("    - { name: number, path: number, type: string }  # from task"))
        #expect(lines.contains("    - { name: caller_id, path: caller_id, type: string }  # reference → sys_user"))
        #expect(lines.contains { $0.hasPrefix("    - { name: opened_at, path: opened_at, type: datetime }") })
        #expect(lines.contains { $0.hasPrefix("    - { name: priority, path: priority, type: int }") })
        #expect(lines.contains { $0.hasPrefix("    - { name: active, path: active, type: bool }") })
    }

    @Test func discoveredYAMLPastedIntoAPipelineValidates() async throws {
        let server = try await ETLServers.get()
        let (code, captured) = await Self.discover(server, table: "incident")
        #expect(code == 0)
        let (directory, _, text) = try Self.pipeline(server, tableYAML: captured.standardOutput)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try PipelineLoader.load(text: text, file: "pasted.yaml", environment: [:])
        let table = try #require(configuration.tables.first)
        #expect(table.table == "incident")
        #expect(table.fields?.contains("caller_id") == true && table.fields?.contains("number") == true)
        #expect(table.columns?.first { $0.name == "opened_at" }?.type == .dateTime)
        #expect(table.columns?.count == table.fields?.count)
    }

    @Test func discoverOfAnUnknownTableFailsClearly() async throws {
        let server = try await ETLServers.get()
        let (code, captured) = await Self.discover(server, table: "no_such_table")
        #expect(code == 1)
        #expect(
            captured.standardError.contains("'no_such_table' is not in the instance's sys_db_object"),
            "\(captured.standardError)")
        #expect(captured.standardOutput.isEmpty)
    }

    /// A misspelt table gets the closest name the instance has, as run, preview and validate say it.
    @Test func discoverAndInitSuggestTheClosestTableForAMisspeltOne() async throws {
        let server = try await ETLServers.get()
        for command in ["discover", "init"] {
            let (code, captured) = await InProcessNowETL.run(
                [command, "--instance", server.baseURL.absoluteString, "--table", "incidnet"],
                environment: Self.credentials)
            #expect(code == 1, "\(command): \(captured.standardError)")
            #expect(
                captured.standardError
                    == "nowetl: table 'incidnet' is not in the instance's sys_db_object (no such table); "
                    + "did you mean 'incident'?\n", "\(command)")
            #expect(captured.standardOutput.isEmpty)
        }
    }

    @Test func discoverWithWrongCredentialsExits77() async throws {
        let server = try await ETLServers.get()
        let (code, captured) = await InProcessNowETL.run(
            ["discover", "--instance", server.baseURL.absoluteString, "--table", "incident"],
            environment: ["SN_USER": "admin", "SN_PASSWORD": "wrong-pw"])
        #expect(code == 77, "\(captured.standardError)")
        #expect(!captured.standardError.contains("wrong-pw"))
    }

    static let tableYAML = """
          - table: incident
            fields: [sys_id, number, priority]
            columns:
              - { name: sys_id, path: sys_id }
              - { name: number, path: number }
              - { name: priority, path: priority, type: int }
        """

    @Test(arguments: [1, 10, 23]) func previewPrintsTheFirstRowsOfARunInSysIDOrderAndWritesNoFile(_ rows: Int)
        async throws
    {
        let server = try await ETLServers.get()
        let (directory, path, _) = try Self.pipeline(server, tableYAML: Self.tableYAML)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(["preview", path, "--rows", String(rows)], environment: [:])
        #expect(code == 0, "\(captured.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
        let lines = captured.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == rows + 3)  // header, rule, rows, the empty string after the last newline
        #expect(lines[0].split(separator: " ", omittingEmptySubsequences: true) == ["sys_id", "number", "priority"])
        #expect(lines[1].hasPrefix(String(repeating: "-", count: 32) + "  "))
        let previewed = lines[2..<(2 + rows)].map { $0.split(separator: " ").map(String.init) }

        // The same pipeline run: its CSV's first rows are the preview's.
        let run = CapturedStreams()
        #expect(
            await InProcessNowETL.run(["run", path, "--progress", "off"], environment: [:], streams: run).code == 0,
            "\(run.standardError)")
        let csv = try String(contentsOfFile: directory.appendingPathComponent("out/incident.csv").path, encoding: .utf8)
        let exported = csv.split(whereSeparator: \.isNewline).dropFirst()
            .map { $0.split(separator: ",").map(String.init) }
        #expect(exported.count == 1200)
        #expect(previewed == Array(exported.prefix(rows)))
        #expect(previewed.map { $0[0] } == previewed.map { $0[0] }.sorted())
    }

    /// `preview` runs `run`'s check of every name first: a missing table, a misspelt filter field (which an
    /// instance would widen to every row) and a misspelt field (an empty column) are exit 78 at their
    /// position in the file, with a suggestion, and nothing is fetched or written.
    @Test(arguments: [
        (
            "  - table: incidnet\n",
            "table 'incidnet' is not in the instance's sys_db_object (no such table); did you mean 'incident'?"
        ),
        ("  - table: incident\n    filter: prioirty<=2\n", "did you mean 'priority'?"),
        ("  - table: incident\n    fields: [sys_id, nubmer]\n", "did you mean 'number'?"),
    ])
    func previewChecksEveryNameAsRunDoes(_ tableYAML: String, _ fragment: String) async throws {
        let server = try await ETLServers.get()
        let (directory, path, _) = try Self.pipeline(server, tableYAML: tableYAML)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(["preview", path], environment: [:])
        #expect(code == 78)
        #expect(captured.standardError.hasPrefix(path + ":"), "\(captured.standardError)")
        #expect(captured.standardError.contains(fragment), "\(captured.standardError)")
        #expect(captured.standardOutput.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test func previewCellsEscapeControlCharactersAndTruncate() {
        #expect(PreviewTable.cell("a\nb\tc\r\u{1B}") == "a\\nb\\tc\\r\\u{1B}")
        let long = String(repeating: "x", count: 100)
        #expect(PreviewTable.cell(long) == String(repeating: "x", count: PreviewTable.maximumWidth - 1) + "…")
        let table = PreviewTable.render(
            schema: RowSchema(names: ["a", "when"]),
            rows: [[.string("x"), .dateTime(secondsSinceEpoch: 86_400 + 3_661)], [nil, .date(daysSinceEpoch: 0)]])
        #expect(table == "a  when\n-  -------------------\nx  1970-01-02 01:01:01\n   1970-01-01\n")
    }
}
