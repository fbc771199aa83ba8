import NowPostgres
import NowQuery

/// The ``DatabaseSession`` of a PostgreSQL database and schema: one connection, one transaction shared
/// by every table of a run that loads the same database and schema (``shared(options:runID:)``), each
/// table in a savepoint of it, like ``SQLiteSession``.
///
/// libpq blocks, so the sink runs every call on the session's ``worker``, never on the Swift
/// concurrency pool. The connection's time zone is UTC, so `timestamptz` values
/// read back in UTC.
///
/// `@unchecked Sendable`: its state is touched only on its worker's queue, one table after another.
final class PostgresSession: ServerSession, @unchecked Sendable {
    let dialect: any SQLDialect
    let name: String
    var books = TransactionBooks()
    var pending: CollectingRowWriter<PostgresSession>?
    private var stagingTables = 0
    private let connection: PostgresConnection
    private let schema: String
    let worker = BlockingWorker(label: "nowetl.postgres")
    var loadLabel: String { name + "/" + schema }

    private init(settings: PostgresSettings, schema: String) throws(NowETLError) {
        name = "\(settings.host):\(settings.port)/\(settings.database)"
        self.schema = schema
        dialect = PostgresDialect(schema: schema)
        do {
            connection = try PostgresConnection.connect(settings)
            try connection.execute("SET TimeZone = 'UTC'")
        } catch {
            throw Self.sinkError(error, database: name, doing: "cannot connect to")
        }
    }

    private static let sessions = SessionRegistry<PostgresSession>()

    /// The session of the run `runID` on the database and schema of `options`, connected on first use
    /// (on the calling thread: call it through ``connect(options:runID:)``).
    private static func shared(options: PostgresSinkOptions, runID: String) throws(NowETLError) -> PostgresSession {
        let settings = try options.settings()
        return try sessions.session(runID: runID, database: settings.description + "\u{0}" + options.schema) {
            () throws(NowETLError) in try PostgresSession(settings: settings, schema: options.schema)
        }
    }

    /// ``shared(options:runID:)`` off the concurrency pool (connecting blocks for up to the connect timeout).
    static func connect(options: PostgresSinkOptions, runID: String) async throws -> PostgresSession {
        try await BlockingWorker.detached { () throws(NowETLError) in try shared(options: options, runID: runID) }
    }

    var inTransaction: Bool { connection.isInTransaction }

