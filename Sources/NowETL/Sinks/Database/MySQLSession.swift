import NowMariaDB
import NowQuery

/// The ``DatabaseSession`` of a MySQL or MariaDB database: one transaction shared by every table of a
/// run that loads the same database (``shared(options:runID:)``), each table in a savepoint of it, like
/// ``PostgresSession``. libmariadb blocks, so the sink runs every call on the session's ``worker``.
///
/// **Transactions.** In MySQL and MariaDB every DDL statement (`CREATE`, `ALTER`, `DROP`, `RENAME`,
/// `TRUNCATE`) COMMITs the open transaction implicitly, so the run's one transaction cannot hold DDL the
/// way PostgreSQL's does. The session therefore has two connections:
/// - the **data** connection holds the run's transaction (InnoDB, READ COMMITTED): every table's rows, the
///   `DELETE` of a `replace` in place, deletions, and the `_nowetl_loads` marker row, each table inside a
///   savepoint. Nothing of it is visible before the COMMIT, and a `kill -9` before it leaves the previous
///   content: the server rolls the transaction back when the connection drops;
/// - the **DDL** connection (autocommit) runs every DDL statement ``execute(_:)`` is given, so no DDL ever
///   commits the data transaction. It only ever changes what a concurrent reader does not read: a table
///   not yet there (created empty), a column added (NULL in every old row until the COMMIT fills it), or
///   a staging table `<table>__nowetl_new`.
///
/// `replace` of a table whose columns are the load's is a `DELETE` and the load, in the transaction: a
/// reader sees the old rows until the COMMIT (MVCC), then the new ones. When the columns change (or on the
/// first load, or `on_type_change: recreate`), the rows go into the staging table, and the swap —
/// `RENAME TABLE t TO old, staging TO t` (atomic: a reader sees one table or the other, never none),
/// then `DROP TABLE old` — runs right after the COMMIT (``SQLDialect/transactionalDDL``). A crash between
/// the COMMIT and the swap leaves the committed staging table and the marker: the rerun skips the load
/// (its marker) and finishes the swap; a staging table of a load that never committed is dropped by the
/// next load of that table, so a staging table beside a marker is always complete.
///
/// Values: see ``MySQLDialect``. Text may hold any character (NUL and four-byte UTF-8 included): values
/// travel as prepared-statement parameters, never inside the SQL. Rows go in multi-row `INSERT`s of up
/// to ``rowsPerStatement`` rows (a ``CollectingRowWriter``), within the packet limit.
///
/// `@unchecked Sendable`: its state is touched only on its worker's queue, one table after another.
final class MySQLSession: ServerSession, @unchecked Sendable {
    let dialect: any SQLDialect = MySQLDialect()
    let name: String
    var books = TransactionBooks()
    let worker = BlockingWorker(label: "nowetl.mysql")
    var pending: CollectingRowWriter<MySQLSession>?
    /// The connection of the run's transaction.
    private let data: MariaDBConnection
    /// The autocommit connection every DDL statement runs on.
    private let ddl: MariaDBConnection
    /// `CREATE TABLE IF NOT EXISTS` statements already run: not run again, since a table the data
    /// transaction wrote to (the marker table) stays locked for DDL until the COMMIT.
    private var ensured: Set<String> = []
    /// Prepared statements by SQL, reused for every row and batch.
    private var statements: [String: MariaDBStatement] = [:]

    private init(settings: MariaDBSettings) throws(NowETLError) {
        name = "\(settings.host):\(settings.port)/\(settings.database)"
        do {
            data = try MariaDBConnection.connect(settings)
            ddl = try MariaDBConnection.connect(settings)
        } catch {
            throw Self.sinkError(error, database: name, doing: "cannot connect to")
        }
    }

    private static let sessions = SessionRegistry<MySQLSession>()

    /// The session of the run `runID` on the database of `options`, connected on first use (on the
    /// calling thread: call it through ``connect(options:runID:)``).
    private static func shared(options: MySQLSinkOptions, runID: String) throws(NowETLError) -> MySQLSession {
        let settings = try options.settings()
        return try sessions.session(runID: runID, database: settings.description) { () throws(NowETLError) in
            try MySQLSession(settings: settings)
        }
    }

