import Foundation
import NowSimTesting
import Testing

/// The `nowsim` command line itself: HTTPS, usage errors and exit codes.
@Suite(.timeLimit(.minutes(5))) struct ServeCommandTests {
    /// Runs `program` with `arguments`, returning its exit status and combined output.
    private func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await Subprocess.run(program, arguments, timeout: 120)
        return (result.status, result.output)
    }

    @Test func servesHTTPSWithTheGivenCertificate() async throws {
        try await withScratchDirectory { (directory: URL) in
            let certificate = directory.appendingPathComponent("cert.pem").path
            let key = directory.appendingPathComponent("key.pem").path
            let made = try await run(
                Subprocess.tool("openssl"),
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
                ])
            try #require(made.status == 0, "openssl: \(made.output)")

            try await withNowSim(
                arguments: ["--tls-cert", certificate, "--tls-key", key, "--seed", "incident=5"], scheme: "https"
            ) { sim in
                let url = "https://127.0.0.1:\(sim.port)/api/now/table/incident?sysparm_fields=number"
                let trusted = try await run(
                    Subprocess.tool("curl"), ["-sS", "--cacert", certificate, "-u", "admin:admin", url])
                #expect(trusted.status == 0, "\(trusted.output)")
                #expect(trusted.output.hasPrefix(#"{"result":[{"number":"INC"#))
                let untrusted = try await run(Subprocess.tool("curl"), ["-sS", "-u", "admin:admin", url])
                #expect(untrusted.status != 0, "a self-signed certificate must not be trusted by default")
                let plain = try await run(
                    Subprocess.tool("curl"),
                    ["-sS", "-u", "admin:admin", "http://127.0.0.1:\(sim.port)/api/now/table/incident"])
                #expect(plain.status != 0 || !plain.output.contains("result"))
                // Links name the scheme the caller used.
                let linked = try await run(
                    Subprocess.tool("curl"),
                    [
                        "-sS", "--cacert", certificate, "-u", "admin:admin",
                        "https://127.0.0.1:\(sim.port)/api/now/table/incident?sysparm_fields=caller_id&sysparm_limit=1&sysparm_query=caller_idISNOTEMPTY",
                    ])
                #expect(linked.output.contains("\"link\":\"https://127.0.0.1:\(sim.port)/api/now/table/sys_user/"))
            }
        }
    }

    @Test(arguments: [
        (["serve", "--port", "70000"], "--port needs a number"),
        (["serve", "--bogus"], "unknown option '--bogus'"),
        (["serve", "--tls-cert", "x.pem"], "--tls-cert and --tls-key go together"),
        (["serve", "--tls-client-ca", "ca.pem"], "--tls-client-ca needs --tls-cert and --tls-key"),
        (["serve", "--seed", "incident=abc"], "incident=abc"),
        (["serve", "--seed", "no_such_table=5"], "no_such_table"),
        (["serve", "--user", "justaname"], "justaname"),
        (["serve", "--fault", "explode"], "unknown fault kind 'explode'"),
        (["seed", "--db", "/tmp/x.sqlite"], "nowsim seed: missing --seed SPEC"),
        (["import", "records.xml"], "nowsim import: missing --db PATH"),
        (["import", "--db", "/tmp/x.sqlite"], "nowsim import: missing argument FILE.xml"),
        (["import", "--db", "/tmp/x.sqlite", "--force", "records.xml"], "nowsim import: unknown option '--force'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        ([], "missing command"),
    ])
    func usageErrorsExit64WithAMessage(arguments: [String], message: String) async throws {
        let result = try await run(NowSimInstance.binaryPath(), arguments)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.output.contains(message), "\(arguments): \(result.output)")
        #expect(result.output.contains("USAGE:"))
    }

    /// A usage error with stderr on a full disk still exits 64 (Foundation's FileHandle.write trapped: 132).
    @Test func aUsageErrorWithStandardErrorOnAFullDiskStillExits64() async throws {
        let result = try await run(
            "/bin/sh", ["-c", #"exec "$0" serve --bogus 2>/dev/full"#, NowSimInstance.binaryPath()])
        #expect(result.status == 64, "\(result.output)")
    }

    @Test func versionAndHelpExit0() async throws {
        let version = try await run(NowSimInstance.binaryPath(), ["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("nowsim "))
        let help = try await run(NowSimInstance.binaryPath(), ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("EXIT CODES"))
    }

    @Test func aTakenPortExits1() async throws {
        try await withNowSim { sim in
            let result = try await run(NowSimInstance.binaryPath(), ["serve", "--port", "\(sim.port)", "--quiet"])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("\(sim.port)"))
        }
    }

    @Test func seedCommandFillsADatabaseDeterministically() async throws {
        try await withScratchDirectory { (directory: URL) in
            var dumps: [String] = []
            for name in ["a", "b"] {
                let path = directory.appendingPathComponent("\(name).sqlite").path
                let result = try await run(
                    NowSimInstance.binaryPath(),
                    ["seed", "--db", path, "--seed", "incident=50,problem=5", "--seed-value", "9"])
                #expect(result.status == 0, "\(result.output)")
                #expect(result.output.contains("incident"))
                let dump = try await run(
                    Subprocess.tool("sqlite3"),
                    [path, "SELECT sys_id, number, short_description FROM task ORDER BY rowid"])
                dumps.append(dump.output)
            }
            #expect(dumps[0] == dumps[1])
            #expect(dumps[0].split(separator: "\n").count >= 55)
        }
    }
}
