/// A failure talking to MariaDB or MySQL: what kind it is, the error number and SQLSTATE, the message,
/// where it happened (host, port, database, user — never the password) and the SQL involved.
///
/// ``kind`` decides the exit code under nowetl's contract (69 unreachable, 75 temporary, 77 authentication
/// or permission, 78 configuration, 1 anything else) and whether a retry can help (``isTransient``). The
/// description is one line for a log, e.g. `MariaDB authentication failed for user "etl" on
/// db.example.com:3306/reporting [1045]: Access denied for user 'etl'@'10.0.0.5' (using password: YES)`.
public struct MariaDBError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, coarsely; decides ``exitCode`` and ``isTransient``.
    public enum Kind: String, Sendable, CaseIterable {
        /// The settings are wrong before any connection (a malformed URL, an unknown parameter): exit 78.
        case configuration
        /// The server cannot be reached: connection refused, unknown host, connect timeout: exit 69.
        case unreachable
        /// The server refused the credentials (1045, 1698): exit 77.
        case authentication
        /// The database does not exist (1049): exit 78.
        case missingDatabase
        /// The user lacks a privilege (1044, 1142, 1143, 1227): exit 77.
        case permissionDenied
        /// TLS could not be set up as the mode asks (2026): exit 78, the settings and the server disagree.
        case tls
        /// The connection broke after it was made (2006, 2013, a server shutting down): transient, exit 75.
        case connectionLost
        /// A deadlock (1213): InnoDB rolled the transaction back; transient, exit 75.
        case serialization
        /// A lock wait (1205 row lock, metadata lock) or a statement ran past its limit (1969): transient,
        /// exit 75.
        case timeout
        /// The server rejected a statement or its data for another reason: exit 1.
        case statement
        /// A connection attempt failed for a reason none of the other kinds describes: exit 1.
        case connectionFailed
        /// The connection was used the wrong way (parameters that do not match the statement): exit 1.
        case misuse
    }

    /// What went wrong, coarsely.
    public var kind: Kind
    /// The client's or server's error number (`mysql_errno`), when there is one.
    public var number: Int?
    /// The five-character SQLSTATE, when the server sent one other than the generic `HY000`.
    public var sqlState: String?
    /// The message from libmariadb or the server, or this library's own.
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

    /// Creates an error.
    public init(
        _ kind: Kind, number: Int? = nil, sqlState: String? = nil, message: String, host: String? = nil,
        port: Int? = nil, database: String? = nil, user: String? = nil, sql: String? = nil
    ) {
        self.kind = kind
        self.number = number
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
        case .statement, .connectionFailed, .misuse: 1
        }
    }

    /// Whether trying again (a new connection, the transaction again) can succeed.
    public var isTransient: Bool { kind == .connectionLost || kind == .serialization || kind == .timeout }

    /// One line: what happened, where (user, host, port, database), the error number, the message and the SQL.
    public var description: String {
        var text = "MariaDB " + summary
        if let user { text += " for user \"\(user)\"" }
        if let host {
            text += " on \(host)"
            if let port { text += ":\(port)" }
            if let database { text += "/\(database)" }
        }
        if let number { text += " [\(number)" + (sqlState.map { ", SQLSTATE \($0)" } ?? "") + "]" }
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
        case .serialization: "deadlock (retry)"
        case .timeout: "lock wait or statement timed out"
        case .statement: "statement failed"
        case .connectionFailed: "connection failed"
        case .misuse: "connection misused"
        }
    }

    // MARK: - Classification

    /// The kind for error `number` (a client `CR_…` or a server `ER_…` code); `connecting` tells a
    /// failure to reach the server (unreachable) from a connection lost later.
    static func kind(number: Int, connecting: Bool) -> Kind {
        switch number {
        case 1045, 1698: .authentication  // ER_ACCESS_DENIED_ERROR, ER_ACCESS_DENIED_NO_PASSWORD_ERROR
        case 1049: .missingDatabase  // ER_BAD_DB_ERROR
        case 1044, 1142, 1143, 1227: .permissionDenied  // database, table, column access; a privilege
        case 1213: .serialization  // ER_LOCK_DEADLOCK
        // ER_LOCK_WAIT_TIMEOUT; ER_STATEMENT_TIMEOUT (max_statement_time); ER_QUERY_INTERRUPTED (a KILL QUERY).
        case 1205, 1969, 1317: .timeout
        case 2026: .tls  // CR_SSL_CONNECTION_ERROR
        // CR_CONNECTION_ERROR (socket), CR_CONN_HOST_ERROR, CR_UNKNOWN_HOST, CR_SERVER_LOST_EXTENDED.
        case 2002, 2003, 2005, 2055: .unreachable
        // CR_SERVER_GONE_ERROR, CR_SERVER_LOST: unreachable while connecting (a connect or read timeout).
        case 2006, 2013: connecting ? .unreachable : .connectionLost
        // ER_CON_COUNT_ERROR, ER_SERVER_SHUTDOWN, ER_CONNECTION_KILLED.
        case 1040, 1053, 1927: .connectionLost
        default: connecting ? .connectionFailed : .statement
        }
    }
}
