import Foundation
import NowPostgres
import NowSimTesting
import Testing

/// The session settings every connection carries (statement and lock timeouts) against the throwaway
/// server: their defaults as the server sees them, and what exceeding them gives.
@Suite(.timeLimit(.minutes(5)))
struct PostgresTimeoutTests {
    @Test func theServerRunsTheSessionWithTheDefaultTimeouts() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let shown = try await blocking {
                try connection.query(
                    "SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), "
                        + "current_setting('idle_in_transaction_session_timeout')")
            }
            // 3600 s and 300 s, as PostgreSQL prints them; the idle-in-transaction timeout is the server's.
            #expect(shown == [["1h", "5min", "0"]])
            let statementTimeout = try await blocking { try connection.query("SHOW statement_timeout") }
            #expect(statementTimeout == [["1h"]])
        }
    }

    @Test func aStatementPastItsTimeoutIsATemporaryFailure() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database) { $0.statementTimeout = 1 }
            let error = try await postgresFailure { try connection.execute("SELECT pg_sleep(60)") }
            let failure = try #require(error)
            #expect(failure.kind == .timeout)
            #expect(failure.exitCode == 75)
            #expect(failure.sqlState == "57014")
            #expect(failure.description.contains("statement timeout"))
            #expect(!failure.description.contains(database.password))
            // The connection stays usable.
            #expect(try await blocking { try connection.query("SELECT 1") } == [["1"]])
        }
    }

    @Test func waitingPastTheLockTimeoutIsATemporaryFailure() async throws {
        try await withPostgresDatabase { database in
            _ = try await database.psql("CREATE TABLE held (id int)")
            let holder = try await connect(database)
            try await blocking {
                try holder.begin()
                try holder.execute("LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
            }
            let waiter = try await connect(database) { $0.lockTimeout = 1 }
            let error = try await postgresFailure { _ = try waiter.query("SELECT count(*) FROM held") }
            try await blocking { try holder.rollback() }
            let failure = try #require(error)
            #expect(failure.kind == .timeout)
            #expect(failure.exitCode == 75)
            #expect(failure.sqlState == "55P03")
            #expect(failure.description.contains("lock timeout"))
        }
    }
}
