import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl run --metrics-file`: the real binary against the real nowsim, its file read by an independent
/// parser (Python's `prometheus_client`).
@Suite(.timeLimit(.minutes(5))) struct RunMetricsTests {
    /// Prints every sample of a metrics file as JSON `[name, labels, value]`, through
    /// `prometheus_client.parser` (Debian's python3-prometheus-client, in the Makefile's packages).
    private static let parser = """
        import json, sys
        try:
            from prometheus_client.parser import text_string_to_metric_families
        except ImportError:
            sys.exit("prometheus_client is missing: apt-get install python3-prometheus-client "
                     "(or pip install prometheus_client)")
        with open(sys.argv[1], encoding="utf-8") as file:
            families = list(text_string_to_metric_families(file.read()))
        samples = []
        for family in families:
            assert family.type == "gauge" and family.documentation, family.name
            samples += [[s.name, s.labels, s.value] for s in family.samples]
        sys.stdout.write(json.dumps(samples))
        """

    /// One sample as the parser read it.
    private struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            name = try container.decode(String.self)
            labels = try container.decode([String: String].self)
            value = try container.decode(Double.self)
        }
    }

    private static func samples(_ path: URL) async throws -> [Sample] {
        let out = try await SinkTestSupport.output("python3", ["-c", parser, path.path])
        return try JSONDecoder().decode([Sample].self, from: out)
    }

    /// Runs a pipeline of `table` from `instance` (written to `file`) with `--metrics-file` and
    /// `--summary-json` beside it; returns the exit code.
    private static func run(_ table: String, file: URL, instance: String, in directory: URL) async throws -> Int32 {
        try PipelineYAML(instance: instance, tables: "  - table: \(table)").write(to: file)
        let arguments = [
            "run", file.path, "--progress", "off", "--metrics-file", "metrics/nowetl.prom", "--summary-json",
            "summary.json",
        ]
        return try await NowETLProcess.run(arguments, in: directory, environment: [:]).textual.status
    }

    @Test func aRunsMetricsMatchItsSummaryAndAFailedRunKeepsTheLastSuccess() async throws {
        let sim = try await ETLServers.get()
        try await withScratchDirectory { (directory: URL) in
            // A file name with every character the exposition format escapes in a label value.
            let file = directory.appendingPathComponent("night\"ly\\x\ny.yaml")
            let metricsFile = directory.appendingPathComponent("metrics/nowetl.prom")
            let instance = sim.baseURL.absoluteString
            #expect(try await Self.run("incident", file: file, instance: instance, in: directory) == 0)
            let samples = try await Self.samples(metricsFile)
            let pipeline = "night\"ly\\x\ny"
            #expect(samples.allSatisfy { $0.labels["pipeline"] == pipeline })
            func value(_ name: String, table: String? = nil, in samples: [Sample]) -> Double? {
                samples.first { $0.name == name && $0.labels["table"] == table }?.value
            }
            #expect(value("nowetl_exit_code", in: samples) == 0)
            let lastRun = try #require(value("nowetl_last_run_timestamp_seconds", in: samples))
            #expect(value("nowetl_last_success_timestamp_seconds", in: samples) == lastRun)
            #expect(abs(lastRun - Date().timeIntervalSince1970) < 3600)

            let summary = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("summary.json")))
                    as? [String: Any])
            // The same Double, printed by two formatters (JSON's and the exposition format's): equal to
            // the last bits of the shorter one.
            let duration = try #require(value("nowetl_run_duration_seconds", in: samples))
            #expect(abs(duration - (summary["seconds"] as? Double ?? -1)) < 1e-9)
            let table = try #require((summary["tables"] as? [[String: Any]])?.first)
            #expect(value("nowetl_table_status", table: "incident", in: samples) == 1)
            // Every count of the summary's table, TableCounter's among them, under nowetl_table_<key>.
            let names =
                ["rows", "rejects", "hidden_rows", "deleted", "seconds"] + TableCounter.allCases.map(\.rawValue)
            for name in names {
                let expected = try #require((table[name] as? NSNumber)?.doubleValue, "\(name)")
                let metric = try #require(value("nowetl_table_" + name, table: "incident", in: samples), "\(name)")
                #expect(abs(metric - expected) <= 1e-9 * max(1, abs(expected)), "\(name): \(metric) ≠ \(expected)")
            }
            #expect((value("nowetl_table_rows", table: "incident", in: samples) ?? 0) > 100)
            #expect((value("nowetl_table_response_bytes", table: "incident", in: samples) ?? 0) > 0)
            #expect(try SinkTestSupport.listing(metricsFile.deletingLastPathComponent().path) == ["nowetl.prom"])

            // A table the instance does not have: exit 78 before the tables, the last success kept.
            let unknown = try await Self.run(
                "no_such_table", file: file, instance: instance, in: directory)
            #expect(unknown == 78)
            let failed = try await Self.samples(metricsFile)
            #expect(value("nowetl_exit_code", in: failed) == 78)
            #expect(value("nowetl_last_success_timestamp_seconds", in: failed) == lastRun)
            #expect((value("nowetl_last_run_timestamp_seconds", in: failed) ?? 0) >= lastRun)
            #expect(!failed.contains { $0.labels["table"] != nil })

            // An unreachable instance after a damaged file: no last success to carry over.
            try Data("nowetl_last_success_timestamp_seconds{pipeline=\"x\"} soon\n".utf8).write(to: metricsFile)
            let unreachable = try await Self.run(
                "incident", file: file, instance: "http://127.0.0.1:9", in: directory)
            #expect(unreachable == 69)
            let lost = try await Self.samples(metricsFile)
            #expect(value("nowetl_exit_code", in: lost) == 69)
            #expect(value("nowetl_last_success_timestamp_seconds", in: lost) == nil)
        }
    }

    /// A metrics file that cannot be written turns an ok run into exit 1, as the summary JSON does; a
    /// failed run keeps its own code.
    @Test func anUnwritableMetricsFileFailsAnOkRun() async throws {
        try await RunFixture.with { fixture in
            for (outcome, code) in [
                (FakeTableRunner.Behaviour.rows(3, sourceCount: 3), Int32(1)),
                (.fail(CodedError(exitCode: 69, description: "down")), 69),
            ] {
                let captured = CapturedStreams()
                let result = await InProcessNowETL.run(
                    [
                        "run", fixture.pipelinePath, "--table", "incident", "--progress", "off", "--metrics-file",
                        "/dev/null/nowetl.prom",
                    ],
                    environment: RunFixture.environment, streams: captured,
                    makeTableRunner: CLICommandTests.fake(FakeTableRunner(["incident": outcome])))
                #expect(result.code == code, "\(captured.standardError)")
                #expect(captured.standardError.contains("cannot write the metrics file"))
            }
        }
    }

    @Test func theLastSuccessIsReadFromOurLineOnly() {
        let text = """
            # HELP nowetl_last_success_timestamp_seconds When…
            nowetl_last_success_timestamp_seconds_extra{pipeline="a"} 5
            nowetl_last_success_timestamp_seconds{pipeline="a b"} 1700000000.5
            """
        #expect(RunMetrics.lastSuccess(in: text) == 1_700_000_000.5)
        #expect(RunMetrics.lastSuccess(in: "nowetl_last_success_timestamp_seconds NaN\n") == nil)
        #expect(RunMetrics.lastSuccess(in: "nowetl_last_success_timestamp_seconds{") == nil)
        #expect(RunMetrics.lastSuccess(in: "") == nil)
        #expect(RunMetrics.pipelineLabel("/etc/nowetl/nightly.yaml") == "nightly")
    }
}
