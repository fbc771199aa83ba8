import NowDatabaseSupport

/// A failure talking to PostgreSQL: what kind it is, the server's SQLSTATE and message, where it happened
/// (host, port, database, user — never the password) and the SQL involved.
///
/// ``kind`` decides the exit code (nowetl's contract: 69 unreachable, 75 temporary, 77 authentication or
/// permission, 78 configuration, 1 anything else) and whether a retry can help (``isTransient``). The
/// description is one line for a log, e.g. `PostgreSQL authentication failed for user "etl" on
/// db.example.com:5432/reporting: password authentication failed for user "etl"`.
public struct PostgresError: DatabaseFailure, CustomStringConvertible, Sendable {
    /// What went wrong, coarsely (the kinds both database connections share); decides ``exitCode`` and
    /// ``isTransient``. Per PostgreSQL: `authentication` is SQLSTATE 28P01, 28000 or no password given,
    /// `missingDatabase` 3D000, `permissionDenied` 42501, `connectionLost` class 08 or a server shutting
    /// down, `serialization` 40001 or 40P01, `timeout` 57014 or 55P03 (`statement_timeout`, `lock_timeout`,
    /// a cancel on the server), `invalidValue` a NUL character in text, `misuse` a COPY statement given to
    /// ``PostgresConnection/execute(_:)`` or a commit of a failed transaction.
    public typealias Kind = DatabaseFailureKind

    /// What went wrong, coarsely.
    public var kind: Kind
    /// The server's five-character SQLSTATE (`PG_DIAG_SQLSTATE`), when the server sent one.
    public var sqlState: String?
    /// The message from libpq or the server (without a trailing newline), or this library's own.
    public var message: String
    /// Where it happened: user, host, port and database (also read as ``host``, ``port``, ``database``,
    /// ``user``).
    public var location: DatabaseFailureLocation
    /// The SQL involved, when a statement failed (the first 200 characters are shown).
    public var sql: String?
    /// The 1-based column (and, with ``columnName``, its name) a value error is about.
    public var column: Int?
    /// The column's name, when the caller named the columns.
    public var columnName: String?
    /// The 1-based row of a COPY a value error is about.
    public var row: Int?

    /// Creates an error.
    public init(
        _ kind: Kind, sqlState: String? = nil, message: String, host: String? = nil, port: Int? = nil,
        database: String? = nil, user: String? = nil, sql: String? = nil
    ) {
        location = DatabaseFailureLocation(user: user, host: host, port: port, database: database)
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// One line: what happened, where (user, host, port, database), the SQLSTATE, the message and the SQL.
    public var description: String {
        var codes = row.map { ", row \($0)" } ?? ""
        if let column { codes += ", column \(column)" + (columnName.map { " (\($0))" } ?? "") }
        if let sqlState { codes += " [SQLSTATE \(sqlState)]" }
        return logLine(
            "PostgreSQL", serialization: "transaction conflict (retry)", timeout: "statement timed out",
            databaseAlone: true, codes: codes)
    }

    // MARK: - Classification

    /// The kind for a server error with `sqlState`.
    static func kind(sqlState: String) -> Kind {
        switch sqlState {
        case "28P01", "28000": .authentication
        case "3D000": .missingDatabase
        case "42501": .permissionDenied
        case "40001", "40P01": .serialization
        // query_canceled (statement_timeout, or a cancel on the server), lock_not_available (lock_timeout).
        case "57014", "55P03": .timeout
        // admin_shutdown, crash_shutdown, cannot_connect_now (the server is starting or stopping).
        case "57P01", "57P02", "57P03": .connectionLost
        default: sqlState.hasPrefix("08") ? .connectionLost : .statement
        }
    }

    /// The kind of a failed connection attempt, from libpq's message: libpq keeps no SQLSTATE for a
    /// connection that never got to run a statement, so its (English) text is all there is. The server's
    /// part of the text follows `FATAL:`; libpq's own (refused, unknown host, timeout, TLS) comes from the
    /// client, which is not localized unless the process runs with a non-English `LC_MESSAGES`.
    static func connectionFailureKind(message: String) -> Kind {
        let text = message.lowercased()
        func has(_ fragments: String...) -> Bool { fragments.contains { text.contains($0) } }
        if has("database \"") && has("does not exist") { return .missingDatabase }
        // "role "x" does not exist" and a missing pg_hba.conf entry are SQLSTATE 28000.
        if has(
            "password authentication failed", "authentication failed for user", "no pg_hba.conf entry",
            "fe_sendauth: no password supplied", "role \"", "scram", "password is required")
        {
            return .authentication
        }
        if has("permission denied for database", "connect privilege") { return .permissionDenied }
        if has("ssl", "certificate", "tls") { return .tls }
        if has(
            "the database system is starting up", "the database system is shutting down",
            "the database system is in recovery mode", "too many clients")
        {
            return .connectionLost
        }
        if has(
            "connection refused", "could not translate host name", "timeout expired", "no route to host",
            "network is unreachable", "connection timed out", "name or service not known",
            "temporary failure in name resolution", "no such file or directory", "could not connect",
            "server closed the connection unexpectedly")
        {
            return .unreachable
        }
        return .connectionFailed
    }
}
