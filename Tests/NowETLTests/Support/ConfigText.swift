import Foundation
import NowSimTesting
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

extension ConfigText {
    /// Checks that `yaml`, loaded as `p.yaml` with exactly `environment`, fails with the message
    /// `expected`, exit 78, the kind `kind` (when given), and none of `hidden` in the message.
    static func expectMistake(
        _ yaml: String, _ expected: String, kind: ConfigError.Kind? = nil,
        environment: [String: String] = ["SN_PASSWORD": "hunter2"], hidden: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let configuration = try PipelineLoader.load(text: yaml, file: "p.yaml", environment: environment)
            Issue.record("loaded without an error: \(configuration)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description == expected, sourceLocation: sourceLocation)
            if let kind { #expect(error.kind == kind, sourceLocation: sourceLocation) }
            #expect(error.exitCode == 78, sourceLocation: sourceLocation)
            for secret in hidden { #expect(!error.description.contains(secret), sourceLocation: sourceLocation) }
        }
    }

    /// Runs `body` with the path of a file that holds `contents`: a `password_file:` of a pipeline text.
    static func withSecretFile<Value>(_ contents: String, _ body: (String) throws -> Value) throws -> Value {
        try withScratchDirectory { (directory: URL) in
            let file = directory.appendingPathComponent("secret")
            try contents.write(to: file, atomically: true, encoding: .utf8)
            return try body(file.path)
        }
    }
}

/// A pipeline text and the exact error it must get: the parameterized cases of those suites.
struct ConfigErrorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    /// The error's kind, where the suite checks it too.
    let kind: ConfigError.Kind?
    let expected: String

    init(_ name: String, _ yaml: String, _ expected: String) {
        self.name = name
        self.yaml = yaml
        self.kind = nil
        self.expected = expected
    }

    init(_ name: String, _ yaml: String, _ kind: ConfigError.Kind, _ expected: String) {
        self.name = name
        self.yaml = yaml
        self.kind = kind
        self.expected = expected
    }

    /// ``ConfigText/expectMistake(_:_:kind:environment:hidden:sourceLocation:)`` of this case.
    func check(hidden: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        ConfigText.expectMistake(yaml, expected, kind: kind, hidden: hidden, sourceLocation: sourceLocation)
    }

    var testDescription: String { name }
}
