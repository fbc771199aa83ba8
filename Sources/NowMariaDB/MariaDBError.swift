import NowDatabaseSupport

/// A failure talking to MariaDB or MySQL: what kind it is, the error number and SQLSTATE, the message,
/// where it happened (host, port, database, user — never the password) and the SQL involved.
///
/// ``kind`` decides the exit code under nowetl's contract (69 unreachable, 75 temporary, 77 authentication
/// or permission, 78 configuration, 1 anything else) and whether a retry can help (``isTransient``). The
/// description is one line for a log, e.g. `MariaDB authentication failed for user "etl" on
/// db.example.com:3306/reporting [1045]: Access denied for user 'etl'@'10.0.0.5' (using password: YES)`.
public struct MariaDBError: DatabaseFailure, CustomStringConvertible, Sendable {
    /// What went wrong, coarsely (the kinds both database connections share; MariaDB never reports
    /// `invalidValue`); decides ``exitCode`` and ``isTransient``. Per MariaDB: `authentication` is 1045 or
    /// 1698, `missingDatabase` 1049, `permissionDenied` 1044, 1142, 1143 or 1227, `tls` 2026,
    /// `serialization` a deadlock (1213), `timeout` a lock wait (1205) or a statement limit (1969).
    public typealias Kind = DatabaseFailureKind

    /// What went wrong, coarsely.
    public var kind: Kind
    /// The client's or server's error number (`mysql_errno`), when there is one.
    public var number: Int?
    /// The five-character SQLSTATE, when the server sent one other than the generic `HY000`.
    public var sqlState: String?
    /// The message from libmariadb or the server, or this library's own.
    public var message: String
    /// Where it happened: user, host, port and database (also read as ``host``, ``port``, ``database``,
    /// ``user``).
    public var location: DatabaseFailureLocation
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
        self.sql = sql
        location = DatabaseFailureLocation(user: user, host: host, port: port, database: database)
    }

    /// One line: what happened, where (user, host, port, database), the error number, the message and the SQL.
    public var description: String {
        logLine(
            "MariaDB", serialization: "deadlock (retry)", timeout: "lock wait or statement timed out",
            databaseAlone: false,
            codes: number.map { " [\($0)" + (sqlState.map { ", SQLSTATE \($0)" } ?? "") + "]" } ?? "")
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
