import Foundation
import NowPostgres
import NowSimTesting
import Testing

/// Connection failures against the throwaway server (and a port nothing listens on): kind, exit code,
/// and a message naming host, port and database but never the password.
@Suite(.timeLimit(.minutes(5)))
struct PostgresConnectionFailureTests {
    @Test func aWrongPasswordIs77AndDoesNotShowThePassword() async throws {
        let server = try await PostgresServer.shared()
        let wrong = "Wr0ngPassw0rd-\(UUID().uuidString.prefix(8))"
        let settings = try PostgresSettings(url: server.url(database: "postgres"), password: wrong)
        let error = try #require(try await connectionFailure(settings))
        #expect(error.kind == .authentication)
        #expect(error.exitCode == 77)
        #expect(error.description.contains("password authentication failed"))
        #expect(error.description.contains("127.0.0.1:\(server.port)/postgres"))
        #expect(error.description.contains(server.superuser))
        #expect(!error.description.contains(wrong))
        #expect(!error.description.contains(server.password))
    }

    @Test func aMissingDatabaseIs78() async throws {
        let server = try await PostgresServer.shared()
        let settings = try PostgresSettings(url: server.url(database: "no_such_database"), password: server.password)
        let error = try #require(try await connectionFailure(settings))
        #expect(error.kind == .missingDatabase)
        #expect(error.exitCode == 78)
        #expect(error.description.contains("no_such_database"))
        #expect(!error.description.contains(server.password))
    }

    @Test func nothingListeningIs69() async throws {
        let refused = try RefusedPort()
        let settings = try PostgresSettings(
            url: "postgres://etl@127.0.0.1:\(refused.port)/reporting?connect_timeout=10", password: "not-shown")
        let error = try #require(try await connectionFailure(settings))
        #expect(error.kind == .unreachable)
        #expect(error.exitCode == 69)
        #expect(error.description.contains("127.0.0.1:\(refused.port)/reporting"))
        #expect(!error.description.contains("not-shown"))
    }

    @Test func sslRequireAgainstAServerWithoutTLSFailsClearly() async throws {
        let server = try await PostgresServer.shared()
        var settings = try PostgresSettings(url: server.url(database: "postgres"), password: server.password)
        settings.sslMode = .require
        let error = try #require(try await connectionFailure(settings))
        #expect(error.kind == .tls)
        #expect(error.exitCode == 78)
        #expect(error.description.contains("SSL"))
        // The same server accepts the connection when TLS is only preferred.
        settings.sslMode = .prefer
        let preferred = settings
        let connection = try await blocking { try PostgresConnection.connect(preferred) }
        #expect(
            try await blocking { try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") } == [
                ["f"]
            ])
    }
}

/// What a broken session and the harness itself look like.
@Suite(.timeLimit(.minutes(5)))
struct PostgresSessionTests {
    @Test func aTerminatedSessionIsATransientConnectionLoss() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let pid = try #require(
                try await blocking { try connection.query("SELECT pg_backend_pid()") }.first?.first ?? nil)
            #expect(try await database.psql("SELECT pg_terminate_backend(\(pid))") == "t\n")
            let error = await #expect(throws: PostgresError.self) {
                try await blocking { try connection.query("SELECT 1") }
            }
            #expect(error?.kind == .connectionLost)
            #expect(error?.isTransient == true)
            #expect(error?.exitCode == 75)
        }
    }

    @Test func asRootTheServerRunsAsNobody() async throws {
        let server = try await PostgresServer.shared()
        let status = try String(contentsOfFile: "/proc/\(server.pid)/status", encoding: .utf8)
        let uidLine = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }.map(String.init) ?? ""
        let realUID = uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.map(String.init)
        #expect(realUID == String(getuid() == 0 ? 65534 : getuid()), "\(uidLine)")
        #expect(status.contains("Name:\tpostgres"))
    }
}
