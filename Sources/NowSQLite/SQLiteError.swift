/// A failure reported by SQLite: its result code and message, the database file and the statement.
///
/// The description names all of them, so a log line says which database and which SQL failed and
/// what SQLite said about it, e.g. `SQLite error 19 on /var/db/x.sqlite: UNIQUE constraint failed:
/// t.a (in: INSERT INTO t VALUES (?))`.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's (primary) result code, e.g. 5 for `SQLITE_BUSY`, 19 for `SQLITE_CONSTRAINT`.
    public var code: Int32
    /// SQLite's message (`sqlite3_errmsg`), or what this library knows when SQLite gave none.
    public var message: String
    /// The database file, as passed to ``SQLiteConnection/init(path:readOnly:)``.
    public var path: String?
    /// The SQL text, when a statement was involved.
    public var sql: String?

    /// Creates an error.
    public init(code: Int32, message: String, path: String? = nil, sql: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.sql = sql
    }

    /// A readable one-line description: code, file, message and (the first 200 characters of) the SQL.
    public var description: String {
        var text = "SQLite error \(code)"
        if let path { text += " on \(path)" }
        text += ": \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
