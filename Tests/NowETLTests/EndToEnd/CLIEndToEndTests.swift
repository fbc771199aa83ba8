import Foundation
import NowSimTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real `nowetl` binary against the real `nowsim`: what a cron job sees.
@Suite(.timeLimit(.minutes(5))) struct CLIEndToEndTests {
    /// Runs the tool `program` with `arguments` and `environment` in `directory`.
    private static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL
    )
        async throws -> (status: Int32, stdout: String, stderr: String)
    {
        let result = try await Subprocess.run(
            program, arguments, directory: directory, environment: environment, timeout: 300)
        return (result.status, result.stdoutText, result.stderrText)
    }

    /// The seeded incidents into gzip CSV, unload XML and gzip JSON Lines. `badConfigurationExits78WithItsPosition`
    /// names line 11 (the filter): the block `auth` keeps it there.
    private static func pipeline(concurrency: Int, outputDirectory: String) -> String {
        PipelineYAML(
            auth: PipelineYAML.placeholderAuthBlock, source: ["concurrency: \(concurrency)", "page_size: 100"],
            outputDirectory: outputDirectory, tables: PipelineYAML.incidentColumns(filter: "active=true^ORpriority<=2"),
            outputs: """
                  - csv: { path: "{table}.csv.gz" }
                  - xml: { path: "{table}.xml", format: unload }
                  - json: { path: "{table}.jsonl.gz" }
                """
        ).text
    }

    @Test func concurrencyOneAndEightWriteIdenticalFiles() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory { (directory: URL) in
            let environment = ["SN_INSTANCE": sim.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin"]
            var contents: [[String: Data]] = []
            for concurrency in [1, 8] {
                let file = directory.appendingPathComponent("c\(concurrency).yaml")
                try Self.pipeline(concurrency: concurrency, outputDirectory: "out\(concurrency)")
                    .write(to: file, atomically: true, encoding: .utf8)
                let result = try await NowETLProcess.run(
                    ["run", file.path, "--progress", "off", "--summary-json", "s\(concurrency).json"], in: directory,
                    environment: environment
                ).textual
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!result.stderr.contains("admin:admin"))
                var files: [String: Data] = [:]
                for name in ["incident.csv.gz", "incident.xml", "incident.jsonl.gz"] {
                    files[name] = try Data(contentsOf: directory.appendingPathComponent("out\(concurrency)/\(name)"))
                }
                contents.append(files)
                let xml = try await Self.run(
                    "/usr/bin/xmllint", ["--noout", "out\(concurrency)/incident.xml"], in: directory)
                #expect(xml.status == 0, "\(xml.stderr)")
                let gzip = try await Self.run(
                    "/bin/gzip", ["-t", "out\(concurrency)/incident.csv.gz", "out\(concurrency)/incident.jsonl.gz"],
                    in: directory)
                #expect(gzip.status == 0, "\(gzip.stderr)")
                let summary = try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("s\(concurrency).json")))
                #expect(summary as? [String: Any] != nil)
                // The page bodies received: every record's JSON at least, whatever the concurrency.
                let table = ((summary as? [String: Any])?["tables"] as? [[String: Any]])?.first ?? [:]
                let rows = table["rows"] as? Int ?? 0
                #expect(rows > 100 && (table["response_bytes"] as? Int ?? 0) > rows * 20, "\(table)")
            }
            // The unload header carries the run's own time, which may differ by a second between the runs.
            for index in contents.indices {
                contents[index]["incident.xml"] = Self.withoutUnloadDate(contents[index]["incident.xml"] ?? Data())
            }
            #expect(contents[0] == contents[1], "the same pipeline at concurrency 1 and 8 must write the same bytes")

            // The values equal the source exactly: JSON Lines read back with gzip and Foundation's parser
            // against the instance's own answer to the same filter.
            let lines = try await Self.run("/bin/gzip", ["-dc", "out1/incident.jsonl.gz"], in: directory)
            let exported = lines.stdout.split(separator: "\n").map {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
            }
            let source = try await Self.run(
                "/usr/bin/curl",
                [
                    "-sS", "-u", "admin:admin",
                    sim.baseURL.absoluteString
                        + "/api/now/table/incident?sysparm_query=active%3Dtrue%5EORpriority%3C%3D2"
                        + "%5EORDERBYsys_id&sysparm_fields=sys_id,number,short_description,description,priority"
                        + "&sysparm_exclude_reference_link=true",
                ], in: directory)
            let rows =
                ((try JSONSerialization.jsonObject(with: Data(source.stdout.utf8)) as? [String: Any])?["result"]
                    as? [[String: String]]) ?? []
            #expect(rows.count > 100 && exported.count == rows.count)
            for (row, line) in zip(rows, exported) {
                #expect(line["sys_id"] as? String == row["sys_id"])
                #expect(line["number"] as? String == row["number"])
                let text = { (name: String) -> String? in row[name].flatMap { $0.isEmpty ? nil : $0 } }
                #expect(line["short_description"] as? String == text("short_description"), "\(row["sys_id"] ?? "")")
                #expect(line["description"] as? String == text("description"), "\(row["sys_id"] ?? "")")
                #expect(line["priority"] as? Int == Int(row["priority"] ?? ""))
            }
            #expect((contents[0]["incident.xml"]?.count ?? 0) > 10_000)
        }
    }

    /// The crontab line's `>>/var/log/nowetl.log 2>&1` on a full disk: stdout and stderr on `/dev/full`.
    /// Foundation's FileHandle.write trapped there (exit 132 before any export); now the run exports,
    /// exits 0 and counts the lost lines in the summary JSON.
    @Test func runExportsWithStandardOutputAndErrorOnAFullDisk() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory { (directory: URL) in
            let file = directory.appendingPathComponent("p.yaml")
            try Self.pipeline(concurrency: 2, outputDirectory: "out").write(to: file, atomically: true, encoding: .utf8)
            let environment = ["SN_INSTANCE": sim.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin"]
            let result = try await Self.run(
                "/bin/sh",
                [
                    "-c", #"exec "$0" run "$1" --summary-json summary.json >/dev/full 2>/dev/full"#, NowETLProcess.path,
                    file.path,
                ], environment: environment, in: directory)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let summary = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("summary.json")))
                    as? [String: Any])
            #expect(summary["status"] as? String == "ok")
            #expect((summary["log_writes_dropped"] as? Int ?? 0) > 0)
            let gzip = try await Self.run(
                "/bin/gzip", ["-t", "out/incident.csv.gz", "out/incident.jsonl.gz"], in: directory)
            #expect(gzip.status == 0, "\(gzip.stderr)")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/manifest.json").path))
        }
    }

    /// SIGTERM or SIGINT to the real binary in the middle of a slow export (250 ms a page, 120 pages):
    /// the run stops, nothing is committed and no temporary file stays, the pages fetched stay in the
    /// run journal, the summary says interrupted, and the exit code is 143 or 130.
    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aStopSignalEndsARunningExportCleanlyAndKeepsTheJournal(signal: Int32, code: Int32) async throws {
        let sim = try await ETLServers.get(fault: "delay:ms=250")
        try await withScratchDirectory { (directory: URL) in
            let file = directory.appendingPathComponent("p.yaml")
            try """
            version: 1
            source:
              instance: ${SN_INSTANCE}
              auth: { basic: { user: admin, password: admin } }
              concurrency: 1
              page_size: 10
            output_dir: out
            tables:
              - table: incident
                fields: [number, short_description]
            outputs:
              - csv: { path: "{table}.csv" }
              - json: { path: "{table}.jsonl.gz" }
            """.write(to: file, atomically: true, encoding: .utf8)
            let child = try NowETLProcess.start(
                ["run", file.path, "--progress", "off", "--summary-json", "s.json"], in: directory,
                environment: ["SN_INSTANCE": sim.baseURL.absoluteString])
            defer { child.removeDirectory() }
            // Signal once the journal holds a few pages, i.e. in the middle of the export.
            let output = directory.appendingPathComponent("out").path
            let journal = output + "/.nowetl/tables/incident/journal.jsonl"
            func journaledPages() -> Int {
                let text = (try? String(contentsOfFile: journal, encoding: .utf8)) ?? ""
                return text.components(separatedBy: "\"kind\":\"page\"").count - 1
            }
            var fetching = false
            for _ in 0..<2_400 where !fetching {
                fetching = journaledPages() >= 3
                if !fetching { try await Task.sleep(for: .milliseconds(50)) }
            }
            try #require(fetching, "the export never journaled a page: \(child.printed)")
            kill(child.pid, signal)
            let result = try await child.wait(timeout: 120)
            #expect(result.status == code, "\(result.stderrText)")
            let interrupted = result.stderrText.split(separator: "\n").first { $0.contains("msg=interrupted") }
            #expect(interrupted?.contains("journal_tables=incident") == true, "\(result.stderrText)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
            #expect(left.sorted() == [".nowetl", ".nowetl.lock"], "nothing committed, the journal kept: \(left)")
            #expect(journaledPages() >= 3, "the pages fetched stay in the journal")
            let everything = FileManager.default.subpaths(atPath: output) ?? []
            #expect(!everything.contains { $0.contains(".tmp-") }, "\(everything)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("s.json")))
                    as? [String: Any])
            #expect(summary["status"] as? String == "interrupted")
        }
    }

    /// `data` with the value of the `unload_date` attribute blanked.
    static func withoutUnloadDate(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        return Data(
            text.replacingOccurrences(
                of: #"unload_date="[^"]*""#, with: #"unload_date="""#, options: .regularExpression
            )
            .utf8)
    }

    @Test func badConfigurationExits78WithItsPosition() async throws {
        try await withScratchDirectory { (directory: URL) in
            let text = Self.pipeline(concurrency: 2, outputDirectory: "out").replacingOccurrences(
                of: "    filter: active=true^ORpriority<=2", with: "    filtr: active=true")
            try text.write(to: directory.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
            for command in ["validate", "run"] {
                let result = try await NowETLProcess.run(
                    [command, "bad.yaml"], in: directory,
                    environment: ["SN_INSTANCE": "http://127.0.0.1:9", "SN_USER": "u", "SN_PASSWORD": "p"]
                ).textual
                #expect(result.status == 78, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("bad.yaml:11:5:"), "\(command): \(result.stderr)")
                #expect(result.stderr.contains("filter"), "a suggestion: \(result.stderr)")
            }
        }
    }
}
