import CSQLite3

/// One SQLite connection to one database file; it owns the `sqlite3*` handle and closes it in `deinit`.
///
/// The connection opens in WAL mode (unless read-only) with a 30 s busy timeout and keeps a cache of
/// prepared statements, so hot queries are compiled once. Statements are used inside
/// ``withStatement(_:cached:_:)``, which resets them when it returns, so no read transaction outlives
/// its use.
///
/// `@unchecked Sendable`: the handle is opened with `SQLITE_OPEN_NOMUTEX`, so a connection and its
/// statements must be used by one thread at a time; the type is `Sendable` so that a connection can
/// move between threads (``SQLiteConnectionPool`` hands each one out exclusively under its lock), not
/// so that two threads can share it. SQLite itself is built thread-safe (`SQLITE_THREADSAFE=1` on
/// Debian), which is what makes such hand-overs between threads legal.
public final class SQLiteConnection: @unchecked Sendable {
    /// The `sqlite3*` handle; closed in `deinit`, never handed out of this module.
    let handle: OpaquePointer
    /// The database file.
    public let path: String
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed, unless `readOnly`) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file (`:memory:` for a private in-memory database).
    ///   - readOnly: open without write access and without switching the journal mode.
    /// - Throws: ``SQLiteError`` with the path and SQLite's message when the file cannot be opened or
    ///   the pragmas fail (for example, it is not a database).
    public init(path: String, readOnly: Bool = false) throws {
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // sqlite3_open_v2 allocates a handle even when it fails (except when out of memory); it
            // carries the message and must be closed.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, path: path)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 30_000)
        if !readOnly {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=OFF")
    }

    deinit {
        // Finalize the cached statements first; `sqlite3_close_v2` defers the close until any
        // statement still held elsewhere is finalized too, so the handle never dangles under one.
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters and return no rows of interest.
    ///
    /// - Throws: ``SQLiteError`` with the SQL and SQLite's message.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message, path: path, sql: sql)
        }
    }

    /// Runs `body` with a prepared statement for `sql`, then resets the statement and clears its
    /// bindings, whether `body` returns or throws.
    ///
    /// This is the only way to step a statement: a statement that is left on a row keeps its read
    /// transaction (and with it an old snapshot of the database) open on this connection, so a
    /// forgotten reset would let a pooled connection read stale data and make its next `BEGIN
    /// IMMEDIATE` fail with `database is locked`. `body` must not keep the statement.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement; parameters are `?` (1-based in ``SQLiteStatement``).
    ///   - cached: keep the compiled statement in the connection's cache (up to 256 statements) for
    ///     the next call with the same text. Use `false` for one-off SQL and for a statement that is
    ///     used while the same SQL runs again inside `body`.
    /// - Throws: ``SQLiteError`` with the SQL and SQLite's message when it does not compile; what
    ///   `body` throws.
    public func withStatement<T>(_ sql: String, cached: Bool = true, _ body: (SQLiteStatement) throws -> T) throws
        -> T
    {
        let statement = try prepare(sql, cached: cached)
        if cached, statement.isInUse {
            // The same SQL is running further up this call chain: do not reset it under its user.
            let uncached = try prepare(sql, cached: false)
            defer { uncached.reset() }
            return try body(uncached)
        }
        statement.isInUse = true
        defer {
            statement.isInUse = false
            statement.reset()
        }
        return try body(statement)
    }

    /// A statement for `sql` that the caller keeps, for bulk writes that step one INSERT many times
    /// (see ``SQLiteStatement/run(_:)``); it is never cached.
    ///
    /// - Throws: ``SQLiteError`` with the SQL and SQLite's message when it does not compile.
    public func prepareWriter(_ sql: String) throws -> SQLiteStatement {
        try prepare(sql, cached: false)
    }

    /// A prepared statement for `sql`, from the cache when `cached` (reset and with its bindings cleared).
    func prepare(_ sql: String, cached: Bool) throws -> SQLiteStatement {
        if cached, let statement = statementCache[sql] {
            if !statement.isInUse { statement.reset() }
            return statement
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw SQLiteError(code: rc, message: lastErrorMessage, path: path, sql: sql)
        }
        let statement = SQLiteStatement(raw, path: path, sql: sql)
        if cached {
            if statementCache.count > 256 { statementCache = statementCache.filter { $0.value.isInUse } }
            statementCache[sql] = statement
        }
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock at once, so two writers never deadlock half-way; while
    /// another connection writes it waits (the busy timeout, then up to ``beginAttempts`` attempts in
    /// all) instead of failing.
    ///
    /// - Throws: what `body` throws, or ``SQLiteError`` when the transaction cannot begin or commit.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try begin()
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if !isAutocommit { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// How often `BEGIN IMMEDIATE` is tried, each time waiting up to the busy timeout for the lock.
    public static let beginAttempts = 4

    private func begin() throws {
        var attempt = 1
        while true {
            do {
                try execute("BEGIN IMMEDIATE")
                return
            } catch let error as SQLiteError where error.code & 0xff == SQLITE_BUSY && attempt < Self.beginAttempts {
                attempt += 1
            }
        }
    }

    /// Whether no transaction is open on this connection (SQLite's autocommit mode).
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Statements of this connection that are part-way through (stepped, not yet reset or done).
    public var activeStatementCount: Int {
        var count = 0
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { count += 1 }
            statement = sqlite3_next_stmt(handle, current)
        }
        return count
    }

    /// Resets every statement that is part-way through and rolls back an open transaction, so that
    /// the connection holds no read snapshot or lock; ``SQLiteConnectionPool`` calls it on check-in.
    public func releaseSnapshot() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
        if !isAutocommit { try? execute("ROLLBACK") }
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// SQLite's message for the last failure on this connection.
    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}
