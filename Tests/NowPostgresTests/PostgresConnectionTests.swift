import Foundation
import NowPostgres
import NowSimTesting
import Testing

/// Statements, parameters and transactions against the throwaway server.
@Suite(.timeLimit(.minutes(5)))
struct PostgresConnectionTests {
    @Test func connectsAndQueries() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let rows = try await blocking { try connection.query("SELECT current_database(), current_user, 1 + 1") }
            #expect(rows == [[database.name, database.server.superuser, "2"]])
            #expect(connection.serverVersion >= 100_000)
            let version = try await database.psql("SHOW server_version_num")
            #expect(Int(version.trimmingCharacters(in: .whitespacesAndNewlines)) == connection.serverVersion)
            #expect(connection.description == database.url)
            #expect(!connection.description.contains(database.password))
        }
    }

    @Test func parametersRoundTripAwkwardText() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let large = String(repeating: "60 KB of 'text' \\ with\ttabs\nand lines 🚀 ", count: 1_600)
            #expect(large.utf8.count > 60_000)
            for text in awkwardTexts + [large, ""] {
                let rows = try await blocking {
                    try connection.query(
                        "SELECT $1::text, length($1::text), $2::text IS NULL", parameters: [text, nil])
                }
                #expect(
                    rows == [[text, String(text.unicodeScalars.count), "t"]], "\(text.prefix(40).debugDescription)")
            }
        }
    }

    @Test func aNULInAParameterIsRefusedNamingIt() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let error = await #expect(throws: PostgresError.self) {
                try await blocking { try connection.query("SELECT $1::text, $2::text", parameters: ["ok", "a\u{0}b"]) }
            }
            #expect(error?.kind == .invalidValue)
            #expect(error?.description.contains("$2") == true)
            #expect(try await blocking { try connection.query("SELECT 'still usable'") } == [["still usable"]])
        }
    }

    @Test func serverErrorsCarrySQLStateAndSQL() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let error = await #expect(throws: PostgresError.self) {
                try await blocking { try connection.execute("SELECT * FROM no_such_table") }
            }
            #expect(error?.sqlState == "42P01")
            #expect(error?.kind == .statement)
            #expect(error?.exitCode == 1)
            #expect(error?.sql == "SELECT * FROM no_such_table")
            #expect(error?.description.contains("no_such_table") == true)
            #expect(error?.description.contains(database.name) == true)
            #expect(error?.description.contains(database.password) == false)
        }
    }

    @Test func transactionsCommitAndRollBack() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            try await blocking {
                try connection.execute("CREATE TABLE t (n integer)")
                try connection.begin()
                #expect(connection.isInTransaction)
                try connection.execute("INSERT INTO t VALUES (1)")
                try connection.commit()
                #expect(!connection.isInTransaction)
                try connection.begin()
                try connection.execute("INSERT INTO t VALUES (2)")
                try connection.rollback()
            }
            #expect(try await database.psql("SELECT string_agg(n::text, ',') FROM t") == "1\n")
        }
    }

    @Test func committingAFailedTransactionThrows() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connectInTransaction(
                database, setup: "CREATE TABLE t (n integer)", inTransaction: "INSERT INTO t VALUES (1)")
            _ = await #expect(throws: PostgresError.self) {
                try await blocking { try connection.execute("INSERT INTO t VALUES ('x')") }
            }
            let error = await #expect(throws: PostgresError.self) { try await blocking { try connection.commit() } }
            #expect(error?.kind == .misuse)
            #expect(!connection.isInTransaction)
            #expect(try await database.psql("SELECT count(*) FROM t") == "0\n")
        }
    }

    @Test func aPermissionErrorIs77() async throws {
        try await withPostgresDatabase { database in
            let owner = try await connect(database)
            let role = "reader_" + database.name.suffix(8)
            try await blocking {
                try owner.execute("CREATE TABLE secret (n integer)")
                try owner.execute("CREATE ROLE \(role) LOGIN PASSWORD 'reader-pass'")
            }
            var settings = try PostgresSettings(url: database.url, password: "reader-pass")
            settings.user = role
            let readerSettings = settings
            let reader = try await blocking { try PostgresConnection.connect(readerSettings) }
            let error = await #expect(throws: PostgresError.self) {
                try await blocking { try reader.query("SELECT * FROM secret") }
            }
            #expect(error?.kind == .permissionDenied)
            #expect(error?.sqlState == "42501")
            #expect(error?.exitCode == 77)
            #expect(error?.user == role)
        }
    }
}
