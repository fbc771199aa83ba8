import NowMariaDB
import NowQuery
import Synchronization

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
/// to ``MySQLBatchWriter/rowsPerStatement`` rows (``MySQLBatchWriter``), within the packet limit.
///
/// `@unchecked Sendable`: its state is touched only on its worker's queue, one table after another.
final class MySQLSession: DatabaseSession, @unchecked Sendable {
    let dialect: any SQLDialect = MySQLDialect()
    let name: String
    var books = TransactionBooks()
    let worker = BlockingWorker(label: "nowetl.mysql")
    /// The writer whose collected rows are not yet sent; sent before any other statement runs.
    fileprivate var pending: MySQLBatchWriter?
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

    private static let sessions = Mutex<[String: WeakSession]>([:])

    private struct WeakSession: Sendable {
        weak var session: MySQLSession?
    }

    /// The session of the run `runID` on the database of `options`, connected on first use (on the
    /// calling thread: call it through ``connect(options:runID:)``).
    private static func shared(options: MySQLSinkOptions, runID: String) throws(NowETLError) -> MySQLSession {
        let settings = try options.settings()
        let key = runID + "\u{0}" + settings.description
        if let session = sessions.withLock({ $0[key]?.session }) { return session }
        let session = try MySQLSession(settings: settings)
        sessions.withLock { table in
            table = table.filter { $0.value.session != nil }
            table[key] = WeakSession(session: session)
        }
        return session
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
        pending?.discard()
        pending = nil
        try? data.rollback()
    }

    /// Runs `sql`: DDL on the DDL connection (see the type's *Transactions*), anything else in the run's
    /// transaction.
    func execute(_ sql: String) throws(NowETLError) {
        // Rows not yet sent belong to the work being rolled back.
        if sql.hasPrefix("ROLLBACK") {
            pending?.discard()
            pending = nil
        } else {
            try flushPending()
        }
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

    func prepareRowWriter(_ sql: String) throws(NowETLError) -> any DatabaseRowWriter {
        MySQLRowWriter(session: self, sql: sql)
    }

    /// Multi-row `INSERT`s (``MySQLBatchWriter``), upserting by `upsertKey` when given.
    func prepareLoadWriter(into table: String, columns: [String], upsertKey: String?) throws(NowETLError)
        -> any DatabaseRowWriter
    {
        try flushPending()
        return MySQLBatchWriter(session: self, table: table, columns: columns, upsertKey: upsertKey)
    }

    /// Sends the rows of the ``pending`` writer.
    fileprivate func flushPending() throws(NowETLError) {
        guard let writer = pending else { return }
        pending = nil
        try writer.flush()
    }

    /// Runs `sql` (prepared once, then reused) in the run's transaction with text `parameters`.
    fileprivate func run(_ sql: String, parameters: [String?], doing: String = "failed on") throws(NowETLError) {
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
        NowETLError(
            .init(exitCode: error.exitCode, otherwise: .database), path: database,
            "\(doing) the MySQL database \(database)", cause: error,
            remedy: error.kind == .timeout
                ? "another session held a lock on the table longer than lock_timeout_seconds of the mysql output "
                    + "allows, or a statement ran past statement_timeout_seconds; a later run can succeed" : nil)
    }
}

/// The rows of one table, collected and sent by multi-row `INSERT` (``MySQLSession/prepareLoadWriter(into:columns:upsertKey:)``)
/// in statements of ``rowsPerStatement`` rows (fewer when the columns are many, or the values long), and
/// before any other statement of the session.
final class MySQLBatchWriter: DatabaseRowWriter {
    /// Rows per statement: enough that a round trip costs little per row.
    static let rowsPerStatement = 500
    /// Bytes of values after which the collected rows go, well below the server's default packet limit
    /// (`max_allowed_packet`, 16 MiB in MariaDB 10.11 and MySQL 8).
    static let bytesPerStatement = 4 << 20
    /// The most parameters one prepared statement can have.
    static let maxParameters = 65_535
    private unowned let session: MySQLSession
    let table: String
    let columns: [String]
    let upsertKey: String?
    private let rowsPerBatch: Int
    private var row: [String?]
    private var values: [String?] = []
    private var rows = 0
    private var bytes = 0

    init(session: MySQLSession, table: String, columns: [String], upsertKey: String?) {
        self.session = session
        self.table = table
        self.columns = columns
        self.upsertKey = upsertKey
        rowsPerBatch = max(1, min(Self.rowsPerStatement, Self.maxParameters / max(columns.count, 1)))
        row = Array(repeating: nil, count: columns.count)
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= row.count else { return }
        row[index - 1] = try value.map { value throws(NowETLError) in
            try MySQLRowWriter.text(value, column: columns[index - 1], database: session.name)
        }
    }

    func bind(text: String, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= row.count else { return }
        row[index - 1] = text
    }

    func run() throws(NowETLError) {
        if session.pending !== self {
            try session.flushPending()
            session.pending = self
        }
        values += row
        bytes += row.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
        rows += 1
        row = Array(repeating: nil, count: columns.count)
        if rows >= rowsPerBatch || bytes >= Self.bytesPerStatement {
            session.pending = nil
            try flush()
        }
    }

    /// Forgets the collected rows (their work is being rolled back).
    func discard() {
        values = []
        rows = 0
        bytes = 0
    }

    /// Sends the collected rows in one statement.
    func flush() throws(NowETLError) {
        guard rows > 0 else { return }
        let sending = values
        let count = rows
        discard()
        let sql = MySQLDialect().insert(into: table, columns: columns, upsertKey: upsertKey, rows: count)
        try session.run(sql, parameters: sending, doing: "cannot load table \(table) into")
    }
}

/// A statement of a ``MySQLSession`` run once per row, its parameters sent as text.
final class MySQLRowWriter: DatabaseRowWriter {
    private let session: MySQLSession
    private let sql: String
    private var parameters: [String?] = []

    init(session: MySQLSession, sql: String) {
        self.session = session
        self.sql = sql
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

    private func set(_ text: String?, at index: Int) {
        if parameters.count < index { parameters += Array(repeating: nil, count: index - parameters.count) }
        parameters[index - 1] = text
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        set(
            try value.map { value throws(NowETLError) in try Self.text(value, column: nil, database: session.name) },
            at: index)
    }

    func bind(text: String, at index: Int) throws(NowETLError) { set(text, at: index) }

    func run() throws(NowETLError) {
        defer { parameters = parameters.map { _ in nil } }
        try session.run(sql, parameters: parameters)
    }
}
