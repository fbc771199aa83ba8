import Foundation
import NowPostgres
import NowSimTesting
import Testing

/// `COPY … FROM STDIN` in text format against the throwaway server.
@Suite(.timeLimit(.minutes(5)))
struct PostgresCopyTests {
    struct Stop: Error {}

    /// Hex of the UTF-8 bytes, for comparing what psql reads back without its own escaping in the way.
    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

    @Test func awkwardTextNullsAndEmptyStringsComeBackEqual() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            let large = String(repeating: "x\\y\tz\n🚀", count: 10_000)
            let values: [String?] = awkwardTexts + ["", nil, large]
            let loaded = try await blocking { () -> Int in
                try connection.execute("CREATE TABLE t (id integer PRIMARY KEY, a text, b text)")
                return try connection.copyIn("COPY t (id, a, b) FROM STDIN") { buffer in
                    for (index, value) in values.enumerated() {
                        // b holds the neighbour, so NULL and empty sit in the middle of rows too.
                        try buffer.appendRow([String(index), value, values[(index + 1) % values.count]])
                    }
                }
            }
            #expect(loaded == values.count)
            let rows = try await blocking { try connection.query("SELECT a, b FROM t ORDER BY id") }
            #expect(rows.count == values.count)
            for (index, value) in values.enumerated() where index < rows.count {
                #expect(rows[index] == [value, values[(index + 1) % values.count]], "row \(index)")
            }
            // psql, independently: NULL is NULL, empty is empty, and the bytes are the same.
            #expect(try await database.psql("SELECT count(*) FROM t WHERE a IS NULL") == "1\n")
            #expect(try await database.psql("SELECT count(*) FROM t WHERE a = ''") == "1\n")
            let hexes = try await database.psql(
                "SELECT coalesce(encode(convert_to(a, 'UTF8'), 'hex'), 'NULL') FROM t ORDER BY id")
            let expected = values.map { $0.map(Self.hex) ?? "NULL" }.map { $0 + "\n" }.joined()
            #expect(hexes == expected)
        }
    }

    @Test func manyRowsStreamInChunks() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            // 20 000 rows of ~120 bytes: about 2.4 MB, several 256 KiB chunks.
            let loaded = try await blocking { () -> Int in
                try connection.execute("CREATE TABLE t (id integer, payload text)")
                return try connection.copyIn("COPY t FROM STDIN") { buffer in
                    for id in 0..<20_000 {
                        try buffer.append(String(id))
                        try buffer.append(String(repeating: "p\t", count: 60))
                        try buffer.endRow()
                    }
                }
            }
            #expect(loaded == 20_000)
            #expect(
                try await database.psql("SELECT count(*), sum(id), min(length(payload)), max(length(payload)) FROM t")
                    == "20000|199990000|120|120\n")
        }
    }

    @Test func aTypeErrorMidWayLeavesTheTableUnchanged() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connectInTransaction(
                database, setup: "CREATE TABLE t (id integer, label text); INSERT INTO t VALUES (-1, 'before')",
                inTransaction: "INSERT INTO t VALUES (-2, 'in the transaction')")
            let error = await #expect(throws: PostgresError.self) {
                try await blocking {
                    try connection.copyIn("COPY t (id, label) FROM STDIN") { buffer in
                        for id in 0..<5_000 { try buffer.appendRow([String(id), "good"]) }
                        try buffer.appendRow(["not a number", "bad"])
                        for id in 5_000..<6_000 { try buffer.appendRow([String(id), "after"]) }
                    }
                }
            }
            #expect(error?.sqlState == "22P02")
            #expect(error?.kind == .statement)
            #expect(error?.description.contains("not a number") == true)
            #expect(connection.isInTransaction)
            try await blocking { try connection.rollback() }
            #expect(try await blocking { try connection.query("SELECT id, label FROM t") } == [["-1", "before"]])
            #expect(try await database.psql("SELECT count(*) FROM t") == "1\n")
        }
    }

    @Test func aFailureInTheWriterEndsTheCopyAndIsRethrown() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            try await blocking { try connection.execute("CREATE TABLE t (id integer)") }
            await #expect(throws: Stop.self) {
                try await blocking {
                    try connection.copyIn("COPY t FROM STDIN") { buffer in
                        // Past the first chunk, so some data has reached the server already.
                        for id in 0..<100_000 { try buffer.appendRow([String(id)]) }
                        throw Stop()
                    }
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try await blocking { try connection.query("SELECT count(*) FROM t") } == [["0"]])
            let again = try await blocking {
                try connection.copyIn("COPY t FROM STDIN") { try $0.appendRow(["7"]) }
            }
            #expect(again == 1)
        }
    }

    @Test func aNULIsRefusedNamingRowAndColumn() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            try await blocking { try connection.execute("CREATE TABLE t (id integer, a text, b text)") }
            let error = await #expect(throws: PostgresError.self) {
                try await blocking {
                    try connection.copyIn("COPY t (id, a, b) FROM STDIN", columnNames: ["id", "a", "b"]) { buffer in
                        try buffer.appendRow(["1", "fine", "fine"])
                        try buffer.appendRow(["2", "fine", "nul\u{0}inside"])
                    }
                }
            }
            #expect(error?.kind == .invalidValue)
            #expect(error?.row == 2)
            #expect(error?.column == 3)
            #expect(error?.columnName == "b")
            #expect(try await database.psql("SELECT count(*) FROM t") == "0\n")
            #expect(try await blocking { try connection.query("SELECT 1") } == [["1"]])
        }
    }

    @Test func aCopyGivenToExecuteIsRefusedAndTheConnectionStaysUsable() async throws {
        try await withPostgresDatabase { database in
            let connection = try await connect(database)
            try await blocking { try connection.execute("CREATE TABLE t (id integer)") }
            let error = await #expect(throws: PostgresError.self) {
                try await blocking { try connection.execute("COPY t FROM STDIN") }
            }
            #expect(error?.kind == .misuse)
            #expect(try await blocking { try connection.query("SELECT count(*) FROM t") } == [["0"]])
        }
    }
}
