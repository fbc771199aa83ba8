import Foundation

/// Where and how to connect to PostgreSQL: host, port, database, user, password, TLS mode and timeouts.
///
/// Usually parsed from a URL, `postgres://user[:password]@host[:port]/database?sslmode=require` (also
/// `postgresql://`), with the password given separately (from `${ENV}` or a password file, which the
/// caller reads) or, less safely, in the URL. The ``description`` never shows the password.
///
/// Query parameters: `sslmode` (``SSLMode``), `sslrootcert` (a CA file for `verify-ca`/`verify-full`),
/// `connect_timeout` (seconds, default 30) and `application_name`. Any other parameter is an error
/// (exit 78), so a typo is not silently ignored.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`: whether TLS is used and how the server's certificate is checked.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// Plain first, TLS if the server insists.
        case allow
        /// TLS if the server offers it, plain otherwise (libpq's default).
        case prefer
        /// TLS or fail; the certificate is not verified.
        case require
        /// TLS with a certificate that chains to `sslrootcert`.
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host.
        case verifyFull = "verify-full"
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
    /// The TLS mode.
    public var sslMode: SSLMode
    /// The CA certificate file for `verify-ca`/`verify-full` (libpq's `sslrootcert`).
    public var sslRootCertificate: String?
    /// Seconds to wait for a connection (libpq's `connect_timeout`; it does not bound a DNS lookup).
    public var connectTimeout: Int
    /// The `application_name` the server shows in `pg_stat_activity`.
    public var applicationName: String

    /// Creates settings from their parts.
    public init(
        host: String, port: Int = 5432, database: String, user: String, password: String? = nil,
        sslMode: SSLMode = .prefer, sslRootCertificate: String? = nil, connectTimeout: Int = 30,
        applicationName: String = "nowetl"
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.sslMode = sslMode
        self.sslRootCertificate = sslRootCertificate
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
    }

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
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw Self.invalid("is not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Self.invalid("has the scheme \"\(scheme)\"; expected postgres:// or postgresql://")
        }
        guard var host = components.host, !host.isEmpty else { throw Self.invalid("has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let user = components.user, !user.isEmpty else {
            throw Self.invalid("has no user (postgres://user@host/database)")
        }
        let path = components.path
        let database = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !database.isEmpty, !database.contains("/") else {
            throw Self.invalid("has no database name (postgres://user@host/database)")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw Self.invalid("has the port \(port), not in 1…65535")
        }
        self.init(
            host: host, port: components.port ?? 5432, database: database, user: user,
            password: password ?? components.password)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw Self.invalid(
                        "has sslmode=\(value); expected one of "
                            + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                sslMode = mode
            case "sslrootcert":
                guard !value.isEmpty else { throw Self.invalid("has an empty sslrootcert") }
                sslRootCertificate = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw Self.invalid("has connect_timeout=\(value); expected a number of seconds above 0")
                }
                connectTimeout = seconds
            case "application_name":
                applicationName = value
            default:
                throw Self.invalid(
                    "has the unknown parameter \"\(item.name)\"; known: sslmode, sslrootcert, connect_timeout, "
                        + "application_name")
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
    /// built, so no quoting of user input is involved). `client_encoding` is UTF8: Swift strings are.
    var connectionParameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("host", host), ("port", String(port)), ("dbname", database), ("user", user),
            ("sslmode", sslMode.rawValue), ("connect_timeout", String(connectTimeout)),
            ("application_name", applicationName), ("client_encoding", "UTF8"),
        ]
        if let password { pairs.append(("password", password)) }
        if let sslRootCertificate { pairs.append(("sslrootcert", sslRootCertificate)) }
        return pairs
    }
}
