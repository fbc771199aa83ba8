import CSQLite3
import Foundation

/// A failure reported by SQLite, with the statement that caused it.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's result code.
    public var code: Int32
    /// SQLite's message.
    public var message: String
    /// The SQL text, when a statement was involved.
    public var sql: String?

    /// A readable one-line description.
    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql.prefix(200)))" }
        return "SQLite error \(code): \(message)"
    }
}

/// One SQLite connection. Owns the `sqlite3*` handle and closes it in `deinit`.
///
/// A connection is used by one thread at a time (see `SQLiteConnectionPool`); that is why it is
/// `@unchecked Sendable`: the pool hands it out exclusively, SQLite is built thread-safe, and no two
/// threads touch it at once.
public final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database at `path` in WAL mode with a busy timeout.
    public init(path: String, readOnly: Bool = false) throws {
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(message): \(path)", sql: nil)
        }
        handle = db
        sqlite3_busy_timeout(db, 30_000)
        if !readOnly {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=OFF")
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters and return no rows of interest.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, cached per connection so hot queries are compiled once.
    public func prepare(_ sql: String, cached: Bool = true) throws -> SQLiteStatement {
        if cached, let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        if cached {
            if statementCache.count > 256 { statementCache.removeAll() }
            statementCache[sql] = statement
        }
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// SQLite's message for the last failure on this connection.
    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement; parameters are 1-based, columns 0-based, as in SQLite.
public final class SQLiteStatement {
    let handle: OpaquePointer
    /// The SQL text, for error messages.
    public let sql: String
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and clears its bindings so it can run again.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds a text value (or NULL) to parameter `index` (1-based).
    public func bind(_ value: String?, at index: Int32) throws {
        let rc: Int32
        if let value {
            rc =
                value.utf8.withContiguousStorageIfAvailable { buffer in
                    sqlite3_bind_text(
                        handle, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                        Int32(buffer.count), nowetl_sqlite_transient())
                } ?? sqlite3_bind_text(handle, index, value, -1, nowetl_sqlite_transient())
        } else {
            rc = sqlite3_bind_null(handle, index)
        }
        if rc != SQLITE_OK { throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql) }
    }

    /// Binds UTF-8 bytes as text to parameter `index` (1-based), without building a `String`.
    ///
    /// With `copy == false` SQLite keeps pointing at `bytes` (SQLITE_STATIC): the caller must keep the
    /// memory alive and unchanged until the statement has been stepped and reset. That is what the
    /// bulk-insert path (`RowWriter`) does to avoid one copy per field.
    func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32, copy: Bool) throws {
        let rc: Int32
        if let base = bytes.baseAddress {
            rc = sqlite3_bind_text(
                handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                copy ? nowetl_sqlite_transient() : nil)
        } else {
            rc = sqlite3_bind_text(handle, index, "", 0, nowetl_sqlite_transient())
        }
        if rc != SQLITE_OK { throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql) }
    }

    /// Binds an integer to parameter `index` (1-based).
    public func bind(_ value: Int, at index: Int32) throws {
        let rc = sqlite3_bind_int64(handle, index, sqlite3_int64(value))
        if rc != SQLITE_OK { throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql) }
    }

    /// Binds a list of parameters in order, starting at 1.
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            switch value {
            case .text(let text): try bind(text, at: Int32(offset + 1))
            case .integer(let number): try bind(number, at: Int32(offset + 1))
            case .real(let number):
                let rc = sqlite3_bind_double(handle, Int32(offset + 1), number)
                if rc != SQLITE_OK { throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql) }
            case .null: try bind(nil as String?, at: Int32(offset + 1))
            }
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql)
        }
    }

    /// The number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of result column `index`.
    public func columnName(_ index: Int32) -> String { String(cString: sqlite3_column_name(handle, index)) }

    /// Whether column `index` of the current row is NULL.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` of the current row as text (`nil` for NULL).
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with the raw UTF-8 bytes of column `index` (empty for NULL), without copying.
    public func withUTF8<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_text(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Column `index` of the current row as an integer (0 for NULL).
    public func integer(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// Column `index` of the current row as a double (0 for NULL).
    public func real(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }
}

/// A value bound to a statement parameter.
public enum SQLiteValue: Sendable, Hashable {
    case text(String)
    case integer(Int)
    case real(Double)
    case null
}

/// A fixed set of connections to one database file, handed out one thread at a time.
public final class SQLiteConnectionPool: @unchecked Sendable {
    /// The database file.
    public let path: String
    private let lock = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private let capacity: Int

    /// Creates a pool of at most `capacity` connections to `path`; connections open on demand.
    public init(path: String, capacity: Int) {
        self.path = path
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with a connection of its own, waiting while all are in use.
    public func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> SQLiteConnection {
        lock.lock()
        while idle.isEmpty && opened >= capacity { lock.wait() }
        if let connection = idle.popLast() {
            lock.unlock()
            return connection
        }
        opened += 1
        lock.unlock()
        do {
            return try SQLiteConnection(path: path)
        } catch {
            lock.lock()
            opened -= 1
            lock.signal()
            lock.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        lock.lock()
        idle.append(connection)
        lock.signal()
        lock.unlock()
    }
}
