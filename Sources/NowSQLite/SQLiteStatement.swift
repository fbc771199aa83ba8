import CSQLite3

/// A prepared statement of a ``SQLiteConnection``; parameters are 1-based, columns 0-based, as in SQLite.
///
/// It owns its `sqlite3_stmt*` and finalizes it in `deinit`. Like its connection it is used by one
/// thread at a time (it is not `Sendable`). A statement may outlive its connection object: SQLite
/// keeps the database open until the last statement is finalized.
public final class SQLiteStatement {
    /// The `sqlite3_stmt*` handle; finalized in `deinit`, never handed out of this module.
    private let handle: OpaquePointer
    /// The database file, for error messages.
    public let path: String
    /// The SQL text, for error messages.
    public let sql: String
    /// Whether a ``SQLiteConnection/withStatement(_:cached:_:)`` is using this (cached) statement.
    var isInUse = false

    init(_ handle: OpaquePointer, path: String, sql: String) {
        self.handle = handle
        self.path = path
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Runs `body` (bind and step) and resets the statement afterwards, whether `body` returns or
    /// throws; for statements from ``SQLiteConnection/prepareWriter(_:)`` that run many times.
    public func run<T>(_ body: (SQLiteStatement) throws -> T) rethrows -> T {
        defer { reset() }
        return try body(self)
    }

    /// Resets the statement and clears its bindings so it can run again.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds a text value (or NULL) to parameter `index` (1-based); SQLite copies the text.
    ///
    /// - Throws: ``SQLiteError`` when `index` is out of range or the value is too big.
    public func bind(_ value: String?, at index: Int32) throws {
        guard var value else {
            try check(sqlite3_bind_null(handle, index))
            return
        }
        try value.withUTF8 { try bindText($0, at: index, copy: true) }
    }

    /// Binds UTF-8 bytes as text to parameter `index` (1-based), without building a `String`.
    ///
    /// With `copy == false` SQLite keeps pointing at `bytes` (`SQLITE_STATIC`): the caller must keep
    /// the memory alive and unchanged until the statement has been stepped and reset. Bulk inserts use
    /// that to save one copy per field; with `copy == true` SQLite copies the bytes at once.
    ///
    /// - Throws: ``SQLiteError`` when `index` is out of range or the value is too big.
    public func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32, copy: Bool) throws {
        let rc: Int32
        if let base = bytes.baseAddress, let count = Int32(exactly: bytes.count) {
            rc = sqlite3_bind_text(
                handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), count,
                copy ? nowetl_sqlite_transient() : nil)
        } else if bytes.isEmpty {
            rc = sqlite3_bind_text(handle, index, "", 0, nowetl_sqlite_transient())
        } else {
            rc = SQLITE_TOOBIG
        }
        try check(rc)
    }

    /// Binds an integer to parameter `index` (1-based).
    ///
    /// - Throws: ``SQLiteError`` when `index` is out of range.
    public func bind(_ value: Int, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, sqlite3_int64(value)))
    }

    /// Binds a double to parameter `index` (1-based).
    ///
    /// - Throws: ``SQLiteError`` when `index` is out of range.
    public func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds a list of parameters in order, starting at 1.
    ///
    /// - Throws: ``SQLiteError`` when there are more values than parameters.
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .text(let text): try bind(text, at: index)
            case .integer(let number): try bind(number, at: index)
            case .real(let number): try bind(number, at: index)
            case .null: try bind(nil as String?, at: index)
            }
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    ///
    /// - Throws: ``SQLiteError`` with the SQL and SQLite's message (a constraint, a busy database, …).
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(rc)
        }
    }

    /// The number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of result column `index`.
    public func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` of the current row as text (`nil` for NULL).
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with the raw UTF-8 bytes of column `index` (empty for NULL), without copying.
    ///
    /// The bytes are SQLite's and valid only inside `body`.
    public func withUTF8<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_text(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Column `index` of the current row as an integer (0 for NULL).
    public func integer(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// Column `index` of the current row as a double (0 for NULL).
    public func real(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    private func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw error(rc) }
    }

    /// The error for result code `rc`, with SQLite's message from the statement's database handle
    /// (valid as long as this statement is, see the type's documentation).
    private func error(_ rc: Int32) -> SQLiteError {
        let message = sqlite3_db_handle(handle).map { String(cString: sqlite3_errmsg($0)) }
        return SQLiteError(code: rc, message: message ?? String(cString: sqlite3_errstr(rc)), path: path, sql: sql)
    }
}
