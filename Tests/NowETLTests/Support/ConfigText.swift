import Testing

@testable import NowETL

/// The pipeline texts of the configuration suites that expect exact `file:line:column` errors
/// (SinkSQLiteConfigTests, SinkPostgresConfigTests, SinkInstanceConfigTests, ConfigIncrementalTests): their
/// positions count from these lines.
enum ConfigText {
    /// Lines 1–4: version and source (the password from `${SN_PASSWORD}`, which ``load(_:environment:)`` sets).
    static let head = """
        version: 1
        source:
          instance: https://acme.service-now.com
          auth: { basic: { user: etl, password: "${SN_PASSWORD}" } }

        """
    /// Lines 5–6: one full table; the outputs start on line 7, the first output on line 8.
    static let full = head + "tables:\n  - table: incident\noutputs:\n"
    /// Lines 5–7: an incremental table; the outputs start on line 8, the first output on line 9.
    static let incremental = head + "tables:\n  - table: incident\n    mode: incremental\noutputs:\n"

    /// Loads `text` as `p.yaml` with `SN_PASSWORD` set, and `environment`.
    static func load(_ text: String, environment: [String: String] = [:]) throws(ConfigError) -> PipelineConfiguration {
        try PipelineLoader.load(
            text: text, file: "p.yaml", environment: ["SN_PASSWORD": "hunter2"].merging(environment) { $1 })
    }
}

/// A pipeline text and the exact error it must get: the parameterized cases of those suites.
struct ConfigErrorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let expected: String

    init(_ name: String, _ yaml: String, _ expected: String) {
        self.name = name
        self.yaml = yaml
        self.expected = expected
    }

    var testDescription: String { name }
}
