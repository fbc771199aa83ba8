import Foundation
import NowSimTesting
import Testing

@testable import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// The real `nowetl` against a real `nowsim` that answers as an instance we do not control may: imported
/// records with odd sys_ids, a server that ignores the cursor, absurd `Retry-After` and counts, huge and
/// compressed-bomb bodies, error texts with terminal escapes (issue 24). Each test failed on 1945ba2
/// (an endless loop, a state file the next run refused, exit 132, hundreds of MB of memory, a title set
/// on the terminal); here each ends in the documented way.
@Suite(.timeLimit(.minutes(5))) struct HostileInstanceTests {
    /// A scratch directory with a pipeline file, removed by ``remove()``.
    struct Scratch {
        let directory: URL
        var pipeline: String { directory.appendingPathComponent("p.yaml").path }
        var output: URL { directory.appendingPathComponent("out") }

        init(_ yaml: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-hostile-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try yaml.write(toFile: directory.appendingPathComponent("p.yaml").path, atomically: true, encoding: .utf8)
        }

        func text(_ name: String) -> String {
            (try? String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func pipeline(
        _ sim: NowSimInstance, table: String = "incident", filter: String? = nil, pageSize: Int = 100,
        concurrency: Int = 2, extra: String = "", source: [String] = [], reject: String = "{ mode: dead_letter }",
        retry: String = "{ attempts: 3, max_wait_seconds: 1, total_seconds: 5 }",
        outputs: String = "  - csv: { path: \"{table}.csv\" }"
    ) -> String {
        let table = """
              - table: \(table)
                fields: [sys_id, number, short_description, sys_updated_on]
                reject: \(reject)
            """
        return PipelineYAML(
            sim, source: ["concurrency: \(concurrency)", "page_size: \(pageSize)", "retry: \(retry)"] + source,
            tables: table + (filter.map { "\n    filter: \($0)" } ?? "") + (extra.isEmpty ? "" : "\n" + extra),
            outputs: outputs
        ).text
    }

    static func run(_ scratch: Scratch, _ arguments: [String] = []) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await NowETLProcess.run(["run", scratch.pipeline, "--progress", "off"] + arguments, in: scratch.directory)
            .textual
    }

    /// An unload document of incidents: `(sys_id, number, sys_updated_on)`.
    static func unload(_ records: [(String, String, String)]) -> Data {
        let body = records.map { sysID, number, updated in
            "<incident action=\"INSERT_OR_UPDATE\"><number>\(number)</number><short_description>imported "
                + "\(number)</short_description><sys_updated_on>\(updated)</sys_updated_on>"
                + "<sys_id>\(sysID.replacingOccurrences(of: "&", with: "&amp;"))</sys_id></incident>\n"
        }
        return Data(
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<unload unload_date=\"2026-11-30 02:00:00\">\n"
                + body.joined() + "</unload>\n").utf8)
    }

    static func importRecords(_ sim: NowSimInstance, _ records: [(String, String, String)]) async throws {
        let imported = try await sim.request(
            "POST", "/api/nowsim/import", headers: ["Content-Type": "application/xml"], body: unload(records))
        try #require(imported.status == 200, "\(String(decoding: imported.body, as: UTF8.self))")
    }

    static let injected = "zz^NQsys_idISNOTEMPTY"

    /// Finding 1: a sys_id with a query in it never reaches a query. On 1945ba2 the 3-record table ran
    /// thousands of pages and the injected `^NQ` group read records outside the filter. Now the record is
    /// rejected into the dead letters, the records after it are exported, the one outside the filter is
    /// not, and the walk takes a handful of requests.
    @Test func aSysIDWithAQueryInItIsRejectedAndNeverPagedAfter() async throws {
        try await withNowSim(arguments: ["--user", "admin:admin:admin"], logRequests: true) { sim in
            try await Self.importRecords(
                sim,
                [
                    ("a0000000000000000000000000000001", "INC0099001", "2026-11-30 01:00:00"),
                    ("legacy-import-0001", "INC0099002", "2026-11-30 01:00:00"),
                    (Self.injected, "INC0099003", "2026-11-30 01:00:00"),
                    ("zzz-after.1", "INC0099004", "2026-11-30 01:00:00"),
                    ("zzzz-outside", "INC0001234", "2026-11-30 01:00:00"),
                ])
            let scratch = try Scratch(Self.pipeline(sim, filter: "numberSTARTSWITHINC0099", pageSize: 1))
            defer { scratch.remove() }
            let result = try await Self.run(scratch)
            #expect(result.status == 0, "\(result.stderr)")
            let csv = scratch.text("incident.csv")
            for exported in ["a0000000000000000000000000000001", "legacy-import-0001", "zzz-after.1"] {
                #expect(csv.contains(exported), "\(csv)")
            }
            #expect(!csv.contains("zzzz-outside") && !csv.contains("INC0001234"))
            #expect(!csv.contains(Self.injected))
            let rejects = scratch.text("incident.rejects.jsonl")
            #expect(rejects.contains(Self.injected), "\(rejects)")
            #expect(rejects.split(separator: "\n").count == 1, "rejected once, not once per page: \(rejects)")
            let pages = sim.requestLog.filter { $0.contains("/api/now/table/incident") }
            #expect(pages.count < 30, "\(pages.count) page requests")
            #expect(!pages.contains { $0.contains("NQsys_id") || $0.contains("%5ENQ") && $0.contains("ISNOTEMPTY") })
        }
    }

    /// Finding 2: an odd but legal sys_id (`legacy-import-0001`) is saved in the state and the next run
    /// reads that state. On 1945ba2 the second run refused the file (exit 78) for good.
    @Test func anImportedSysIDAdvancesTheStateAndTheNextRunReadsIt() async throws {
        try await withNowSim(arguments: ["--user", "admin:admin:admin"]) { sim in
            try await Self.importRecords(
                sim,
                [
                    ("a0000000000000000000000000000001", "INC0099001", "2026-11-30 01:00:00"),
                    ("legacy-import-0001", "INC0099002", "2026-11-30 01:30:00"),
                ])
            let scratch = try Scratch(
                Self.pipeline(
                    sim, extra: "    mode: incremental\n",
                    outputs: "  - json: { path: \"{table}-{run_id}.jsonl\" }"))
            defer { scratch.remove() }
            let first = try await Self.run(scratch)
            #expect(first.status == 0, "\(first.stderr)")
            let state =
                (try? String(contentsOf: scratch.output.appendingPathComponent(".nowetl/state.json"), encoding: .utf8))
                ?? ""
            #expect(state.contains("legacy-import-0001"), "\(state)")
            let second = try await Self.run(scratch)
            #expect(second.status == 0, "\(second.stderr)")
            let show = try await NowETLProcess.run(["state", "show", scratch.pipeline], in: scratch.directory).textual
            #expect(show.status == 0 && show.stdout.contains("legacy-import-0001"), "\(show.stdout)\(show.stderr)")
        }
    }

    /// Finding 5: the dead letters of an incremental table are kept per run. Its state passes the records
    /// a run rejected, so no later run reads them again; on 1945ba2 the next run replaced (or, without
    /// rejects, removed) `incident.rejects.jsonl`. Now three runs leave three files, each listed in its
    /// run's manifest, and a run without rejects removes none.
    @Test func theRejectsOfEveryIncrementalRunStayOnDisk() async throws {
        try await withNowSim(arguments: ["--user", "admin:admin:admin"]) { sim in
            let scratch = try Scratch(
                Self.pipeline(
                    sim,
                    extra: "    mode: incremental\n    columns:\n      - { name: sys_id, path: sys_id }\n"
                        + "      - { name: number, path: number, type: int }\n",
                    outputs: "  - json: { path: \"{table}-{run_id}.jsonl\" }"))
            defer { scratch.remove() }
            var runIDs: [String] = []
            for (index, hour) in ["01", "02", "03", "04"].enumerated() {
                if index < 3 {
                    // A number that is no int: the record is rejected into the dead letters.
                    try await Self.importRecords(
                        sim, [("b000000000000000000000000000000\(index)", "INC00\(index)X", "2026-11-30 \(hour):00:00")]
                    )
                }
                let result = try await Self.run(scratch)
                #expect(result.status == 0, "run \(index + 1): \(result.stderr)")
                let manifest = try #require(
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: scratch.output.appendingPathComponent("manifest.json")))
                        as? [String: Any])
                let runID = try #require(manifest["run_id"] as? String)
                let listed = (manifest["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
                if index < 3 {
                    runIDs.append(runID)
                    #expect(listed.contains("incident.rejects-\(runID).jsonl"), "\(listed)")
                } else {
                    #expect(!listed.contains { $0.contains("rejects") }, "\(listed)")
                }
            }
            for (index, runID) in runIDs.enumerated() {
                let lines = scratch.text("incident.rejects-\(runID).jsonl").split(separator: "\n")
                #expect(lines.count == 1 && lines.first?.contains("INC00\(index)X") == true, "\(lines)")
            }
        }
    }

    /// Finding 15: every request a table's pages and counts took is in the summary's `requests`, those
    /// of tries that failed at a larger page size included (on 1945ba2 a page that met a 429, then a
    /// cancelled transaction, then 503s was one short of the server's log).
    @Test func theSummaryCountsEveryRequestTheServerSaw() async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=300", "--user", "admin:admin:admin"],
            faults: [
                "rate-limit:retry-after=0,table=incident,every=4", "truncate:table=incident,every=5",
                "status:code=503,table=incident,every=7",
            ], logRequests: true
        ) { sim in
            let scratch = try Scratch(
                Self.pipeline(
                    sim, pageSize: 40, concurrency: 2,
                    retry: "{ attempts: 20, max_wait_seconds: 0.2, total_seconds: 60 }"))
            defer { scratch.remove() }
            let result = try await Self.run(scratch, ["--summary-json", "summary.json"])
            #expect(result.status == 0, "\(result.stderr)")
            let summary = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: scratch.directory.appendingPathComponent("summary.json")))
                    as? [String: Any])
            let tables = summary["tables"] as? [[String: Any]] ?? []
            let requests = tables.first?["requests"] as? Int
            let served = sim.requestLog.filter {
                $0.contains(" /api/now/table/incident?") || $0.contains(" /api/now/stats/incident?")
            }
            #expect(requests == served.count, "summary \(requests ?? -1), server \(served.count)")
        }
    }

    /// Finding 15: a migration's progress file keeps imported sys_ids (on 1945ba2 only 32 hex digits
    /// were read back, so a rerun wrote `legacy-import-0001` again), and a line that breaks the rule is
    /// not taken for a confirmation.
    @Test func theMigrationProgressKeepsImportedSysIDs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-progress-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ids = ["a0000000000000000000000000000001", "legacy-import-0001", "ACME_42.1"]
        let first = try InstanceLoadProgress.open(directory: directory, name: "incident.progress", loadID: "load-1")
        try first.confirm(ids)
        first.close()
        let path = directory + "/incident.progress"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("zz^NQsys_idISNOTEMPTY\n".utf8))
        try handle.close()
        let again = try InstanceLoadProgress.open(directory: directory, name: "incident.progress", loadID: "load-1")
        defer { again.close() }
        #expect(again.confirmed == Set(ids))
    }

    /// A server (or proxy) that ignores `sys_id>` returns the first page again and again: on 1945ba2 the
    /// range never ended. Now the first repeated page fails the table (exit 1), naming the cursor, and
    /// nothing is published.
    @Test func aServerThatIgnoresTheCursorFailsTheRangeInsteadOfLooping() async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=30", "--user", "admin:admin:admin"], faults: ["stuck-cursor"],
            logRequests: true
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim, pageSize: 5, concurrency: 1))
            defer { scratch.remove() }
            let result = try await Self.run(scratch)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("does not honour the keyset cursor"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.output.appendingPathComponent("incident.csv").path))
            let pages = sim.requestLog.filter { $0.contains("/api/now/table/incident") }
            #expect(pages.count < 10, "\(pages.count) page requests")
        }
    }

    /// Finding 3: `Retry-After: 1e30` and `999999` no longer trap (exit 132 on 1945ba2) nor hold the run
    /// for days: the request fails within the retry budget with exit 75.
    @Test(arguments: ["1e30", "999999", "-5", "NaN", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func anAbsurdRetryAfterEndsWithinTheBudget(value: String) async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"],
            faults: ["retry-after:table=incident,value=\(value)"]
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim))
            defer { scratch.remove() }
            let result = try await Self.run(scratch, ["--keep-going"])
            #expect(result.status == 75, "Retry-After \(value): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        }
    }

    /// Finding 3: a count of `-9223372036854775808` (and other non-counts) from the Aggregate API is an
    /// error naming it, never an overflow (exit 132 on 1945ba2, and again on the resume).
    @Test(arguments: ["-9223372036854775808", "99999999999999999999", "1e400", "12abc"])
    func anAbsurdCountIsAnErrorNotATrap(value: String) async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"],
            faults: ["count:table=incident,value=\(value)"]
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim))
            defer { scratch.remove() }
            for attempt in 1...2 {
                let result = try await Self.run(scratch)
                #expect(result.status == 1, "count \(value), run \(attempt): \(result.stderr)")
                #expect(result.stderr.contains("is not a record count"), "\(result.stderr)")
            }
        }
    }

    /// Finding 4: an answer larger than `max_response_mb`, and a gzip body that inflates past it, end the
    /// request with a message naming the limit; memory stays bounded (nowsim streams the body; the client
    /// stops reading at the limit). An answer in an encoding not asked for is refused before decoding.
    @Test(arguments: ["oversize:3MB", "gzip-bomb:512MB", "content-encoding:br"])
    func anOversizedOrUnaskedForBodyIsRefused(fault: String) async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"], faults: [fault + ",table=incident"]
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim, source: ["max_response_mb: 2"]))
            defer { scratch.remove() }
            let result = try await Self.run(scratch)
            #expect(result.status != 0 && result.status < 128, "\(fault): \(result.status) \(result.stderr)")
            let expected = fault.hasPrefix("content-encoding") ? "not asked for" : "2097152-byte limit"
            #expect(result.stderr.contains(expected), "\(fault): \(result.stderr)")
        }
    }

    /// Finding 11: a running `nowetl` has no core-file allowance (and is not dumpable), so a crash cannot
    /// write its credentials to disk; `NOWETL_CORE_DUMPS=1` keeps the system's setting.
    @Test func aRunningNowetlWritesNoCoreFile() async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"], faults: ["delay:ms=3000"],
            logRequests: true
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim))
            defer { scratch.remove() }
            for asked in [false, true] {
                let before = sim.requestLog.count
                let child = try NowETLProcess.start(
                    ["run", scratch.pipeline, "--progress", "off"], in: scratch.directory,
                    environment: asked ? [CoreDumpPolicy.environmentVariable: "1"] : [:])
                defer { child.removeDirectory() }
                // Once nowsim has its first request the policy (main's first statement) is in force, and the
                // delayed answer keeps the run alive meanwhile.
                for _ in 0..<1000 where sim.requestLog.count == before && child.poll() == nil {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let limits = (try? String(contentsOfFile: "/proc/\(child.pid)/limits", encoding: .utf8)) ?? ""
                _ = await child.terminate(grace: 20)
                let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
                let soft = core.split(separator: " ").dropFirst(4).first.map(String.init) ?? "?"
                if asked {
                    #expect(soft != "0" || Self.systemCoreLimitIsZero, "\(core)")
                } else {
                    #expect(soft == "0", "\(core)")
                }
            }
        }
    }

    /// Whether this test process itself may write no core file (then asking for core dumps keeps 0).
    static var systemCoreLimitIsZero: Bool {
        var limit = rlimit()
        return getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 && limit.rlim_cur == 0
    }

    /// Finding 10: an error text with ESC sequences, C1 controls and a right-to-left override reaches the
    /// terminal escaped (on 1945ba2 it set the window title and cleared the screen).
    @Test func anErrorTextCannotDriveTheTerminal() async throws {
        try await withNowSim(
            arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"], faults: ["ansi-error:table=incident"]
        ) { sim in
            let scratch = try Scratch(Self.pipeline(sim))
            defer { scratch.remove() }
            for format in ["text", "json"] {
                let result = try await Self.run(scratch, ["--log-format", format])
                #expect(result.status != 0, "\(result.stderr)")
                #expect(result.stderr.contains("Invalid table"), "\(result.stderr)")
                for control in ["\u{1B}", "\u{7}", "\u{9B}", "\u{202E}", "\r", "\u{8}", "\u{0}"] {
                    #expect(!result.stderr.contains(control), "\(format): \(control.unicodeScalars.map(\.value))")
                }
            }
        }
    }
}
