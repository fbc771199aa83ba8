import Foundation
import NowDatabaseSupport

/// Where and how to connect to MariaDB (or MySQL): host, port, database, user, password, TLS mode and
/// timeouts.
///
/// Usually parsed from a URL, `mysql://user[:password]@host[:port]/database?sslmode=verify-full` (also
/// `mariadb://`), with the password given separately (from `${ENV}` or a password file, which the caller
/// reads) or, less safely, in the URL. The ``description`` never shows the password.
///
/// Query parameters: `sslmode` (``SSLMode``: `disable`, `prefer`, `require`, `verify-full`), `sslrootcert`
/// (a CA file for `verify-full`), `connect_timeout` (seconds, default 30) and `socket` (a Unix socket
/// path, for a server on this machine). Any other parameter is an error (exit 78), so a typo is not
/// silently ignored.
///
/// Without `sslmode` the mode depends on the host, as for PostgreSQL: a remote server must prove who it
/// is (`verify-full`: the certificate chains to `sslrootcert` or the system's CAs and names the host),
/// since the password and the data go to whoever answers; loopback addresses and a Unix socket never
/// leave the machine and get `prefer`.
///
/// Every connection also carries ``statementTimeout`` and ``lockTimeout`` (session variables set at
/// connect: `max_statement_time`, `innodb_lock_wait_timeout`, `lock_wait_timeout`), so a held lock or a
/// stuck statement fails the statement instead of hanging the job.
public struct MariaDBSettings: Sendable, Equatable, CustomStringConvertible {
    /// Whether TLS is used and how the server's certificate is checked (the names of libpq's `sslmode`,
    /// so that both database outputs read alike).
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS if the server offers it, plain otherwise (the default for loopback and sockets).
        case prefer
        /// TLS or fail; the certificate is not verified.
        case require
        /// TLS with a certificate that chains to a trusted CA and names the host (the default for a
        /// remote host).
        case verifyFull = "verify-full"
    }

    /// The host name or IP address.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// A Unix socket to connect through instead of TCP, when given.
    public var socket: String?
    /// The database name.
    public var database: String
    /// The user name.
    public var user: String
    /// The password; never shown by ``description`` or in errors.
    public var password: String?
    /// The TLS mode: the URL's `sslmode`, else ``defaultSSLMode(host:)``.
    public var sslMode: SSLMode
    /// The CA certificate file for `verify-full`; `nil` for the system's CA bundle.
    public var sslRootCertificate: String?
    /// Seconds to wait for a connection.
    public var connectTimeout: Int
    /// Seconds one statement may run before the server stops it (`max_statement_time`; 0: no limit).
    public var statementTimeout: Int
    /// Seconds a statement may wait for a row or table lock another session holds (0: no limit).
    public var lockTimeout: Int

    /// The default ``statementTimeout``: one hour, as for PostgreSQL.
    public static let defaultStatementTimeout = 3600
    /// The default ``lockTimeout``: five minutes, as for PostgreSQL.
    public static let defaultLockTimeout = 300
    /// The longest wait the server's lock timeouts accept, used for "no limit" (a year).
    static let longestLockWait = 31_536_000

    /// Creates settings from their parts; without `sslMode`, ``defaultSSLMode(host:)`` decides.
    public init(
        host: String, port: Int = 3306, database: String, user: String, password: String? = nil,
        sslMode: SSLMode? = nil, sslRootCertificate: String? = nil, connectTimeout: Int = 30
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.sslMode = sslMode ?? Self.defaultSSLMode(host: host)
        self.sslRootCertificate = sslRootCertificate
        self.connectTimeout = connectTimeout
        statementTimeout = Self.defaultStatementTimeout
        lockTimeout = Self.defaultLockTimeout
    }

    /// `prefer` for a connection that stays on this machine (`localhost`, 127.0.0.0/8, `::1`), where nobody
    /// can stand between client and server; `verify-full` for every other host.
    public static func defaultSSLMode(host: String) -> SSLMode {
        isLoopback(host) ? .prefer : .verifyFull
    }

    /// Whether `host` is `localhost` or a loopback address (IPv4 127/8, IPv6 `::1` or `::ffff:127.x.x.x`).
    static func isLoopback(_ host: String) -> Bool { DatabaseHost.isLoopback(host) }

    /// The CA bundle for `verify-full` without `sslrootcert`: `SSL_CERT_FILE`, else Debian's, Fedora's,
    /// openSUSE's or the BSDs' usual place, whichever exists first.
    public static var systemCABundle: String? { DatabaseHost.systemCABundle }

    /// Parses `mysql://user[:password]@host[:port]/database?…` (or `mariadb://`); user, password and
    /// database may be percent-encoded.
    ///
    /// - Parameters:
    ///   - url: the URL; its password, if any, is used unless `password` is given.
    ///   - password: the password from elsewhere (an environment variable, a password file); it wins.
    /// - Throws: ``MariaDBError`` of kind `configuration` (exit 78) naming the problem but never the
    ///   password: a wrong scheme, no host, user or database, a bad port, an unknown parameter or value.
    public init(url: String, password: String? = nil) throws(MariaDBError) {
        let parts: DatabaseURL
        do {
            // MariaDB's own limit for a database name; a longer one could only be refused later.
            parts = try DatabaseURL(parsing: url, schemes: ["mysql", "mariadb"]) { database in
                database.utf8.count <= 64 && !database.utf8.contains(0)
                    ? nil : "has a database name that is not a MariaDB name (at most 64 bytes)"
            }
        } catch {
            throw Self.invalid(error.text)
        }
        self.init(
            host: parts.host, port: parts.port ?? 3306, database: parts.database, user: parts.user,
            password: password ?? parts.password)
        for item in parts.queryItems {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                do { sslMode = try DatabaseURL.choice(item) } catch { throw Self.invalid(error.text) }
            case "sslrootcert":
                do { sslRootCertificate = try DatabaseURL.path(item) } catch { throw Self.invalid(error.text) }
            case "connect_timeout":
                guard let seconds = Int(value), (1...86_400).contains(seconds) else {
                    throw Self.invalid("has connect_timeout=\(value); expected a number of seconds from 1 to 86400")
                }
                connectTimeout = seconds
            case "socket":
                guard value.hasPrefix("/") else { throw Self.invalid("has socket=\(value); expected an absolute path") }
                socket = value
            default:
                throw Self.invalid(
                    "has the unknown parameter \"\(item.name)\"; known: sslmode, sslrootcert, connect_timeout, socket")
            }
        }
        // A socket never leaves the machine: without an explicit mode it is trusted like loopback.
        if socket != nil, !parts.queryItems.contains(where: { $0.name == "sslmode" }) { sslMode = .prefer }
    }

    private static func invalid(_ problem: String) -> MariaDBError {
        MariaDBError(.configuration, message: "the MySQL URL \(problem)")
    }

    /// The URL without the password: `mysql://user@host:port/database?sslmode=…`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let shownUser = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        var text = "mysql://\(shownUser)@\(shownHost):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
        if let sslRootCertificate { text += "&sslrootcert=\(sslRootCertificate)" }
        if let socket { text += "&socket=\(socket)" }
        return text
    }

    /// The session's settings, sent right after connecting: UTC, strict typing (a value that does not fit a
    /// column is an error, never cut or zeroed), InnoDB for the tables nowetl creates, READ COMMITTED
    /// (each statement sees what other connections committed, such as the tables another connection of
    /// the session created), and the lock limits. The statement limit is ``statementTimeoutSQL``.
    var sessionSettingsSQL: [String] {
        let lockWait = lockTimeout == 0 ? Self.longestLockWait : lockTimeout
        return [
            "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
                + "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', default_storage_engine = InnoDB, "
                + "innodb_lock_wait_timeout = \(lockWait), lock_wait_timeout = \(lockWait)",
            "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        ]
    }

    /// MariaDB's `max_statement_time` (MySQL has no such variable for every statement: there the
    /// read timeout of the connection is the limit).
    var statementTimeoutSQL: String { "SET max_statement_time = \(statementTimeout)" }
}
