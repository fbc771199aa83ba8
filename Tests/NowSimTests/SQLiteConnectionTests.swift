import Foundation
import NowSQLite
import NowSim
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct SQLiteConnectionTests {}

extension SQLiteConnectionTests {
    @Test func sqliteRoundTripsTextAndNull() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowsim-test-\(UUID().uuidString).sqlite"
        )
        .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE t (a TEXT, b TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?)")
        try insert.bind([.text("héllo, \"wörld\" 🎉"), .null])
        try insert.step()
        let select = try db.prepare("SELECT a, b FROM t")
        #expect(try select.step())
        #expect(select.text(0) == "héllo, \"wörld\" 🎉")
        #expect(select.text(1) == nil)
        #expect(try select.step() == false)
    }
}
