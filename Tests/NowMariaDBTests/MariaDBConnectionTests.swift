import Foundation
import NowMariaDB
import NowSimTesting
import Testing

/// ``MariaDBConnection`` against the throwaway MariaDB server: statements, parameters that hold any
/// character, transactions, and the failures with their exit codes.
@Suite(.timeLimit(.minutes(5)))
struct MariaDBConnectionTests {
    private func connect(_ database: MariaDBTestDatabase) throws -> MariaDBConnection {
        try MariaDBConnection.connect(MariaDBSettings(url: database.url, password: database.password))
    }

    @Test func parametersRoundTripEveryCharacter() async throws {
        try await withMariaDBDatabase { database in
            try await offCooperativePool {
                let connection = try connect(database)
                try connection.execute("CREATE TABLE t (k VARCHAR(32) PRIMARY KEY, v LONGTEXT) COLLATE utf8mb4_bin")
                let values = ["it's \"quoted\" \\ back", "line\nbreak\ttab\r", "nul\u{0}inside", "emoji 😀 𝄞", "", "a"]
                let insert = try connection.prepare("INSERT INTO t (k, v) VALUES (?, ?)")
                for (index, value) in values.enumerated() { try insert.execute(["k\(index)", value]) }
                try insert.execute(["K0", nil])
                let rows = try connection.query("SELECT k, v FROM t ORDER BY k")
                #expect(rows.count == values.count + 1)
                #expect(rows.first == ["K0", nil])
                for (index, value) in values.enumerated() {
                    #expect(try connection.query("SELECT v FROM t WHERE k = ?", parameters: ["k\(index)"]) == [[value]])
                }
                #expect(try connection.query("SELECT count(*) FROM t WHERE v = ?", parameters: ["A"]) == [["0"]])
            }
        }
    }

    @Test func transactionsAndSavepoints() async throws {
        try await withMariaDBDatabase { database in
            try await offCooperativePool {
                let connection = try connect(database)
                try connection.execute("CREATE TABLE t (n BIGINT) ENGINE=InnoDB")
                try connection.begin()
                #expect(connection.isInTransaction)
                #expect(try connection.execute("INSERT INTO t VALUES (1), (2)") == 2)
                try connection.execute("SAVEPOINT s1")
                try connection.execute("INSERT INTO t VALUES (3)")
                try connection.execute("ROLLBACK TO SAVEPOINT s1")
                try connection.commit()
                #expect(!connection.isInTransaction)
                #expect(try connection.query("SELECT count(*) FROM t") == [["2"]])
                try connection.begin()
                try connection.execute("INSERT INTO t VALUES (4)")
                try connection.rollback()
                #expect(try connection.query("SELECT count(*) FROM t") == [["2"]])
            }
        }
    }

    @Test func failuresHaveTheirExitCodes() async throws {
        try await withMariaDBDatabase { database in
            try await offCooperativePool {
                func failure(_ url: String, password: String?) -> MariaDBError? {
                    do {
                        _ = try MariaDBConnection.connect(MariaDBSettings(url: url, password: password))
                        return nil
                    } catch {
                        return error
                    }
                }
                let wrong = failure(database.url, password: "wrong-password-123")
                #expect(wrong?.exitCode == 77)
                #expect(wrong.map { !$0.description.contains("wrong-password-123") } == true)
                let missing = failure(
                    database.server.url(database: "no_such_database"), password: database.password)
                #expect(missing?.exitCode == 78)
                let refused = try RefusedPort()
                let unreachable = failure("mysql://u@127.0.0.1:\(refused.port)/x?connect_timeout=5", password: "p")
                #expect(unreachable?.exitCode == 69)
                let unknownHost = failure("mysql://u@no-such-host.invalid/x?sslmode=disable", password: "p")
                #expect(unknownHost?.exitCode == 69)
            }
        }
    }
}
