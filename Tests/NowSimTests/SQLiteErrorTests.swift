import Foundation
import NowSQLite
import Testing

/// Failures name the database file, the SQL and what SQLite said.
@Suite(.timeLimit(.minutes(1))) struct SQLiteErrorTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("nowsql-\(UUID().uuidString).sqlite")
        .path

    @Test func aStatementThatDoesNotCompileNamesFileSQLAndSQLitesMessage() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        let error = #expect(throws: SQLiteError.self) {
            try db.withStatement("SELECT * FROM missing_table") { _ in }
        }
        #expect(error?.path == path)
        #expect(error?.sql == "SELECT * FROM missing_table")
        #expect(error?.message.contains("no such table: missing_table") == true)
        #expect(error?.description.contains(path) == true)
    }

    @Test func aConstraintFailureWhileSteppingCarriesTheStatement() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE t (a TEXT PRIMARY KEY)")
        let insert = try db.prepareWriter("INSERT INTO t VALUES (?)")
        try insert.run { insert in
            try insert.bind([.text("x")])
            try insert.step()
        }
        let error = #expect(throws: SQLiteError.self) {
            try insert.run { insert in
                try insert.bind([.text("x")])
                try insert.step()
            }
        }
        #expect(error?.code == 19)  // SQLITE_CONSTRAINT
        #expect(error?.sql == "INSERT INTO t VALUES (?)")
        #expect(error?.message.contains("UNIQUE constraint failed") == true)
    }

    @Test func aFileThatCannotBeOpenedIsNamed() {
        let missing = "/nonexistent-directory-\(UUID().uuidString)/db.sqlite"
        let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: missing) }
        #expect(error?.path == missing)
        #expect(error?.description.contains(missing) == true)
    }

    @Test func scalarsReadTheFirstColumnOfTheFirstRow() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        #expect(try db.scalarInteger("SELECT 42") == 42)
        #expect(try db.scalarText("SELECT 'héllo'") == "héllo")
        #expect(try db.scalarText("SELECT NULL") == nil)
        try db.withStatement("SELECT ?, ?", cached: false) { statement throws in
            try statement.bind([.real(1.5), .integer(7)])
            #expect(try statement.step())
            #expect(statement.real(0) == 1.5)
            #expect(statement.integer(1) == 7)
        }
    }
}
