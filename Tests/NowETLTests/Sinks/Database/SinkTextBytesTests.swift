import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// A text cell of a batch goes into the database from the batch's bytes
/// (``DatabaseRowWriter/bind(_:row:column:at:)``) and must load exactly what the `String` path
/// (``DatabaseRowWriter/bind(_:at:)`` with ``ColumnValue/string(_:)``) loads: the same awkward text is
/// loaded both ways into two tables of one session, and an independent reader (psql, sqlite3, the
/// mariadb client) reads both back.
@Suite(.timeLimit(.minutes(5))) struct SinkTextBytesTests {
    /// Text every database keeps: COPY's escapes (tab, newline, CR, backslash, `\N`, `\.`), quotes,
    /// multi-byte UTF-8, empty against NULL, and text longer than a COPY chunk's worth of escapes.
    static let awkward: [String?] = [
        "plain", "tab\there", "new\nline", "cr\rlf\r\n", "back\\slash", "\\", "\\N", "\\.", "ends with \\",
        "quote \" apostrophe ' comma , semicolon ;", "émoji 👩‍👩‍👧 𝄞 日本語", "", nil, " ", "\t\n\r\\",
        String(repeating: "a\tb\\c\r\né🙂", count: 8_000),
    ]

    /// ``awkward`` and NUL, for the databases that store it (SQLite, MySQL).
    static let withNUL = awkward + ["NUL \u{0} inside", "\u{0}"]

    /// The columns of both tables: a typed one before and after the text, so typed cells keep their path.
    static let columns: [(name: String, type: ColumnType)] = [("n", .int), ("v", .string), ("at", .dateTime)]

    /// `values` as a batch: `n`, the text held as the batch's bytes (as a page's text is), a date-time.
    static func batch(_ values: [String?]) -> RowBatch {
        var batch = RowBatch(columnCount: 3, capacity: values.count)
        for (index, value) in values.enumerated() {
            let row = batch.appendRow()
            batch[row, 0] = .int(index)
            if let value { Array(value.utf8).withUnsafeBufferPointer { batch.setText($0, row: row, column: 1) } }
            batch[row, 2] = .dateTime(secondsSinceEpoch: 1_704_067_200 + index)
        }
        return batch
    }

    /// Loads `values` into table `strings` through the `String` path and into `bytes` from ``batch(_:)``
    /// (bound last column first, as a load binds display columns after the others), in one COMMIT.
    static func loadBothWays(_ session: any DatabaseSession, _ values: [String?]) async throws {
        let box = UncheckedBox(session)
        try await session.worker.perform {
            let session = box.value
            try session.beginTransaction()
            for table in ["strings", "bytes"] {
                try session.execute("DROP TABLE IF EXISTS \(session.dialect.table(table))")
                try session.execute(session.dialect.createTable(table, columns: columns, key: nil))
            }
            let strings = try session.prepareLoadWriter(into: "strings", columns: columns.map(\.name), upsertKey: nil)
            for (index, value) in values.enumerated() {
                try strings.bind(.int(index), at: 1)
                try strings.bind(value.map(ColumnValue.string), at: 2)
                try strings.bind(.dateTime(secondsSinceEpoch: 1_704_067_200 + index), at: 3)
                try strings.run()
            }
            let batch = batch(values)
            let bytes = try session.prepareLoadWriter(into: "bytes", columns: columns.map(\.name), upsertKey: nil)
            for row in 0..<batch.count {
                for column in (0..<3).reversed() { try bytes.bind(batch, row: row, column: column, at: column + 1) }
                try bytes.run()
            }
            try session.commitTransaction(generation: session.books.generation, table: "text")
        }
    }

    /// What the readers give for `values`: per row `n|HEX|epoch`, NULL as `NULL`.
    static func expected(_ values: [String?]) -> String {
        values.enumerated().map { index, value in
            "\(index)|\(value.map(SinkRows.hex) ?? "NULL")|\(1_704_067_200 + index)"
        }.joined(separator: "\n")
    }

    @Test func postgresLoadsTheBytesAsItLoadsTheStrings() async throws {
        try await withPostgresDatabase { database in
            let session = try await PostgresSession.connect(
                options: PostgresSinkOptions(url: database.url, password: Secret(database.password)),
                runID: "text-bytes")
            try await Self.loadBothWays(session, Self.awkward)
            for table in ["strings", "bytes"] {
                let read = try await database.psql(
                    "SELECT n, coalesce(upper(encode(convert_to(v, 'UTF8'), 'hex')), 'NULL'), "
                        + "extract(epoch FROM at)::bigint FROM \(session.dialect.table(table)) ORDER BY n")
                #expect(read.trimmingCharacters(in: .newlines) == Self.expected(Self.awkward), "\(table)")
            }
        }
    }

    /// PostgreSQL text cannot hold NUL: from bytes as from a `String`, the bind fails with the same error.
    @Test func postgresRefusesNULFromBytesWithTheStringPathsError() async throws {
        try await withPostgresDatabase { database in
            let session = try await PostgresSession.connect(
                options: PostgresSinkOptions(url: database.url, password: Secret(database.password)),
                runID: "text-nul")
            let box = UncheckedBox(session)
            let messages = try await session.worker.perform {
                let session = box.value
                try session.beginTransaction()
                defer { session.rollbackTransaction() }
                try session.execute(session.dialect.createTable("t", columns: Self.columns, key: nil))
                let writer = try session.prepareLoadWriter(into: "t", columns: Self.columns.map(\.name), upsertKey: nil)
                var messages: [String?] = []
                do throws(NowETLError) {
                    try writer.bind(.string("a\u{0}b"), at: 2)
                    messages.append(nil)
                } catch {
                    messages.append(error.message)
                }
                do throws(NowETLError) {
                    try writer.bind(Self.batch(["a\u{0}b"]), row: 0, column: 1, at: 2)
                    messages.append(nil)
                } catch {
                    messages.append(error.message)
                }
                return messages
            }
            #expect(messages.count == 2 && messages[0] != nil && messages[0] == messages[1], "\(messages)")
            #expect(messages[0]?.contains("column v holds the NUL character") == true, "\(messages)")
        }
    }

    @Test func sqliteLoadsTheBytesAsItLoadsTheStrings() async throws {
        try await withScratchDirectory { (directory: String) in
            let path = directory + "/text.db"
            let session = try await BlockingWorker.detached {
                try SQLiteSession.shared(path: path, runID: "text-bytes")
            }
            try await Self.loadBothWays(session, Self.withNUL)
            for table in ["strings", "bytes"] {
                let out = try await SinkTestSupport.output(
                    "sqlite3",
                    [
                        "-batch", path,
                        "SELECT n, iif(v IS NULL, 'NULL', hex(v)), strftime('%s', at) FROM \(table) ORDER BY n",
                    ])
                #expect(
                    String(decoding: out, as: UTF8.self).trimmingCharacters(in: .newlines)
                        == Self.expected(Self.withNUL), "\(table)")
            }
        }
    }

    @Test func mysqlLoadsTheBytesAsItLoadsTheStrings() async throws {
        try await withMariaDBDatabase { database in
            let session = try await MySQLSession.connect(
                options: MySQLSinkOptions(url: database.url, password: Secret(database.password)), runID: "text-bytes")
            try await Self.loadBothWays(session, Self.withNUL)
            for table in ["strings", "bytes"] {
                let read = try await database.sql(
                    "SELECT n, ifnull(hex(v), 'NULL'), timestampdiff(SECOND, '1970-01-01', at) FROM \(table) "
                        + "ORDER BY n")
                #expect(
                    read.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\t", with: "|")
                        == Self.expected(Self.withNUL), "\(table)")
            }
        }
    }
}
