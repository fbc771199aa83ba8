import Foundation
import NowSimTesting
import Testing

/// A run that fails before it starts never looks like success: the real `nowetl` replaces last night's
/// `"status": "ok"` summary with a failed one (its exit code and error kind), and under
/// `--log-format json` every line on standard error is JSON — both read by Python's json module.
@Suite(.timeLimit(.minutes(5))) struct EarlyFailureSummaryTests {
    /// A wrong password that must appear nowhere.
    private static let wrongPassword = "Wr0ng-Secret-2929"

    /// What a failed start does: the pipeline file's text, the environment, the exit code and the error
    /// kind expected.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let code: Int32
        let kind: String
        let make: @Sendable (_ instance: String) -> (yaml: String, environment: [String: String])
        var testDescription: String { name }
    }

    /// Python: the summary is one JSON document; every non-empty line of the log is a JSON object.
    /// Prints `status exit_code kind`.
    private static let checker = """
        import json, sys
        summary = json.load(open(sys.argv[1]))
        for number, line in enumerate(open(sys.argv[2]).read().splitlines(), 1):
            if line.strip():
                value = json.loads(line)
                assert isinstance(value, dict), "line %d is no object" % number
        print(summary["status"], summary["exit_code"], summary["error"]["kind"], len(summary["tables"]))
        """

    static let cases: [Case] = [
        Case(name: "bad YAML", code: 78, kind: "syntax") { instance in
            (PipelineYAML(instance: instance).text + "  - [unclosed\n", [:])
        },
        Case(name: "missing ${VAR}", code: 78, kind: "environment") { instance in
            (PipelineYAML(instance: instance, auth: PipelineYAML.placeholderAuth).text, ["SN_USER": "admin"])
        },
        Case(name: "401 wrong password", code: 77, kind: "authentication") { instance in
            (
                PipelineYAML(instance: instance, auth: PipelineYAML.placeholderAuth).text,
                ["SN_USER": "admin", "SN_PASSWORD": wrongPassword]
            )
        },
        Case(name: "unknown field", code: 78, kind: "invalidValue") { instance in
            (PipelineYAML(instance: instance, tables: "  - table: incident\n    fields: [number, prioirty]").text, [:])
        },
        Case(name: "unreachable instance", code: 69, kind: "unreachable") { _ in
            (PipelineYAML(instance: "${SN_INSTANCE}", auth: PipelineYAML.placeholderAuth).text, [:])
        },
    ]

    @Test(arguments: cases, [false, true])
    func aFailedStartReplacesTheLastSummary(_ failure: Case, json: Bool) async throws {
        let sim = try await ETLServers.get()
        let refused = try RefusedPort()
        try await withScratchDirectory { (directory: URL) in
            let instance = sim.baseURL.absoluteString
            var (yaml, environment) = failure.make(instance)
            if failure.name == "unreachable instance" {
                environment = [
                    "SN_INSTANCE": refused.baseURL.absoluteString, "SN_USER": "admin",
                    "SN_PASSWORD": Self.wrongPassword,
                ]
            }
            try yaml.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            // Last night's summary, a success.
            let okSummary = #"{ "version": 1, "status": "ok", "exit_code": 0, "tables": [] }"#
            try okSummary.write(to: directory.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
            var arguments = ["run", "p.yaml", "--progress", "off", "--summary-json", "s.json"]
            if json { arguments += ["--log-format", "json"] }
            let result = try await NowETLProcess.run(arguments, in: directory, environment: environment).textual
            #expect(result.status == failure.code, "\(result.stderr)")
            let summary = try String(contentsOf: directory.appendingPathComponent("s.json"), encoding: .utf8)
            #expect(!result.stderr.contains(Self.wrongPassword))
            #expect(!summary.contains(Self.wrongPassword))
            try result.stderr.write(
                to: directory.appendingPathComponent("stderr.log"), atomically: true, encoding: .utf8)
            let checked = try await Subprocess.run(
                "/usr/bin/python3", ["-c", Self.checker, "s.json", json ? "stderr.log" : "/dev/null"],
                directory: directory, timeout: 60)
            #expect(checked.status == 0, "\(checked.stderrText)\n\(result.stderr)")
            #expect(
                checked.stdoutText == "failed \(failure.code) \(failure.kind) 0\n", "\(summary)\n\(result.stderr)")
            if !json {
                // Text lines as before: no JSON, no key=value for the error itself.
                #expect(!result.stderr.hasPrefix("{"), "\(result.stderr)")
            }
            // Atomic: nothing but the summary, the pipeline and the captured log is left beside them.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(names.allSatisfy { ["p.yaml", "s.json", "stderr.log", "out"].contains($0) }, "\(names)")
        }
    }

    @Test("a 403 on a table: the summary says failed, 77 and its kind, naming the user and the table")
    func aTableTheUserMayNotReadIsAFailedRunWithItsKind() async throws {
        let sim = try await NowSimInstance.shared(
            arguments: ETLServers.seed + [
                "--user", "admin:admin:admin", "--user", "viewer:V1ewer-pw",
                "--table-acl", "incident=itil",
            ])
        try await withScratchDirectory { (directory: URL) in
            let yaml = PipelineYAML(
                instance: sim.baseURL.absoluteString, auth: #"{ basic: { user: viewer, password: "V1ewer-pw" } }"#
            ).text
            try yaml.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            let okSummary = #"{ "version": 1, "status": "ok", "exit_code": 0, "tables": [] }"#
            try okSummary.write(to: directory.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
            let result = try await NowETLProcess.run(
                ["run", "p.yaml", "--progress", "off", "--summary-json", "s.json", "--log-format", "json"],
                in: directory
            ).textual
            #expect(result.status == 77, "\(result.stderr)")
            try result.stderr.write(
                to: directory.appendingPathComponent("stderr.log"), atomically: true, encoding: .utf8)
            let checked = try await Subprocess.run(
                "/usr/bin/python3", ["-c", Self.checker, "s.json", "stderr.log"], directory: directory, timeout: 60)
            #expect(checked.status == 0, "\(checked.stderrText)\n\(result.stderr)")
            #expect(checked.stdoutText == "failed 77 authentication 1\n", "\(checked.stdoutText)\n\(result.stderr)")
            let summary = try String(contentsOf: directory.appendingPathComponent("s.json"), encoding: .utf8)
            #expect(summary.contains("denied user viewer read access to table incident"), "\(summary)")
            #expect(!summary.contains("V1ewer-pw") && !result.stderr.contains("V1ewer-pw"))
        }
    }
}