    /// ``shared(options:runID:)`` off the concurrency pool (connecting blocks for up to the connect timeout).
    static func connect(options: MySQLSinkOptions, runID: String) async throws -> MySQLSession {
        try await BlockingWorker.detached { () throws(NowETLError) in try shared(options: options, runID: runID) }
    }

    var inTransaction: Bool { data.isInTransaction }

    func begin() throws(NowETLError) {
        try run(doing: "cannot begin a transaction on") { () throws(MariaDBError) in try data.begin() }
    }

    func commitNow() throws(NowETLError) {
        try flushPending()
        try run(doing: "cannot COMMIT") { () throws(MariaDBError) in try data.commit() }
    }

    func rollbackNow() {
        discardPending()
        try? data.rollback()
    }

    /// Runs `sql`: DDL on the DDL connection (see the type's *Transactions*), anything else in the run's
    /// transaction.
    func execute(_ sql: String) throws(NowETLError) {
        try settlePending(before: sql)
        guard Self.isDDL(sql) else {
            try run(doing: "failed on") { () throws(MariaDBError) in try data.execute(sql) }
            return
        }
        if sql.hasPrefix("CREATE TABLE IF NOT EXISTS") {
            guard !ensured.contains(sql) else { return }
            ensured.insert(sql)
        }
        try run(doing: "failed on") { () throws(MariaDBError) in try ddl.execute(sql) }
    }

    /// Whether `sql` is a statement MySQL commits implicitly: not `CREATE TEMPORARY TABLE` and `DROP
    /// TEMPORARY TABLE` (a prune's key table), which stay on the data connection, whose own they are.
    static func isDDL(_ sql: String) -> Bool {
        let words = sql.split(separator: " ", maxSplits: 2).map { $0.uppercased() }
        guard let word = words.first, ["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"].contains(word) else {
            return false
        }
        return !(words.count > 1 && words[1] == "TEMPORARY")
    }

    func columns(of table: String) throws(NowETLError) -> [String: String]? {
        let rows = try query(
            "SELECT column_name, data_type, column_type, collation_name FROM information_schema.columns "
                + "WHERE table_schema = DATABASE() AND table_name = ?", [table])
        guard !rows.isEmpty else { return nil }
        let dialect = MySQLDialect()
        var columns: [String: String] = [:]
        for row in rows where row.count == 4 {
            guard let column = row[0], let dataType = row[1], let columnType = row[2] else { continue }
            columns[column] = dialect.catalogType(dataType: dataType, columnType: columnType, collation: row[3])
        }
        return columns
    }

    func primaryKey(of table: String) throws(NowETLError) -> [String] {
        try query(
            "SELECT column_name FROM information_schema.key_column_usage WHERE table_schema = DATABASE() AND "
                + "table_name = ? AND constraint_name = 'PRIMARY' ORDER BY ordinal_position", [table]
        ).compactMap { $0.first ?? nil }
    }

