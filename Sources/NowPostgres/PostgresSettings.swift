import Foundation
import NowDatabaseSupport

/// Where and how to connect to PostgreSQL: host, port, database, user, password, TLS mode and timeouts.
///
/// Usually parsed from a URL, `postgres://user[:password]@host[:port]/database?sslmode=verify-full` (also
/// `postgresql://`), with the password given separately (from `${ENV}` or a password file, which the
/// caller reads) or, less safely, in the URL. The ``description`` never shows the password.
///
/// Query parameters: `sslmode` (``SSLMode``), `sslrootcert` (a CA file for `verify-ca`/`verify-full`),
/// `connect_timeout` (seconds, default 30), `keepalives` (1 or 0), `keepalives_idle`,
/// `keepalives_interval`, `keepalives_count` and `application_name`. Any other parameter is an error
/// (exit 78), so a typo is not silently ignored.
///
/// Without `sslmode` the mode depends on the host (``defaultSSLMode(host:)``): a remote server must prove
/// who it is (`verify-full` against `sslrootcert` or the system's CAs), since the password and the data go
/// to whoever answers; loopback addresses and Unix sockets never leave the machine and get `prefer`.
///
/// Every connection also carries ``statementTimeout`` and ``lockTimeout`` (sent as session settings at
/// connect) and TCP keepalives, so a server or network that stops answering fails the statement instead
/// of hanging the job. ``connectionParameters`` is the one place these reach libpq.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`: whether TLS is used and how the server's certificate is checked.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// Plain first, TLS if the server insists.
        case allow
        /// TLS if the server offers it, plain otherwise (libpq's default; nowetl's for loopback and sockets).
        case prefer
        /// TLS or fail; the certificate is not verified.
        case require
        /// TLS with a certificate that chains to `sslrootcert`.
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host (the default for a remote host).
        case verifyFull = "verify-full"

        /// Whether the server's certificate is checked against a CA.
        public var verifiesCertificate: Bool { self == .verifyCA || self == .verifyFull }
    }

    /// The host name or IP address.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The database name.
    public var database: String
    /// The user (role) name.
    public var user: String
    /// The password; never shown by ``description`` or in errors.
    public var password: String?
    /// The TLS mode: the URL's `sslmode`, else ``defaultSSLMode(host:)``.
    public var sslMode: SSLMode
    /// The CA certificate file for `verify-ca`/`verify-full` (libpq's `sslrootcert`); `nil` for the system's
    /// CA bundle (``systemCABundle``).
    public var sslRootCertificate: String?
    /// Seconds to wait for a connection (libpq's `connect_timeout`; it does not bound a DNS lookup).
    public var connectTimeout: Int
    /// The `application_name` the server shows in `pg_stat_activity`.
    public var applicationName: String
    /// Seconds one statement may run before the server cancels it (`statement_timeout`; 0: no limit).
    public var statementTimeout: Int
    /// Seconds a statement may wait for a lock another session holds (`lock_timeout`; 0: no limit).
    public var lockTimeout: Int
    /// Whether TCP keepalives probe an idle connection (libpq's `keepalives`).
    public var keepalives: Bool
    /// Seconds of silence before the first keepalive probe (`keepalives_idle`).
    public var keepalivesIdle: Int
    /// Seconds between unanswered probes (`keepalives_interval`).
    public var keepalivesInterval: Int
    /// Unanswered probes after which the connection counts as lost (`keepalives_count`).
    public var keepalivesCount: Int

    /// The default ``statementTimeout``: one hour. A load runs many short statements (rows go in chunks of
    /// thousands); the longest, the `DELETE` of a replaced table or a rename waiting for readers, stay far
    /// below it — a statement still running after an hour is stuck, not busy.
    public static let defaultStatementTimeout = 3600
    /// The default ``lockTimeout``: five minutes, long enough for a report's query to finish, short enough
    /// that a session holding the table (an open transaction someone forgot) fails the run the same night.
    public static let defaultLockTimeout = 300
    /// The default ``keepalivesIdle``: a dead server or a dropped NAT mapping is noticed after
    /// `idle + interval × count` = 60 + 10 × 6 = two minutes of silence.
    public static let defaultKeepalivesIdle = 60
    /// The default ``keepalivesInterval``.
    public static let defaultKeepalivesInterval = 10
    /// The default ``keepalivesCount``.
    public static let defaultKeepalivesCount = 6

    /// Creates settings from their parts; without `sslMode`, ``defaultSSLMode(host:)`` decides.
    public init(
        host: String, port: Int = 5432, database: String, user: String, password: String? = nil,
        sslMode: SSLMode? = nil, sslRootCertificate: String? = nil, connectTimeout: Int = 30,
        applicationName: String = "nowetl"
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.sslMode = sslMode ?? Self.defaultSSLMode(host: host)
        self.sslRootCertificate = sslRootCertificate
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
        statementTimeout = Self.defaultStatementTimeout
        lockTimeout = Self.defaultLockTimeout
        keepalives = true
        keepalivesIdle = Self.defaultKeepalivesIdle
        keepalivesInterval = Self.defaultKeepalivesInterval
        keepalivesCount = Self.defaultKeepalivesCount
    }

    /// The mode when the URL names none: `prefer` for a connection that stays on this machine (a Unix
    /// socket directory, `localhost`, 127.0.0.0/8, `::1`), where nobody can stand between client and
    /// server; `verify-full` for every other host, where only a verified certificate shows that the
    /// password and the data go to the right server.
    public static func defaultSSLMode(host: String) -> SSLMode {
        isLocal(host: host) ? .prefer : .verifyFull
    }

    /// Whether `host` is a Unix socket directory (an absolute path, or `@` for Linux's abstract namespace),
    /// `localhost` or a loopback address.
    static func isLocal(host: String) -> Bool {
        host.hasPrefix("/") || host.hasPrefix("@") || DatabaseHost.isLoopback(host)
    }

    /// The system's CA bundle for `verify-ca`/`verify-full` without `sslrootcert`: `SSL_CERT_FILE` when set,
    /// else the first of the distributions' usual places that exists (libpq 15 has no `sslrootcert=system`,
    /// and would otherwise look for `~/.postgresql/root.crt`). `nil` when there is none.
    public static var systemCABundle: String? { DatabaseHost.systemCABundle }

    /// Parses `postgres://user[:password]@host[:port]/database?…`; user, password and database may be
    /// percent-encoded.
    ///
    /// - Parameters:
    ///   - url: the URL; its password, if any, is used unless `password` is given.
    ///   - password: the password from elsewhere (an environment variable, a password file); it wins over
    ///     the URL's.
    /// - Throws: ``PostgresError`` of kind `configuration` (exit 78) naming the problem but never the
    ///   password: a wrong scheme, no host, user or database, a bad port, an unknown parameter or value.
    public init(url: String, password: String? = nil) throws(PostgresError) {
        let parts: DatabaseURL
        do {
            parts = try DatabaseURL(parsing: url, schemes: ["postgres", "postgresql"])
        } catch {
            throw Self.invalid(error.text)
        }
        self.init(
            host: parts.host, port: parts.port ?? 5432, database: parts.database, user: parts.user,
            password: password ?? parts.password)
        func seconds(_ item: URLQueryItem, minimum: Int) throws(PostgresError) -> Int {
            guard let value = item.value, let number = Int(value), number >= minimum, number <= 86_400 else {
                throw Self.invalid(
                    "has \(item.name)=\(item.value ?? ""); expected a whole number from \(minimum) to 86400")
            }
            return number
        }
        for item in parts.queryItems {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                do { sslMode = try DatabaseURL.choice(item) } catch { throw Self.invalid(error.text) }
            case "sslrootcert":
                do { sslRootCertificate = try DatabaseURL.path(item) } catch { throw Self.invalid(error.text) }
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw Self.invalid("has connect_timeout=\(value); expected a number of seconds above 0")
                }
                connectTimeout = seconds
            case "application_name":
                applicationName = value
            case "keepalives":
                guard value == "0" || value == "1" else {
                    throw Self.invalid("has keepalives=\(value); expected 1 (on) or 0 (off)")
                }
                keepalives = value == "1"
            case "keepalives_idle": keepalivesIdle = try seconds(item, minimum: 1)
            case "keepalives_interval": keepalivesInterval = try seconds(item, minimum: 1)
            case "keepalives_count": keepalivesCount = try seconds(item, minimum: 1)
            default:
                throw Self.invalid(
                    "has the unknown parameter \"\(item.name)\"; known: sslmode, sslrootcert, connect_timeout, "
                        + "keepalives, keepalives_idle, keepalives_interval, keepalives_count, application_name")
            }
        }
    }

    private static func invalid(_ problem: String) -> PostgresError {
        PostgresError(.configuration, message: "the PostgreSQL URL \(problem)")
    }

    /// The URL without the password: `postgres://user@host:port/database?sslmode=…`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let shownUser = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        var path = CharacterSet.urlPathAllowed
        path.remove("/")
        let shownDatabase = database.addingPercentEncoding(withAllowedCharacters: path) ?? database
        var text = "postgres://\(shownUser)@\(shownHost):\(port)/\(shownDatabase)?sslmode=\(sslMode.rawValue)"
        if let sslRootCertificate { text += "&sslrootcert=\(sslRootCertificate)" }
        return text
    }

    /// The keyword/value pairs for `PQconnectdbParams`, each value passed as it is (no conninfo string is
    /// built, so no quoting of user input is involved) — the one place settings reach libpq.
    /// `client_encoding` is UTF8: Swift strings are. The timeouts travel in `options` as `-c` settings of
    /// the session (whole seconds, so nothing in them needs escaping), and apply from the first statement.
    /// A verifying mode without `sslrootcert` gets the system's CA bundle.
    var connectionParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("host", host), ("port", String(port)), ("dbname", database), ("user", user),
            ("sslmode", sslMode.rawValue), ("connect_timeout", String(connectTimeout)),
            ("application_name", applicationName), ("client_encoding", "UTF8"),
            ("options", "-c statement_timeout=\(statementTimeout)s -c lock_timeout=\(lockTimeout)s"),
            ("keepalives", keepalives ? "1" : "0"), ("keepalives_idle", String(keepalivesIdle)),
            ("keepalives_interval", String(keepalivesInterval)), ("keepalives_count", String(keepalivesCount)),
        ]
        if let password { pairs.append(("password", password)) }
        if let root = sslRootCertificate ?? (sslMode.verifiesCertificate ? Self.systemCABundle : nil) {
            pairs.append(("sslrootcert", root))
        }
        return pairs
    }
}
