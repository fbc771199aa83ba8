import Foundation
import Testing

@testable import NowETL

/// `${VAR}` substitution in scalar values.
@Suite(.timeLimit(.minutes(5))) struct ConfigInterpolationTests {
    static let environment = ["A": "alpha", "E": "", "N": "42"]

    static func value(_ yaml: String) throws(ConfigError) -> String {
        let document = try YAMLReader.parse(Array("v: \(yaml)\n".utf8), file: "i.yaml")
        return try YAMLDecoder(environment: environment).decode([String: String].self, from: document)["v"] ?? "-"
    }

    @Test(arguments: [
        ("'${A}'", "alpha"),
        ("x-${A}-y", "x-alpha-y"),
        ("\"${A}\"", "alpha"),
        ("'${B:-fallback}'", "fallback"),
        ("'${E:-fallback}'", "fallback"),
        ("'${A:-fallback}'", "alpha"),
        ("'${B:-}'", ""),
        ("'${B:-a:b}c}'", "a:bc}"),
        ("'$$'", "$"),
        ("'$${A}'", "${A}"),
        ("pa$word", "pa$word"),
        ("'5$'", "5$"),
        ("'${A}${A}'", "alphaalpha"),
        ("|\n  line ${A}\n", "line alpha\n"),
    ])
    func substitutes(yaml: String, expected: String) throws {
        #expect(try Self.value(yaml) == expected)
    }

    @Test(arguments: [
        (
            "'${MISSING}'",
            "i.yaml:1:5: error: environment variable MISSING is not set (used for v); set it (environment, --var, "
                + ".env beside the pipeline file), or give a default with "
                + "${MISSING:-default}"
        ),
        (
            "x${E}",
            "i.yaml:1:5: error: environment variable E is empty (used for v); set it, or give a default with ${E:-default}"
        ),
        (
            "'${1A}'",
            "i.yaml:1:5: error: malformed reference '${1A}' in v; write ${NAME} or ${NAME:-default}, and $$ for a literal $"
        ),
        (
            "'${A-b}'",
            "i.yaml:1:5: error: malformed reference '${A-b}' in v; write ${NAME} or ${NAME:-default}, and $$ for a literal $"
        ),
        (
            "'${}'",
            "i.yaml:1:5: error: malformed reference '${}' in v; write ${NAME} or ${NAME:-default}, and $$ for a literal $"
        ),
        ("'ab${A'", "i.yaml:1:7: error: unterminated '${' in v; close it with '}', or write $$ for a literal $"),
    ])
    func refuses(yaml: String, expected: String) {
        do {
            let value = try Self.value(yaml)
            Issue.record("substituted to \(value)")
        } catch {
            #expect(error.description == expected)
            #expect(error.kind == .environment)
        }
    }

    struct Limits: Decodable, Equatable {
        var count: Int?
        var flag: Bool
    }

    @Test func substitutionHappensBeforeTypesAndNulls() throws {
        let decoder = YAMLDecoder(environment: Self.environment)
        func limits(_ yaml: String) throws(ConfigError) -> Limits {
            try decoder.decode(Limits.self, from: YAMLReader.parse(Array(yaml.utf8), file: "i.yaml"))
        }
        #expect(try limits("count: ${N}\nflag: ${F:-true}\n") == Limits(count: 42, flag: true))
        #expect(try limits("count: ${NONE:-}\nflag: false\n") == Limits(count: nil, flag: false))
        #expect(throws: ConfigError.self) { try limits("count: \"${N}\"\nflag: true\n") }
    }

    @Test func keysAreNotSubstituted() throws {
        let document = try YAMLReader.parse(Array("${A}: x\n".utf8), file: "i.yaml")
        #expect(
            try YAMLDecoder(environment: Self.environment).decode([String: String].self, from: document) == [
                "${A}": "x"
            ])
    }

    @Test func secretFilesAreReadTrimmedAndNeverPrinted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-secret-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sn")
        try "t0p-s3cret\r\n".write(to: file, atomically: true, encoding: .utf8)
        let empty = directory.appendingPathComponent("empty")
        try "\n".write(to: empty, atomically: true, encoding: .utf8)

        func load(_ passwordFile: String, pageSize: String = "10") throws(ConfigError) -> PipelineConfiguration {
            try PipelineLoader.load(
                text: """
                    version: 1
                    source:
                      instance: https://acme.service-now.com
                      auth: { basic: { user: etl, password_file: "\(passwordFile)" } }
                      page_size: \(pageSize)
                    tables: [{ table: incident }]
                    outputs: [{ csv: { path: "{table}.csv" } }]
                    """, file: "s.yaml", environment: ["DIR": directory.path])
        }
        #expect(try load("${DIR}/sn").source.auth == .basic(user: "etl", password: Secret("t0p-s3cret")))
        do {
            _ = try load("${DIR}/sn", pageSize: "0")
            Issue.record("page_size 0 accepted")
        } catch {
            #expect(error.description == "s.yaml:5:14: error: source.page_size must be between 1 and 10000, got 0")
        }
        do {
            _ = try load("${DIR}/empty")
            Issue.record("empty secret accepted")
        } catch {
            #expect(error.kind == .secretFile)
            #expect(
                error.description
                    == "s.yaml:4:46: error: the secret file '\(empty.path)' named by source.auth.basic.password_file is empty"
            )
        }
        do {
            _ = try load(directory.path)
            Issue.record("directory accepted as a secret file")
        } catch {
            #expect(error.description.hasSuffix("source.auth.basic.password_file: it is a directory"))
        }
    }
}
