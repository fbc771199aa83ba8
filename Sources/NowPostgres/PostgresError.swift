/// A failure talking to PostgreSQL: what kind it is, the server's SQLSTATE and message, where it happened
/// (host, port, database, user — never the password) and the SQL involved.
///
/// ``kind`` decides the exit code (nowetl's contract: 69 unreachable, 75 temporary, 77 authentication or
/// permission, 78 configuration, 1 anything else) and whether a retry can help (``isTransient``). The
/// description is one line for a log, e.g. `PostgreSQL authentication failed for user "etl" on
/// db.example.com:5432/reporting: password authentication failed for user "etl"`.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, coarsely; decides ``exitCode`` and ``isTransient``.
    public enum Kind: String, Sendable, CaseIterable {
        /// The settings are wrong before any connection (a malformed URL, an unknown parameter): exit 78.
        case configuration
        /// The server cannot be reached: connection refused, host unknown, connect timeout: exit 69.
        case unreachable
        /// The server refused the credentials (SQLSTATE 28P01, 28000, or no password given): exit 77.
        case authentication
        /// The database does not exist (SQLSTATE 3D000): exit 78.
        case missingDatabase
        /// The user lacks a privilege (SQLSTATE 42501): exit 77.
        case permissionDenied
        /// TLS could not be set up as `sslmode` asks (the server has no TLS, the certificate does not
        /// verify): exit 78, since the settings and the server disagree.
        case tls
        /// The connection broke after it was made (SQLSTATE class 08, a server shutting down): transient,
        /// exit 75.
        case connectionLost
        /// A serialization failure or deadlock (SQLSTATE 40001, 40P01): the transaction can be retried;
        /// transient, exit 75.
        case serialization
        /// A statement ran past `statement_timeout`, waited past `lock_timeout` for a lock (SQLSTATE 57014,
        /// 55P03), or was cancelled on the server: the server or another session held it up, so a later
        /// run can succeed; transient, exit 75.
        case timeout
        /// A value cannot be sent as it is (a NUL character in text): exit 1.
        case invalidValue
        /// The server rejected a statement or the data of a COPY for another reason: exit 1.
        case statement
        /// A connection attempt failed for a reason none of the other kinds describes: exit 1.
        case connectionFailed
        /// The connection was used the wrong way (a COPY statement given to ``PostgresConnection/execute(_:)``,
        /// a commit of a failed transaction): exit 1.
        case misuse
    }

    /// What went wrong, coarsely.
    public var kind: Kind
    /// The server's five-character SQLSTATE (`PG_DIAG_SQLSTATE`), when the server sent one.
    public var sqlState: String?
    /// The message from libpq or the server (without a trailing newline), or this library's own.
    public var message: String
    /// The host connected to.
    public var host: String?
    /// The port connected to.
    public var port: Int?
    /// The database.
    public var database: String?
    /// The user.
    public var user: String?
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
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.sql = sql
    }

    /// The process exit code for this error under nowetl's contract.
    public var exitCode: Int32 {
        switch kind {
        case .unreachable: 69
        case .connectionLost, .serialization, .timeout: 75
        case .authentication, .permissionDenied: 77
        case .configuration, .missingDatabase, .tls: 78
        case .invalidValue, .statement, .connectionFailed, .misuse: 1
        }
    }

    /// Whether trying again (a new connection, the transaction again) can succeed.
    public var isTransient: Bool { kind == .connectionLost || kind == .serialization || kind == .timeout }

    /// One line: what happened, where (user, host, port, database), the SQLSTATE, the message and the SQL.
    public var description: String {
        var text = "PostgreSQL " + summary
        if let user { text += " for user \"\(user)\"" }
        if let host {
            text += " on \(host)"
            if let port { text += ":\(port)" }
            if let database { text += "/\(database)" }
        } else if let database {
            text += " on database \(database)"
        }
        if let row { text += ", row \(row)" }
        if let column { text += ", column \(column)" + (columnName.map { " (\($0))" } ?? "") }
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        text += ": \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }

    private var summary: String {
        switch kind {
        case .configuration: "settings are invalid"
        case .unreachable: "server is unreachable"
        case .authentication: "authentication failed"
        case .missingDatabase: "database does not exist"
        case .permissionDenied: "permission denied"
        case .tls: "TLS could not be set up"
        case .connectionLost: "connection lost"
        case .serialization: "transaction conflict (retry)"
        case .timeout: "statement timed out"
        case .invalidValue: "value cannot be sent"
        case .statement: "statement failed"
        case .connectionFailed: "connection failed"
        case .misuse: "connection misused"
        }
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
