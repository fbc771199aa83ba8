import Foundation

/// A throwaway PKI for TLS tests, made with the `openssl` command in a temporary folder: a CA, a server
/// certificate for `127.0.0.1`/`localhost` and a client certificate, all issued by that CA.
///
/// Get it through ``shared()`` (made once per test process, P-256 keys so it is quick).
public struct TestCertificates: Sendable {
    /// The folder holding the files.
    public let directory: URL
    /// The CA certificate (PEM): trust it to trust the server, require it to accept the client.
    public var caCertificate: String { path("ca.pem") }
    /// The server certificate (PEM), for `nowsim --tls-cert`.
    public var serverCertificate: String { path("server.pem") }
    /// The server key (PEM), for `nowsim --tls-key`.
    public var serverKey: String { path("server.key") }
    /// The client certificate (PEM), for mutual TLS.
    public var clientCertificate: String { path("client.pem") }
    /// The client key (PEM).
    public var clientKey: String { path("client.key") }

    /// The arguments that make nowsim serve HTTPS with the server certificate, and with `requireClient`
    /// ask for a client certificate issued by the CA.
    public func nowsimArguments(requireClient: Bool = false) -> [String] {
        ["--tls-cert", serverCertificate, "--tls-key", serverKey]
            + (requireClient ? ["--tls-client-ca", caCertificate] : [])
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private static let made = Task { try await make() }

    /// The certificates of this test process, made on first use.
    public static func shared() async throws -> TestCertificates { try await made.value }

    private static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(
            ["req", "-x509"] + key + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=nowetl test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
        for (name, usage, serial) in [("server", "serverAuth", "2"), ("client", "clientAuth", "3")] {
            let extensions = directory.appendingPathComponent("\(name).ext")
            let names = name == "server" ? "subjectAltName=IP:127.0.0.1,DNS:localhost\n" : ""
            try Data("\(names)extendedKeyUsage=\(usage)\nbasicConstraints=CA:FALSE\n".utf8).write(to: extensions)
            try await openssl(
                ["req"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=nowetl test \(name)"],
                in: directory)
            try await openssl(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                    "-days", "2", "-out", "\(name).pem", "-extfile", extensions.path,
                ], in: directory)
        }
        return certificates
    }

    private static func openssl(_ arguments: [String], in directory: URL) async throws {
        let result = try await Subprocess.run(Subprocess.tool("openssl"), arguments, directory: directory)
        guard result.status == 0 else {
            throw NowSimStartFailure(description: "openssl \(arguments.joined(separator: " ")): \(result.output)")
        }
    }
}