    func count(_ sql: String, parameters: [String]) throws(NowETLError) -> Int {
        try query(sql, parameters).first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    /// Rows per statement: enough that a round trip costs little per row.
    static let rowsPerStatement = 500
    /// Bytes of values after which the collected rows go, well below the server's default packet limit
    /// (`max_allowed_packet`, 16 MiB in MariaDB 10.11 and MySQL 8).
    static let bytesPerStatement = 4 << 20
    /// The most parameters one prepared statement can have.
    static let maxParameters = 65_535

    /// Multi-row `INSERT`s of up to ``rowsPerStatement`` rows (fewer when the columns are many, or the
    /// values long), upserting by `upsertKey` when given.
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(NowETLError)
        -> any DatabaseRowWriter
    {
        try flushPending()
        return CollectingRowWriter(session: self, table: table, columns: columns, upsertKey: upsertKey)
    }

    /// ``rowsPerStatement`` rows, fewer when their parameters would pass ``maxParameters``, and at most
    /// ``bytesPerStatement`` bytes.
    static func sendLimits(columns: Int) -> (rows: Int, bytes: Int) {
        (max(1, min(rowsPerStatement, maxParameters / max(columns, 1))), bytesPerStatement)
    }

    /// Sends `rows` of `writer` in one multi-row `INSERT`.
    func send(_ rows: CollectedRows, of writer: CollectingRowWriter<MySQLSession>) throws(NowETLError) {
        let sql = MySQLDialect().insert(
            into: writer.table, columns: writer.columns, upsertKey: writer.upsertKey, rows: rows.count)
        try flushPending()
        let fields = rows.cells.map { $0.isNull ? nil : $0.start..<($0.start + $0.count) }
        try run(doing: "cannot load table \(writer.table) into") { () throws(MariaDBError) in
            try statement(sql).execute(packed: rows.bytes, fields: fields)
        }
    }

    /// Runs `sql` (prepared once, then reused) in the run's transaction with text `parameters`.
    func run(_ sql: String, parameters: [String?]) throws(NowETLError) {
        try run(sql, parameters: parameters, doing: "failed on")
    }

    private func run(_ sql: String, parameters: [String?], doing: String) throws(NowETLError) {
        try flushPending()
        try run(doing: doing) { () throws(MariaDBError) in try statement(sql).execute(parameters) }
    }

    private func query(_ sql: String, _ parameters: [String?]) throws(NowETLError) -> [[String?]] {
        try flushPending()
        return try run(doing: "failed on") { () throws(MariaDBError) in try statement(sql).query(parameters) }
    }

    private func statement(_ sql: String) throws(MariaDBError) -> MariaDBStatement {
        if let statement = statements[sql] { return statement }
        let statement = try data.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body`, turning a ``MariaDBError`` into the session's error.
    @discardableResult
    private func run<T>(doing: String, _ body: () throws(MariaDBError) -> T) throws(NowETLError) -> T {
        do {
            return try body()
        } catch {
            throw Self.sinkError(error, database: name, doing: doing)
        }
    }

    /// A ``NowETLError`` for `error`, naming the database, keeping its exit code (69 unreachable, 75 lock
    /// timeout or deadlock, 77 authentication, 78 missing database). Messages never hold the password.
    static func sinkError(_ error: MariaDBError, database: String, doing: String) -> NowETLError {
        error.sinkError(
            product: "MySQL", database: database, doing: doing,
            remedy: error.kind == .timeout
                ? "another session held a lock on the table longer than lock_timeout_seconds of the mysql output "
                    + "allows, or a statement ran past statement_timeout_seconds; a later run can succeed" : nil)
    }

    /// The text MySQL converts to the column type of `value` (``MySQLDialect``).
    ///
    /// - Throws: ``NowETLError`` for a decimal that `DECIMAL(65,30)` cannot hold exactly: the load fails
    ///   naming `column` rather than round the value.
    static func text(_ value: ColumnValue, column: String?, database: String) throws(NowETLError) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number), .duration(let number): return String(number)
        case .decimal(let text):
            guard fitsDecimal(text) else {
                throw NowETLError(
                    .database, path: database,
                    (column.map { "column \($0) holds" } ?? "a value holds") + " the decimal \(text.prefix(80)), "
                        + "which DECIMAL(\(MySQLDialect.decimalPrecision),\(MySQLDialect.decimalScale)) cannot hold "
                        + "without rounding; leave the column out of the table's columns:, or load it as text")
            }
            return text
        case .bool(let flag): return flag ? "1" : "0"
        case .dateTime(let seconds): return TableAPIDateFormat.string(fromSeconds: seconds)
        case .date(let days): return TableAPIDateFormat.dateString(fromSeconds: days * 86_400)
        }
    }

    /// Whether the decimal `text` (``ValueConverter/isDecimal(_:)``'s form) has at most 35 digits before
    /// the point and 30 after it, leading and trailing zeros aside.
    static func fitsDecimal(_ text: String) -> Bool {
        let unsigned = text.drop { $0 == "-" || $0 == "+" }
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = parts.first?.drop { $0 == "0" } ?? ""
        let fraction = parts.count > 1 ? parts[1].reversed().drop { $0 == "0" } : []
        let scale = MySQLDialect.decimalScale
        return integer.count <= MySQLDialect.decimalPrecision - scale && fraction.count <= scale
    }
}
