import Foundation
import NowSimTesting
import Testing

/// `nowetl run` against nowsim over HTTPS: `source.tls.ca_file`, mutual TLS, `source.proxy`, and
/// libcurl's `HTTPS_PROXY`/`NO_PROXY` from the environment.
@Suite(.timeLimit(.minutes(5))) struct CLITLSTests {
    static let seed = ["--seed", "incident=7", "--seed-value", "5"]

    /// Runs `nowetl run` on a pipeline with `sourceExtra` lines under `source:` in a fresh folder, which
    /// holds `ca.pem`, `client.pem` and `client.key` copied from the test PKI.
    static func run(
        _ sim: NowSimInstance, _ sourceExtra: String, environment: [String: String] = [:]
    ) async throws -> (status: Int32, stderr: String, csv: String?) {
        let pki = try await TestCertificates.shared()
        return try await withScratchDirectory { (directory: URL) in
            for (source, name) in [
                (pki.caCertificate, "ca.pem"), (pki.clientCertificate, "client.pem"), (pki.clientKey, "client.key"),
            ] {
                try FileManager.default.copyItem(atPath: source, toPath: directory.appendingPathComponent(name).path)
            }
            let file = directory.appendingPathComponent("p.yaml")
            try Data(
                """
                version: 1
                source:
                  instance: \(sim.baseURL.absoluteString)
                  auth: { basic: { user: admin, password: admin } }
                \(sourceExtra)
                output_dir: out
                tables: [{ table: incident, fields: [number] }]
                outputs: [{ csv: { path: "{table}.csv" } }]
                """.utf8
            ).write(to: file)
            let result = try await NowETLProcess.run(
                ["run", file.path, "--progress", "off"], in: directory, environment: environment)
            let csv = try? String(contentsOf: directory.appendingPathComponent("out/incident.csv"), encoding: .utf8)
            return (result.status, result.stderrText, csv)
        }
    }

    /// Lines of a CSV export: the header and one per incident.
    static func rowCount(_ csv: String?) -> Int { (csv?.split(whereSeparator: \.isNewline).count ?? 1) - 1 }

    @Test func caFileTrustsASelfSignedInstanceAndItsAbsenceRefusesIt() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https") { sim in
            let trusted = try await Self.run(sim, "  tls: { ca_file: ca.pem }")
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(Self.rowCount(trusted.csv) == 7)

            let untrusted = try await Self.run(sim, "")
            #expect(untrusted.status == 1, "a TLS trust failure is terminal: \(untrusted.stderr)")
            #expect(untrusted.stderr.contains("TLS"), "\(untrusted.stderr)")
            #expect(untrusted.stderr.contains("https://127.0.0.1:\(sim.port)"), "\(untrusted.stderr)")
            #expect(untrusted.csv == nil)
        }
    }

    @Test func mutualTLSWithTheClientCertificateAndWithout() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments(requireClient: true) + Self.seed, scheme: "https") { sim in
            let identified = try await Self.run(
                sim, "  tls: { ca_file: ca.pem, client_cert: client.pem, client_key: client.key }")
            #expect(identified.status == 0, "\(identified.stderr)")
            #expect(Self.rowCount(identified.csv) == 7)

            let anonymous = try await Self.run(sim, "  tls: { ca_file: ca.pem }")
            #expect(anonymous.status == 77, "a refused client is a permission failure: \(anonymous.stderr)")
        }
    }

    @Test func missingCAFileIsAConfigurationErrorBeforeAnyRequest() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https", logRequests: true) { sim in
            let result = try await Self.run(sim, "  tls: { ca_file: nowhere/ca.pem }")
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.contains("p.yaml:5:"), "\(result.stderr)")
            #expect(sim.requestLog.isEmpty)
        }
    }

    @Test func sourceProxyCarriesTheRun() async throws {
        let pki = try await TestCertificates.shared()
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https") { sim in
            let result = try await Self.run(sim, "  tls: { ca_file: ca.pem }\n  proxy: \(proxy.url.absoluteString)")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.rowCount(result.csv) == 7)
            #expect(!proxy.tunnels.isEmpty)
            #expect(proxy.tunnels.allSatisfy { $0 == "127.0.0.1:\(sim.port)" })
        }
    }

    @Test func environmentProxyIsUsedUnlessNoProxyExemptsTheHost() async throws {
        let pki = try await TestCertificates.shared()
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https") { sim in
            // NO_PROXY from the test process's own environment would mask the proxy; the child gets an empty one.
            let proxied = try await Self.run(
                sim, "  tls: { ca_file: ca.pem }",
                environment: ["HTTPS_PROXY": proxy.url.absoluteString, "NO_PROXY": "", "no_proxy": ""])
            #expect(proxied.status == 0, "\(proxied.stderr)")
            #expect(Self.rowCount(proxied.csv) == 7)
            let tunnelsAfterProxied = proxy.tunnels.count
            #expect(tunnelsAfterProxied > 0, "HTTPS_PROXY was not used")

            let exempt = try await Self.run(
                sim, "  tls: { ca_file: ca.pem }",
                environment: [
                    "HTTPS_PROXY": proxy.url.absoluteString, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
                ])
            #expect(exempt.status == 0, "\(exempt.stderr)")
            #expect(Self.rowCount(exempt.csv) == 7)
            #expect(proxy.tunnels.count == tunnelsAfterProxied, "NO_PROXY did not bypass the proxy")
        }
    }
}
