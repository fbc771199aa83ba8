import Foundation
import NowPostgres
import NowSimTesting
import Testing

/// `verify-full` against a server of its own offering TLS with a certificate from the tests' own CA, which
/// the system does not trust: refused with advice until the URL names that CA.
@Suite(.timeLimit(.minutes(5)))
struct PostgresTLSTests {
    @Test func verifyFullRefusesAnUntrustedCertificateWithAdviceAndAcceptsItsCA() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await PostgresServer.startWithTLS(certificates)
        do {
            let base = "postgres://\(server.superuser)@127.0.0.1:\(server.port)/postgres"
            let untrusted = try PostgresSettings(url: base + "?sslmode=verify-full", password: server.password)
            let error = try #require(try await connectionFailure(untrusted))
            #expect(error.kind == .tls)
            #expect(error.exitCode == 78)
            #expect(error.description.contains("certificate verify failed"), "\(error)")
            #expect(error.description.contains("sslrootcert=/path/to/ca.pem"))
            #expect(error.description.contains("sslmode=require"))
            #expect(!error.description.contains(server.password))

            let trusted = try PostgresSettings(
                url: base + "?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)", password: server.password)
            let verified = try await blocking { try PostgresConnection.connect(trusted) }
            #expect(
                try await blocking { try verified.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") }
                    == [["t"]])
            // Loopback without sslmode: prefer, which takes the TLS the server offers.
            let loopback = try PostgresSettings(url: base, password: server.password)
            #expect(loopback.sslMode == .prefer)
            let preferred = try await blocking { try PostgresConnection.connect(loopback) }
            #expect(
                try await blocking { try preferred.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") }
                    == [["t"]])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
