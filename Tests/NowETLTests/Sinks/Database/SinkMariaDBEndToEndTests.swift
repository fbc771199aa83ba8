import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The real `nowetl` binary loading a real nowsim's incidents into the throwaway MariaDB; the table is
/// read back with the `mariadb` client.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkMariaDBEndToEndTests {
    static let seeded = 300

    static func withRun(
        seedValue: Int, _ name: String, _ body: (NowSimInstance, MariaDBTestDatabase, URL) async throws -> Void
    ) async throws {
        try await withMariaDBDatabase { database in
            try await DatabaseEndToEnd.withSimRun(incidents: Self.seeded, seedValue: seedValue, name) {
                sim, directory in
                try await body(sim, database, directory)
            }
        }
    }

    /// A replace run is atomic to a reader polling the table all through it, a run killed with its
    /// tables loaded but not committed leaves the previous data, and one killed after the COMMIT is
    /// skipped by its rerun (the append table is not doubled).
    @Test func replaceIsAtomicToAPollingReaderAndAKilledRunLeavesThePreviousData() async throws {
        try await Self.withRun(seedValue: 7, "mariadbCrash") { sim, database, directory in
            try DatabaseEndToEnd.writeCrashPipeline(
                sim, output: "mysql: { url: \"${MYSQL_URL}\", password: \"${MYSQL_PASSWORD}\"", in: directory)
            let environment = ["MYSQL_URL": database.url, "MYSQL_PASSWORD": database.password]
            func run(crashingAt point: String? = nil) async throws -> (status: Int32, log: String) {
                try await DatabaseEndToEnd.run(directory, environment: environment, crashingAt: point, timeout: 240)
            }
            let counts =
                "SELECT concat((SELECT count(*) FROM incident), '/', (SELECT count(*) FROM incident_log), '/', "
                + "(SELECT count(*) FROM _nowetl_loads))"
            var result = try await run()
            try #require(result.status == 0, "run 1: \(result.log)")
            #expect(!result.log.contains(database.password))
            #expect(try await database.sql(counts) == "\(Self.seeded)/\(Self.seeded)/2\n")

            // A reader polls the replaced table through a whole run: it sees all rows, never 0 or a part.
            let reader = Task { () -> Set<String> in
                var seen: Set<String> = []
                while !Task.isCancelled {
                    if let count = try? await database.sql("SELECT count(*) FROM incident") {
                        seen.insert(count.trimmingCharacters(in: .newlines))
                    }
                }
                return seen
            }
            result = try await run()
            reader.cancel()
            let seen = await reader.value
            try #require(result.status == 0, "run 2: \(result.log)")
            #expect(seen == ["\(Self.seeded)"])

            let dump =
                "SELECT md5(group_concat(concat_ws('|', sys_id, number, short_description) ORDER BY sys_id)) FROM incident"
            result = try await DatabaseEndToEnd.crashScenario(
                sim, seeded: Self.seeded, loads: 2, run: { try await run(crashingAt: $0) },
                query: { try await database.sql($0).trimmingCharacters(in: .newlines) }, counts: counts, dump: dump)
            #expect(!result.log.contains(database.password))
        }
    }

    @Test func connectionFailuresExitWithTheirCodesAndNeverShowThePassword() async throws {
        try await withNowSim(arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"]) { sim in
            let server = try await MariaDBServer.shared()
            try await withScratchDirectory("mariadbFailures") { (directory: URL) in
                let wrong = "Wr0ng-\(UUID().uuidString.prefix(8))"
                let refused = try RefusedPort()
                let cases: [(url: String, password: String, status: Int32, names: String)] = [
                    (server.url(database: "mysql"), wrong, 77, "127.0.0.1:\(server.port)/mysql"),
                    (server.url(database: "no_such_db"), server.password, 78, "no_such_db"),
                    (
                        "mysql://u@127.0.0.1:\(refused.port)/reporting?connect_timeout=10", wrong, 69,
                        "127.0.0.1:\(refused.port)/reporting"
                    ),
                ]
                for item in cases {
                    try DatabaseEndToEnd.writePipeline(
                        sim, outputs: ["mysql: { url: \"\(item.url)\", password: \"${MYSQL_PASSWORD}\" }"],
                        in: directory)
                    let result = try await DatabaseEndToEnd.run(
                        directory, environment: ["MYSQL_PASSWORD": item.password], timeout: 240)
                    #expect(result.status == item.status, "\(item.url): \(result.log)")
                    #expect(result.log.contains(item.names), "\(result.log)")
                    #expect(!result.log.contains(item.password), "\(result.log)")
                }
            }
        }
    }

    /// `sslmode=verify-full` to `localhost` with `sslrootcert` naming the CA that issued the server's
    /// certificate (a path relative to the pipeline) loads over TLS; without it (the system's CAs, which
    /// do not hold the tests' CA) the run exits 78 saying what to do, never showing the password.
    @Test func verifyFullLoadsOverTLSWithTheServersCAAndExits78Without() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await MariaDBServer.startWithTLS(certificates)
        do {
            try await server.withDatabase { database in
                try await DatabaseEndToEnd.withSimRun(incidents: 5, seedValue: 3, "mariadbTLSRun") { sim, directory in
                    try FileManager.default.copyItem(
                        atPath: certificates.caCertificate, toPath: directory.appendingPathComponent("ca.pem").path)
                    let url = "mysql://\(server.user)@localhost:\(server.port)/\(database.name)?sslmode=verify-full"
                    for (parameter, status) in [("", Int32(78)), ("&sslrootcert=ca.pem", 0)] {
                        try DatabaseEndToEnd.writePipeline(
                            sim, outputs: ["mysql: { url: \"\(url + parameter)\", password: \"${MYSQL_PASSWORD}\" }"],
                            in: directory)
                        let result = try await DatabaseEndToEnd.run(
                            directory, environment: ["MYSQL_PASSWORD": database.password], timeout: 240)
                        #expect(result.status == status, "\(parameter): \(result.log)")
                        #expect(!result.log.contains(database.password))
                        if status == 78 {
                            #expect(result.log.contains("sslrootcert=/path/to/ca.pem"), "\(result.log)")
                        }
                    }
                    #expect(try await database.sql("SELECT count(*) FROM incident") == "5\n")
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
