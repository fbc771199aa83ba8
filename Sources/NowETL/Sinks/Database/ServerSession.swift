import Synchronization

/// The sessions of the runs in this process, by run and database: tables of one run that load the same
/// database share one session (one transaction), while every run gets its own. The map holds the
/// sessions weakly, so a session ends with the last load that uses it; entries of ended sessions are
/// pruned whenever one is added.
final class SessionRegistry<Session: AnyObject & Sendable>: Sendable {
    private let sessions = Mutex<[String: WeakSession]>([:])

    /// A session held without keeping it alive.
    private struct WeakSession: Sendable {
        weak var session: Session?
    }

    /// Creates an empty registry.
    init() {}

    /// The session of run `runID` on `database` (anything that tells two databases apart), made by
    /// `open` on first use.
    func session(runID: String, database: String, open: () throws(NowETLError) -> Session) throws(NowETLError)
        -> Session
    {
        let key = runID + "\u{0}" + database
        if let session = sessions.withLock({ $0[key]?.session }) { return session }
        let session = try open()
        sessions.withLock { table in
            table = table.filter { $0.value.session != nil }
            table[key] = WeakSession(session: session)
        }
        return session
    }
}

/// A ``DatabaseSession`` on a database server (``PostgresSession``, ``MySQLSession``): its values travel
/// as text parameters, and a table's rows are collected by a ``CollectingRowWriter`` and sent in bulk,
/// before any other statement of the session runs. What is the same for both — the row writers, the
/// collected rows waiting to be sent — is written once, here.
protocol ServerSession: DatabaseSession {
    /// The writer whose collected rows are not yet sent; sent before any other statement runs.
    var pending: CollectingRowWriter<Self>? { get set }
    /// The text the database converts to the column type of `value`.
    ///
    /// - Throws: ``NowETLError`` for a value the database cannot hold as it is: the load fails naming
    ///   `column` rather than change the value.
    static func text(_ value: ColumnValue, column: String?, database: String) throws(NowETLError) -> String
    /// Runs one statement with text parameters (after sending the pending rows).
    func run(_ sql: String, parameters: [String?]) throws(NowETLError)
    /// How many rows (and bytes of their values) a ``CollectingRowWriter`` of `columns` columns collects
    /// before it sends them.
    static func sendLimits(columns: Int) -> (rows: Int, bytes: Int)
    /// Sends `rows` collected by `writer` to the server.
    func send(_ rows: [[String?]], of writer: CollectingRowWriter<Self>) throws(NowETLError)
}

extension ServerSession {
    func prepareRowWriter(_ sql: String) throws(NowETLError) -> any DatabaseRowWriter {
        TextParameterWriter(session: self, sql: sql)
    }

    /// Sends the rows of the ``pending`` writer.
    func flushPending() throws(NowETLError) {
        guard let writer = pending else { return }
        pending = nil
        try writer.flush()
    }

    /// Forgets the rows of the ``pending`` writer (their work is being rolled back).
    func discardPending() {
        pending?.discard()
        pending = nil
    }

    /// Before `sql` runs: the pending rows are forgotten for a `ROLLBACK` (they belong to the work being
    /// rolled back), sent otherwise.
    func settlePending(before sql: String) throws(NowETLError) {
        if sql.hasPrefix("ROLLBACK") {
            discardPending()
        } else {
            try flushPending()
        }
    }
}

extension DatabaseServerFailure {
    /// A ``NowETLError`` for this failure of `database` (`host:port/database`) of `product`, keeping its
    /// exit code; the library's messages never hold the password.
    func sinkError(product: String, database: String, doing: String, remedy: String?) -> NowETLError {
        NowETLError(
            .init(exitCode: exitCode, otherwise: .database), path: database,
            "\(doing) the \(product) database \(database)",
            cause: self, remedy: remedy)
    }
}

/// The rows of one table of a ``ServerSession``, collected and sent by the session in one go
/// (``ServerSession/send(_:of:)``) once the session's ``ServerSession/sendLimits(columns:)`` are reached,
/// and before any other statement of the session.
final class CollectingRowWriter<Session: ServerSession>: DatabaseRowWriter {
    private unowned let session: Session
    /// The database table.
    let table: String
    /// Its columns, in parameter order.
    let columns: [String]
    /// The key column of an upsert, `nil` for plain inserts.
    let upsertKey: String?
    /// What the session keeps for this writer between sends (PostgreSQL: the staging table of an upsert).
    var stagingTable: String?
    private let maxRows: Int
    private let maxBytes: Int
    private var row: [String?]
    private var rows: [[String?]] = []
    private var bytes = 0

    /// Creates a writer of the rows of `table`, upserted by `upsertKey` when given.
    init(session: Session, table: String, columns: [String], upsertKey: String?) {
        self.session = session
        self.table = table
        self.columns = columns
        self.upsertKey = upsertKey
        (maxRows, maxBytes) = Session.sendLimits(columns: columns.count)
        row = Array(repeating: nil, count: columns.count)
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= row.count else { return }
        row[index - 1] = try value.map { value throws(NowETLError) in
            try Session.text(value, column: columns[index - 1], database: session.name)
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
        rows.append(row)
        if maxBytes != .max { bytes += row.reduce(0) { $0 + ($1?.utf8.count ?? 0) } }
        row = Array(repeating: nil, count: columns.count)
        if rows.count >= maxRows || bytes >= maxBytes {
            session.pending = nil
            try flush()
        }
    }

    /// Forgets the collected rows (their work is being rolled back).
    func discard() {
        rows = []
        bytes = 0
    }

    /// Sends the collected rows.
    func flush() throws(NowETLError) {
        guard !rows.isEmpty else { return }
        let sending = rows
        discard()
        try session.send(sending, of: self)
    }
}

/// A statement of a ``ServerSession`` run once per row, its parameters sent as text.
final class TextParameterWriter<Session: ServerSession>: DatabaseRowWriter {
    private let session: Session
    private let sql: String
    private var parameters: [String?] = []

    /// Creates a writer of `sql` on `session`.
    init(session: Session, sql: String) {
        self.session = session
        self.sql = sql
    }

    private func set(_ text: String?, at index: Int) {
        if parameters.count < index { parameters += Array(repeating: nil, count: index - parameters.count) }
        parameters[index - 1] = text
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        set(
            try value.map { value throws(NowETLError) in try Session.text(value, column: nil, database: session.name) },
            at: index)
    }

    func bind(text: String, at index: Int) throws(NowETLError) { set(text, at: index) }

    func run() throws(NowETLError) {
        defer { parameters = parameters.map { _ in nil } }
        try session.run(sql, parameters: parameters)
    }
}