    func begin() throws(NowETLError) {
        do {
            try connection.begin()
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(schema))")
        } catch {
            if connection.isInTransaction { try? connection.rollback() }
            throw Self.sinkError(error, database: name, doing: "cannot begin a transaction on")
        }
    }

    func commitNow() throws(NowETLError) {
        try flushPending()
        do {
            try connection.commit()
        } catch {
            throw Self.sinkError(error, database: name, doing: "cannot COMMIT")
        }
    }

    func rollbackNow() {
        discardPending()
        if connection.isInTransaction { try? connection.rollback() }
    }

    func execute(_ sql: String) throws(NowETLError) {
        try settlePending(before: sql)
        do {
            try connection.execute(sql)
        } catch {
            throw Self.sinkError(error, database: name, doing: "failed on")
        }
    }

    func columns(of table: String) throws(NowETLError) -> [String: String]? {
        try flushPending()
        do {
            let rows = try connection.query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 "
                    + "AND table_name = $2", parameters: [schema, table])
            guard !rows.isEmpty else { return nil }
            var columns: [String: String] = [:]
            let dialect = PostgresDialect(schema: schema)
            for row in rows where row.count == 2 {
                columns[row[0] ?? ""] = dialect.catalogType(row[1] ?? "")
            }
            return columns
        } catch {
            throw Self.sinkError(error, database: name, doing: "failed on")
        }
    }

    func primaryKey(of table: String) throws(NowETLError) -> [String] {
        try flushPending()
        do {
            let rows = try connection.query(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = "
                    + "ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = (quote_ident($1) || '.' || "
                    + "quote_ident($2))::regclass ORDER BY a.attnum", parameters: [schema, table])
            return rows.compactMap { $0.first ?? nil }
        } catch {
            throw Self.sinkError(error, database: name, doing: "failed on")
        }
    }

    func count(_ sql: String, parameters: [String]) throws(NowETLError) -> Int {
        try flushPending()
        do {
            let rows = try connection.query(sql, parameters: parameters)
            return rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
        } catch {
            throw Self.sinkError(error, database: name, doing: "failed on")
        }
    }

    /// `COPY … FROM STDIN` (text format) of the rows into `table`, or for an upsert into a temporary
    /// staging table followed by `INSERT … SELECT … ON CONFLICT DO UPDATE` (the last row of a `sys_id`
    /// wins, as one `INSERT` per row would have it).
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(NowETLError)
        -> any DatabaseRowWriter
    {
        try flushPending()
        return CollectingRowWriter(session: self, table: table, columns: columns, upsertKey: upsertKey)
    }

    /// Rows a load writer collects before they are sent.
    static let chunkRows = 5_000

    /// ``chunkRows`` rows, however long.
    static func sendLimits(columns: Int) -> (rows: Int, bytes: Int) { (chunkRows, .max) }

    /// Sends `rows` of `writer` to the server by `COPY`.
    func send(_ rows: CollectedRows, of writer: CollectingRowWriter<PostgresSession>) throws(NowETLError) {
        let names = writer.columns.map(dialect.quote).joined(separator: ", ")
        do {
            guard let key = writer.upsertKey else {
                try connection.copyIn(
                    "COPY \(dialect.table(writer.table)) (\(names)) FROM STDIN", columnNames: writer.columns
                ) {
                    buffer in try Self.copy(rows, columns: writer.columns.count, into: &buffer)
                }
                return
            }
            let stage =
                try writer.stagingTable
                ?? {
                    stagingTables += 1
                    let name = dialect.quote("nowetl_stage_\(stagingTables)")
                    try connection.execute(
                        "CREATE TEMPORARY TABLE \(name) ON COMMIT DROP AS SELECT \(names) FROM \(dialect.table(writer.table)) "
                            + "WITH NO DATA")
                    try connection.execute("ALTER TABLE \(name) ADD COLUMN \"_nowetl_order\" bigserial")
                    writer.stagingTable = name
                    return name
                }()
            try connection.execute("TRUNCATE \(stage)")
            try connection.copyIn("COPY \(stage) (\(names)) FROM STDIN", columnNames: writer.columns) { buffer in
                try Self.copy(rows, columns: writer.columns.count, into: &buffer)
            }
            let updates = writer.columns.filter { $0 != key }.map {
                "\(dialect.quote($0)) = excluded.\(dialect.quote($0))"
            }
            try connection.execute(
                "INSERT INTO \(dialect.table(writer.table)) (\(names)) SELECT DISTINCT ON (\(dialect.quote(key))) \(names) "
                    + "FROM \(stage) ORDER BY \(dialect.quote(key)), \"_nowetl_order\" DESC ON CONFLICT (\(dialect.quote(key))) DO "
                    + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", ")))
        } catch {
            throw Self.sinkError(error, database: name, doing: "cannot load table \(writer.table) into")
        }
    }

    /// Appends the collected `rows` of `columns` cells each to a COPY, escaped from their bytes.
    private static func copy(_ rows: CollectedRows, columns: Int, into buffer: inout CopyBuffer) throws(PostgresError) {
        try rows.withBytes { (bytes) throws(PostgresError) in
            for row in 0..<rows.count {
                for cell in rows.cells[(row * columns)..<((row + 1) * columns)] {
                    try buffer.append(utf8: CollectedRows.text(of: cell, in: bytes))
                }
                try buffer.endRow()
            }
        }
    }

    /// Runs one statement with text parameters.
    func run(_ sql: String, parameters: [String?]) throws(NowETLError) {
        try flushPending()
        do {
            _ = try connection.query(sql, parameters: parameters)
        } catch {
            throw Self.sinkError(error, database: name, doing: "failed on")
        }
    }

    /// A ``NowETLError`` for `error`, naming the database, keeping a ``PostgresError``'s exit code
    /// (69 unreachable, 77 authentication, 78 missing database). libpq's messages never hold the password.
    static func sinkError(_ error: any Error, database: String, doing: String) -> NowETLError {
        guard let error = error as? PostgresError else {
            return NowETLError(.database, path: database, "\(doing) the PostgreSQL database \(database)", cause: error)
        }
        return error.sinkError(product: "PostgreSQL", database: database, doing: doing, remedy: timeoutAdvice(error))
    }

    /// What a timed-out statement means and which setting decides it; `nil` for other errors.
    static func timeoutAdvice(_ error: PostgresError) -> String? {
        guard error.kind == .timeout else { return nil }
        if error.message.contains("lock timeout") {
            return "another session held a lock on the table longer than lock_timeout_seconds of the postgres "
                + "output allows (pg_locks and pg_stat_activity show which), a later run can succeed"
        }
        if error.message.contains("statement timeout") {
            return "the statement ran longer than statement_timeout_seconds of the postgres output allows: raise "
                + "it (0: no limit) if the server is merely slow"
        }
        return nil
    }

    /// Refuses text holding NUL (U+0000), which PostgreSQL's text cannot hold: the load fails naming
    /// `column` rather than change the value.
    static func checkText(_ utf8: UnsafeBufferPointer<UInt8>, column: String?, database: String) throws(NowETLError) {
        if utf8.contains(0) { throw nulError(column: column, database: database) }
    }

    /// The error of text holding NUL in `column`.
    private static func nulError(column: String?, database: String) -> NowETLError {
        NowETLError(
            .database, path: database,
            (column.map { "column \($0) holds" } ?? "a value holds")
                + " the NUL character (U+0000), which PostgreSQL text cannot store; leave the column "
                + "out of the table's columns:, or clear the character in the instance")
    }

    /// The text form PostgreSQL parses for the column type of `value`.
    ///
    /// - Throws: ``NowETLError`` for text holding NUL (U+0000), which PostgreSQL's text cannot hold: the
    ///   load fails naming `column` rather than change the value.
    static func text(_ value: ColumnValue, column: String?, database: String) throws(NowETLError) -> String {
        switch value {
        case .string(let text):
            if text.utf8.contains(0) { throw nulError(column: column, database: database) }
            return text
        case .int(let number): return String(number)
        case .decimal(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .dateTime(let seconds): return TableAPIDateFormat.string(fromSeconds: seconds) + "+00"
        case .date(let days): return TableAPIDateFormat.dateString(fromSeconds: days * 86_400)
        case .duration(let seconds): return "\(seconds) seconds"
        }
    }
}
