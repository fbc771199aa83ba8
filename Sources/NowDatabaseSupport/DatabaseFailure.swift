/// What went wrong talking to a database server, coarsely: the one list of kinds the PostgreSQL and the
/// MariaDB connections share, so that both map a failure to the same exit code under nowetl's contract
/// (69 unreachable, 75 temporary, 77 authentication or permission, 78 configuration, 1 anything else).
public enum DatabaseFailureKind: String, Sendable, CaseIterable {
    /// The settings are wrong before any connection (a malformed URL, an unknown parameter): exit 78.
    case configuration
    /// The server cannot be reached: connection refused, unknown host, connect timeout: exit 69.
    case unreachable
    /// The server refused the credentials: exit 77.
    case authentication
    /// The database does not exist: exit 78.
    case missingDatabase
    /// The user lacks a privilege: exit 77.
    case permissionDenied
    /// TLS could not be set up as the mode asks: exit 78, since the settings and the server disagree.
    case tls
    /// The connection broke after it was made (a server shutting down, a dropped network): transient, exit 75.
    case connectionLost
    /// A serialization failure or deadlock: the transaction can be retried; transient, exit 75.
    case serialization
    /// A statement ran past its limit or waited past the lock timeout: transient, exit 75.
    case timeout
    /// A value cannot be sent as it is (a NUL character in PostgreSQL text): exit 1.
    case invalidValue
    /// The server rejected a statement or its data for another reason: exit 1.
    case statement
    /// A connection attempt failed for a reason none of the other kinds describes: exit 1.
    case connectionFailed
    /// The connection was used the wrong way (parameters or a statement it cannot take): exit 1.
    case misuse

    /// The process exit code under nowetl's contract.
    public var exitCode: Int32 {
        switch self {
        case .unreachable: 69
        case .connectionLost, .serialization, .timeout: 75
        case .authentication, .permissionDenied: 77
        case .configuration, .missingDatabase, .tls: 78
        case .invalidValue, .statement, .connectionFailed, .misuse: 1
        }
    }

    /// Whether trying again (a new connection, the transaction again) can succeed.
    public var isTransient: Bool { self == .connectionLost || self == .serialization || self == .timeout }

    /// The words a log line starts with after the product's name; `serialization` and `timeout` are
    /// worded by each product, whose servers report them differently.
    public func summary(serialization: String, timeout: String) -> String {
        switch self {
        case .configuration: "settings are invalid"
        case .unreachable: "server is unreachable"
        case .authentication: "authentication failed"
        case .missingDatabase: "database does not exist"
        case .permissionDenied: "permission denied"
        case .tls: "TLS could not be set up"
        case .connectionLost: "connection lost"
        case .serialization: serialization
        case .timeout: timeout
        case .invalidValue: "value cannot be sent"
        case .statement: "statement failed"
        case .connectionFailed: "connection failed"
        case .misuse: "connection misused"
        }
    }
}

/// A database connection's error (`PostgresError`, `MariaDBError`): its kind and where it happened. The
/// exit code, whether a retry can help, and the parts of the location are this protocol's extension's.
public protocol DatabaseFailure: Error {
    /// What went wrong, coarsely.
    var kind: DatabaseFailureKind { get }
    /// Where it happened: user, host, port and database.
    var location: DatabaseFailureLocation { get set }
    /// The message from the client library or the server (never the password).
    var message: String { get }
    /// The SQL involved, when a statement failed.
    var sql: String? { get }
}

extension DatabaseFailure {
    /// The process exit code for this error under nowetl's contract.
    public var exitCode: Int32 { kind.exitCode }

    /// Whether trying again (a new connection, the transaction again) can succeed.
    public var isTransient: Bool { kind.isTransient }

    /// The host connected to.
    public var host: String? { location.host }
    /// The port connected to.
    public var port: Int? { location.port }
    /// The database.
    public var database: String? { location.database }
    /// The user.
    public var user: String? { location.user }

    /// The one log line of the failure: `product`, what happened (the product's words for `serialization`
    /// and `timeout`), where, the product's `codes` (error number, SQLSTATE), the message and the first
    /// 200 characters of the SQL. `databaseAlone` also names a database given without a host.
    public func logLine(
        _ product: String, serialization: String, timeout: String, databaseAlone: Bool, codes: String
    ) -> String {
        var text = product + " " + kind.summary(serialization: serialization, timeout: timeout)
        text += location.text(databaseAlone: databaseAlone) + codes + ": \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}

/// Where a database failure happened: user, host, port and database (never the password), as a log
/// line shows them, e.g. ` for user "etl" on db.example.com:5432/reporting`.
public struct DatabaseFailureLocation: Sendable {
    /// The user.
    public var user: String?
    /// The host connected to.
    public var host: String?
    /// The port connected to.
    public var port: Int?
    /// The database.
    public var database: String?

    /// Creates a location.
    public init(user: String?, host: String?, port: Int?, database: String?) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
    }

    /// The location's words for a log line; `databaseAlone` also names a database given without a host.
    public func text(databaseAlone: Bool) -> String {
        var text = ""
        if let user { text += " for user \"\(user)\"" }
        if let host {
            text += " on \(host)"
            if let port { text += ":\(port)" }
            if let database { text += "/\(database)" }
        } else if databaseAlone, let database {
            text += " on database \(database)"
        }
        return text
    }
}
