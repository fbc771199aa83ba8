import Foundation
import NowSimTesting
import Testing

/// `datetime_format: iso8601` through the real `nowetl` against the real `nowsim`, read by Python.
@Suite(.timeLimit(.minutes(5))) struct SinkDateTimeFormatEndToEndTests {
    static let pipeline = PipelineYAML(
        auth: PipelineYAML.placeholderAuthBlock, source: ["page_size: 100"],
        tables: """
              - table: incident
                filter: priority=1
                fields: [number, opened_at, sys_updated_on, closed_at]
                display_value: all
                columns:
                  - { name: number, path: number.value }
                  - { name: opened_at, path: opened_at.value }
                  - { name: opened_text, path: opened_at.display_value }
                  - { name: updated, path: sys_updated_on }
                  - { name: closed_at, path: closed_at.value }
            """,
        outputs: """
              - csv: { path: "{table}.iso.csv", datetime_format: iso8601 }
              - json: { path: "{table}.iso.jsonl", datetime_format: iso8601 }
              - csv: { path: "{table}.csv" }
            """
    ).text

    /// Python's csv and json modules reading the three files, as `{"iso_csv": rows, "jsonl": objects, "csv": rows}`.
    static let reader = """
        import csv, json, sys
        def rows(path):
            with open(path, newline="", encoding="utf-8") as f:
                return list(csv.DictReader(f))
        with open("out/incident.iso.jsonl", encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        json.dump({"iso_csv": rows("out/incident.iso.csv"), "jsonl": lines, "csv": rows("out/incident.csv")}, sys.stdout)
        """

    struct Files: Decodable {
        var isoCSV: [[String: String]]
        var jsonl: [[String: String?]]
        var csv: [[String: String]]
        enum CodingKeys: String, CodingKey {
            case isoCSV = "iso_csv"
            case jsonl, csv
        }
    }

    @Test func isoOutputsRewriteDateTimeFieldsAndNothingElse() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory { (directory: URL) in
            try Self.pipeline.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let environment = ["SN_INSTANCE": sim.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin"]
            let run = try await NowETLProcess.run(
                ["run", "p.yaml", "--progress", "off", "--summary-json", "s.json"], in: directory,
                environment: environment)
            #expect(run.status == 0, "\(run.stderrText)")

            let read = try await Subprocess.run("python3", ["-c", Self.reader], directory: directory, timeout: 60)
            #expect(read.status == 0, "\(read.stderrText)")
            let files = try JSONDecoder().decode(Files.self, from: Data(read.stdoutText.utf8))
            #expect(
                files.csv.count > 5 && files.isoCSV.count == files.csv.count && files.jsonl.count == files.csv.count)

            let instanceForm = #/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/#
            func iso(_ text: String) -> String {
                text.isEmpty ? "" : text.replacingOccurrences(of: " ", with: "T") + "Z"
            }
            var closedEmpty = 0
            for (index, plain) in files.csv.enumerated() {
                let opened = try #require(plain["opened_at"])
                #expect(opened.wholeMatch(of: instanceForm) != nil, "\(opened)")
                for row in [files.isoCSV[index], files.jsonl[index].mapValues { $0 ?? "" }] {
                    #expect(row["number"] == plain["number"])
                    #expect(row["opened_at"] == iso(opened))
                    #expect(row["updated"] == iso(try #require(plain["updated"])))
                    // Display values are the user's locale text: never rewritten.
                    #expect(row["opened_text"] == plain["opened_text"])
                    // Empty stays empty (a JSON null stays null: a missing value, written as "" in CSV).
                    #expect(row["closed_at"] == iso(try #require(plain["closed_at"])))
                }
                if plain["closed_at"] == "" { closedEmpty += 1 }
            }

            // Run times in the artifacts nowetl writes are ISO 8601 with Z.
            let isoTime = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/#
            let manifest = try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("out/manifest.json")))
            let summary = try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("s.json")))
            let manifestStarted = try #require((manifest as? [String: Any])?["run_started"] as? String)
            let summaryStarted = try #require((summary as? [String: Any])?["run_started"] as? String)
            #expect(manifestStarted.wholeMatch(of: isoTime) != nil && manifestStarted == summaryStarted)
            #expect(closedEmpty > 0 && closedEmpty < files.csv.count, "closed_at empty in \(closedEmpty) rows")
        }
    }
}
