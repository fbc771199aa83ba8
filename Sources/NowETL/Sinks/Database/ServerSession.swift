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
    /// Checks the UTF-8 bytes of a text value before they go to the database as they are (what
    /// ``text(_:column:database:)`` checks of a ``ColumnValue/string(_:)``); the default takes any text.
    ///
    /// - Throws: ``NowETLError`` for text the database cannot hold, naming `column`.
    static func checkText(_ utf8: UnsafeBufferPointer<UInt8>, column: String?, database: String) throws(NowETLError)
    /// Runs one statement with text parameters (after sending the pending rows).
    func run(_ sql: String, parameters: [String?]) throws(NowETLError)
    /// How many rows (and bytes of their values) a ``CollectingRowWriter`` of `columns` columns collects
    /// before it sends them.
    static func sendLimits(columns: Int) -> (rows: Int, bytes: Int)
    /// Sends `rows` collected by `writer` to the server.
    func send(_ rows: CollectedRows, of writer: CollectingRowWriter<Self>) throws(NowETLError)
}

extension ServerSession {
    static func checkText(_ utf8: UnsafeBufferPointer<UInt8>, column: String?, database: String) throws(NowETLError) {}

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
///
/// The values are collected as text bytes (``CollectedRows``): a text cell of a batch goes in from the
/// batch's bytes (``bind(_:row:column:at:)``), so a load makes no `String` per cell.
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
    /// The cells of the row being bound, in column order; their bytes are in `rows` already.
    private var row: [CollectedRows.Cell]
    private var rows = CollectedRows()

    /// Creates a writer of the rows of `table`, upserted by `upsertKey` when given.
    init(session: Session, table: String, columns: [String], upsertKey: String?) {
        self.session = session
        self.table = table
        self.columns = columns
        self.upsertKey = upsertKey
        (maxRows, maxBytes) = Session.sendLimits(columns: columns.count)
        row = Array(repeating: .null, count: columns.count)
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= row.count else { return }
        guard let value else {
            row[index - 1] = .null
            return
        }
        row[index - 1] = rows.add(try Session.text(value, column: columns[index - 1], database: session.name))
    }

    func bind(text: String, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= row.count else { return }
        row[index - 1] = rows.add(text)
    }

    func bind(_ batch: RowBatch, row: Int, column: Int, at index: Int) throws(NowETLError) {
        guard index >= 1, index <= self.row.count else { return }
        let checked: Result<CollectedRows.Cell, NowETLError>? = batch.withStringBytes(row: row, column: column) {
            utf8 in
            Result { () throws(NowETLError) in
                try Session.checkText(utf8, column: columns[index - 1], database: session.name)
                return rows.add(utf8)
            }
        }
        guard let checked else {
            // Not text (typed, or null): the typed path.
            try bind(batch[row, column], at: index)
            return
        }
        self.row[index - 1] = try checked.get()
    }

    func run() throws(NowETLError) {
        if session.pending !== self {
            try session.flushPending()
            session.pending = self
        }
        rows.endRow(row)
        row = Array(repeating: .null, count: columns.count)
        if rows.count >= maxRows || (maxBytes != .max && rows.byteCount >= maxBytes) {
            session.pending = nil
            try flush()
        }
    }

    /// Forgets the collected rows (their work is being rolled back).
    func discard() {
        rows.removeAll()
    }

    /// Sends the collected rows.
    func flush() throws(NowETLError) {
        guard rows.count > 0 else { return }
        defer { rows.removeAll() }
        try session.send(rows, of: self)
    }
}

/// The rows a ``CollectingRowWriter`` collects: the UTF-8 text of every value one after another in one
/// buffer, and per cell (row after row, in column order) where its text is, or NULL.
struct CollectedRows {
    /// Where a cell's text is in ``bytes``; `count` -1 for NULL.
    struct Cell {
        /// The offset of the text's first byte.
        var start: Int
        /// The number of bytes; -1 for NULL.
        var count: Int

        /// NULL.
        static let null = Cell(start: 0, count: -1)

        /// Whether the cell is NULL.
        var isNull: Bool { count < 0 }
    }

    /// The text of every non-NULL cell.
    private(set) var bytes: [UInt8] = []
    /// Per cell, row after row: where its text is.
    private(set) var cells: [Cell] = []
    /// The number of rows ended.
    private(set) var count = 0

    /// The bytes of the collected values.
    var byteCount: Int { bytes.count }

    /// Appends the bytes of a value and returns its cell (a row's cell until ``endRow(_:)`` takes it).
    mutating func add(_ utf8: UnsafeBufferPointer<UInt8>) -> Cell {
        let start = bytes.count
        bytes.append(contentsOf: utf8)
        return Cell(start: start, count: utf8.count)
    }

    /// Appends the UTF-8 of `text` and returns its cell.
    mutating func add(_ text: String) -> Cell {
        var text = text
        return text.withUTF8 { add($0) }
    }

    /// Ends a row of `cells`, in column order.
    mutating func endRow(_ row: [Cell]) {
        cells.append(contentsOf: row)
        count += 1
    }

    /// Forgets every row, keeping the storage for the next ones.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        cells.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Calls `body` with the collected bytes, to read each cell's text with ``text(of:in:)``.
    func withBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try bytes.withUnsafeBufferPointer(body)
    }

    /// The text of `cell` in `bytes` (from ``withBytes(_:)``); `nil` for NULL.
    static func text(of cell: Cell, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        cell.isNull ? nil : UnsafeBufferPointer(rebasing: bytes[cell.start..<(cell.start + cell.count)])
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
