import Foundation
import Testing

@testable import NowETL

/// `source.tls` and `source.proxy`: paths relative to the pipeline file, files checked at load time,
/// certificate and key together, proxy credentials never shown.
@Suite(.timeLimit(.minutes(2))) struct ConfigTLSTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

    /// Writes `source` (indented under `source:`) as a pipeline in a fresh folder with `ca.pem`,
    /// `client.pem` and `client.key`, and loads it.
    static func load(_ source: String) throws -> (PipelineConfiguration, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("certs"), withIntermediateDirectories: true)
        for name in ["certs/ca.pem", "certs/client.pem", "certs/client.key"] {
            try Data(pem.utf8).write(to: directory.appendingPathComponent(name))
        }
        try Data("not a certificate\n".utf8).write(to: directory.appendingPathComponent("certs/plain.txt"))
        let file = directory.appendingPathComponent("p.yaml")
        try Data(
            """
            version: 1
            source:
              instance: https://acme.service-now.com
              auth: { basic: { user: admin, password: admin } }
            \(source)
            tables: [{ table: incident }]
            outputs: [{ csv: { path: "{table}.csv" } }]
            """.utf8
        ).write(to: file)
        return (try PipelineLoader.load(path: file.path, environment: [:]), directory)
    }

    /// The error `load(source)` throws, as text.
    static func failure(_ source: String) -> String {
        do {
            _ = try load(source)
            return "(loaded)"
        } catch {
            return "\(error)"
        }
    }

    @Test func pathsAreRelativeToThePipelineFile() throws {
        let (pipeline, directory) = try Self.load(
            "  tls: { ca_file: certs/ca.pem, client_cert: certs/client.pem, client_key: certs/client.key }")
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("certs").standardizedFileURL.path
        #expect(pipeline.source.tls?.caFile?.standardizedFileURL.path == base + "/ca.pem")
        #expect(pipeline.source.tls?.clientCertificate?.standardizedFileURL.path == base + "/client.pem")
        #expect(pipeline.source.tls?.clientKey?.standardizedFileURL.path == base + "/client.key")
        #expect(pipeline.source.proxy == nil)
    }

    @Test(arguments: [
        ("  tls: { ca_file: certs/missing.pem }", "p.yaml:5:", "cannot read"),
        ("  tls: { ca_file: certs/plain.txt }", "p.yaml:5:", "is not PEM"),
        ("  tls: { client_cert: certs/client.pem }", "p.yaml:5:", "client_key"),
        ("  tls: { client_key: certs/client.key }", "p.yaml:5:", "client_cert"),
        ("  tls: { ca_fle: certs/ca.pem }", "p.yaml:5:", "ca_fle"),
        ("  proxy: ftp://proxy.example:21", "p.yaml:5:", "proxy URL"),
        ("  proxy: not a url", "p.yaml:5:", "proxy URL"),
        ("  proxy: http://etl:pw@proxy.example:312800", "p.yaml:5:", "port 1…65535"),
    ])
    func badSettingsAreConfigurationErrorsWithAPosition(source: String, position: String, phrase: String) {
        let message = Self.failure(source)
        #expect(message.contains(position), "\(message)")
        #expect(message.contains(phrase), "\(message)")
    }

    @Test func proxyCredentialsNeverShow() throws {
        let (pipeline, directory) = try Self.load("  proxy: http://etl:pr0xy-s3cret@proxy.example:3128")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(pipeline.source.proxy?.url.password == "pr0xy-s3cret", "the transport gets the credentials")
        var dumped = ""
        dump(pipeline, to: &dumped)
        #expect(!dumped.contains("pr0xy-s3cret"))
        #expect("\(pipeline.source)".contains("pr0xy-s3cret") == false)
        #expect(pipeline.source.proxy?.description == "http://proxy.example:3128")
        #expect(pipeline.source.secretValues.contains("pr0xy-s3cret"), "the logger redacts the proxy password")
    }
}
