import Foundation
import NowSQLite
import NowSim
import NowSimTesting
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct SQLiteConnectionTests {}

private func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("nowsim-test-\(UUID().uuidString).sqlite").path
}

private func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

extension SQLiteConnectionTests {
    @Test func sqliteRoundTripsTextAndNull() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE t (a TEXT, b TEXT)")
        try db.withStatement("INSERT INTO t VALUES (?, ?)") { insert in
            try insert.bind([.text("héllo, \"wörld\" 🎉"), .null])
            try insert.step()
        }
        try db.withStatement("SELECT a, b FROM t") { select throws in
            #expect(try select.step())
            #expect(select.text(0) == "héllo, \"wörld\" 🎉")
            #expect(select.text(1) == nil)
            #expect(try select.step() == false)
        }
    }

    @Test func aCachedStatementLeftOnARowDoesNotKeepAnOldSnapshot() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let reader = try SQLiteConnection(path: path)
        let writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE t (a INTEGER)")
        try writer.execute("INSERT INTO t VALUES (1), (2)")
        func firstAndCount() throws -> Int {
            // Stops on the first row, as `SELECT 1 … LIMIT 1` lookups do.
            try reader.withStatement("SELECT (SELECT COUNT(*) FROM t) FROM t") { statement in
                try statement.step() ? statement.integer(0) : -1
            }
        }
        #expect(try firstAndCount() == 2)
        #expect(reader.activeStatementCount == 0)
        try writer.transaction { try writer.execute("INSERT INTO t VALUES (3)") }
        #expect(try firstAndCount() == 3)
        // The reader holds no snapshot, so it can take the write lock at once.
        try reader.transaction { try reader.execute("INSERT INTO t VALUES (4)") }
        #expect(try writer.scalarInteger("SELECT COUNT(*) FROM t") == 4)
    }

    @Test func theSameSQLRunningInsideItselfGetsAStatementOfItsOwn() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT a FROM t WHERE a >= ? ORDER BY a"
        let pairs = try db.withStatement(sql) { outer in
            try outer.bind(2, at: 1)
            var pairs: [[Int]] = []
            while try outer.step() {
                let value = outer.integer(0)
                let inner = try db.withStatement(sql) { inner in
                    try inner.bind(value, at: 1)
                    return try inner.step() ? inner.integer(0) : -1
                }
                pairs.append([value, inner])
            }
            return pairs
        }
        #expect(pairs == [[2, 2], [3, 3]])
    }

    @Test func thePoolTakesBackConnectionsWithoutAnOpenReadOrTransaction() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = SQLiteConnectionPool(path: path, capacity: 1)
        try pool.withConnection { db throws in
            try db.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)")
            // A statement kept by its user (as bulk writers do) and left on a row…
            let kept = try db.prepareWriter("SELECT a FROM t")
            #expect(try kept.step())
            try db.execute("BEGIN")
            #expect(db.activeStatementCount == 1 && !db.isAutocommit)
        }
        try pool.withConnection { db throws in
            // …is reset on check-in, and the transaction rolled back.
            #expect(db.activeStatementCount == 0)
            #expect(db.isAutocommit)
        }
    }

    @Test func parallelWritersWaitForTheLockInsteadOfFailing() async throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        // One connection more than the writers, which each hold one and read on another.
        let pool = SQLiteConnectionPool(path: path, capacity: 9)
        try pool.withConnection { try $0.execute("CREATE TABLE t (writer INTEGER, n INTEGER)") }
        let writers = 8
        let rows = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await offCooperativePool {
                        for n in 0..<rows {
                            try pool.withConnection { db throws in
                                try db.transaction {
                                    // Read inside the write, as an insert's sys_id check does.
                                    _ = try db.scalarInteger("SELECT COUNT(*) FROM t WHERE writer = \(writer)")
                                    try db.withStatement("INSERT INTO t VALUES (?, ?)") { insert in
                                        try insert.bind([.integer(writer), .integer(n)])
                                        try insert.step()
                                    }
                                }
                                // Another pooled connection sees the commit at once.
                                let seen = try pool.withConnection { other in
                                    try other.scalarInteger(
                                        "SELECT COUNT(*) FROM t WHERE writer = \(writer) AND n = \(n)")
                                }
                                #expect(seen == 1)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try pool.withConnection { try $0.scalarInteger("SELECT COUNT(*) FROM t") } == writers * rows)
    }
}
