import Foundation
import NowMariaDB
import NowSimTesting
import Testing

/// The TLS modes against a MariaDB of its own offering TLS with a certificate from the tests' own CA
/// (which the system does not trust), and against the shared server, which offers none.
@Suite(.timeLimit(.minutes(5)))
struct MariaDBTLSTests {
    /// The session's cipher (`SHOW STATUS LIKE 'Ssl_cipher'`), empty for a session without TLS.
    static func cipher(_ url: String, password: String) async throws -> String {
        let settings = try MariaDBSettings(url: url, password: password)
        return try await offCooperativePool {
            let connection = try MariaDBConnection.connect(settings)
            let rows = try connection.query("SHOW STATUS LIKE 'Ssl_cipher'")
            return (rows.first?.last ?? nil) ?? ""
        }
    }

    /// What connecting with `url` throws; `nil` when it connects.
    static func failure(_ url: String, password: String) async throws -> MariaDBError? {
        let settings = try MariaDBSettings(url: url, password: password)
        return try await offCooperativePool { () -> MariaDBError? in
            do {
                _ = try MariaDBConnection.connect(settings)
                return nil
            } catch let error as MariaDBError {
                return error
            }
        }
    }

    /// A CA of its own that issued nothing the server holds, made with `openssl` in `directory`.
    static func anotherCA(in directory: URL) async throws -> String {
        let result = try await Subprocess.run(
            Subprocess.tool("openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=another test CA",
            ], directory: directory)
        try #require(result.status == 0, "\(result.output)")
        return directory.appendingPathComponent("other.pem").path
    }

    @Test func verifyFullAcceptsTheServerOnlyWithItsCAAndEveryModeIsKept() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await MariaDBServer.startWithTLS(certificates)
        do {
            let password = server.password
            for host in ["127.0.0.1", "localhost"] {
                let base = "mysql://\(server.user)@\(host):\(server.port)/mysql"
                let verified = try await Self.cipher(
                    base + "?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)", password: password)
                #expect(!verified.isEmpty, "\(host): verify-full with the CA gave no TLS session")
                // Loopback without sslmode: prefer, which takes the TLS the server offers.
                #expect(try MariaDBSettings(url: base, password: password).sslMode == .prefer)
                #expect(try await !Self.cipher(base, password: password).isEmpty, "\(host): prefer")
                #expect(try await !Self.cipher(base + "?sslmode=require", password: password).isEmpty)
                #expect(try await Self.cipher(base + "?sslmode=disable", password: password).isEmpty)
            }
            let base = "mysql://\(server.user)@127.0.0.1:\(server.port)/mysql?sslmode=verify-full"
            try await withScratchDirectory("mariadbTLS") { (directory: URL) in
                let other = try await Self.anotherCA(in: directory)
                // The tests' CA is not among the system's, and another CA did not issue the certificate.
                for url in [base, base + "&sslrootcert=\(other)"] {
                    let error = try #require(try await Self.failure(url, password: password), "\(url) connected")
                    #expect(error.kind == .tls, "\(error)")
                    #expect(error.exitCode == 78)
                    #expect(error.description.contains("sslrootcert=/path/to/ca.pem"), "\(error)")
                    #expect(error.description.contains("sslmode=require"))
                    #expect(!error.description.contains(password))
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The shared server offers no TLS: `require` and `verify-full` refuse it (78), `prefer` goes on
    /// without.
    @Test func aServerWithoutTLSFailsRequireAndVerifyFullButNotPrefer() async throws {
        let server = try await MariaDBServer.shared()
        let base = "mysql://\(server.user)@127.0.0.1:\(server.port)/mysql"
        for mode in ["require", "verify-full"] {
            let error = try #require(
                try await Self.failure(base + "?sslmode=\(mode)", password: server.password), "\(mode) connected")
            #expect(error.kind == .tls, "\(mode): \(error)")
            #expect(error.exitCode == 78)
            #expect(error.description.contains("TLS"), "\(error)")
            #expect(!error.description.contains(server.password))
        }
        #expect(try await Self.cipher(base + "?sslmode=prefer", password: server.password).isEmpty)
    }
}
