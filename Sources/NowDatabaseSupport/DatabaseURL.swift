import Foundation

/// The parts of a database server URL, `scheme://user[:password]@host[:port]/database?…`, as the
/// PostgreSQL and the MariaDB settings both read them: one parser, so both refuse the same mistakes with
/// the same words.
public struct DatabaseURL: Sendable {
    /// What is wrong with a URL, as the words after "the … URL " (never the password).
    public struct Problem: Error, Sendable {
        /// E.g. `has no host`.
        public var text: String
    }

    /// The host, without the brackets of an IPv6 address.
    public var host: String
    /// The port, when the URL names one (checked to be in 1…65535).
    public var port: Int?
    /// The user, percent-decoded.
    public var user: String
    /// The password written in the URL, when there is one.
    public var password: String?
    /// The database name, percent-decoded.
    public var database: String
    /// The query parameters, in order.
    public var queryItems: [URLQueryItem]

    /// Parses `url`, whose scheme must be one of `schemes` (lowercase; the first one names the example
    /// in messages); `databaseProblem` may refuse a database name the server could not hold.
    public init(
        parsing url: String, schemes: [String], databaseProblem: (String) -> String? = { _ in nil }
    ) throws(Problem) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw Problem(text: "is not a URL")
        }
        let example = "(\(schemes.first ?? scheme)://user@host/database)"
        guard schemes.contains(scheme) else {
            let expected = schemes.map { $0 + "://" }.joined(separator: " or ")
            throw Problem(text: "has the scheme \"\(scheme)\"; expected \(expected)")
        }
        guard var host = components.host, !host.isEmpty else { throw Problem(text: "has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let user = components.user, !user.isEmpty else { throw Problem(text: "has no user \(example)") }
        let path = components.path
        let database = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !database.isEmpty, !database.contains("/") else {
            throw Problem(text: "has no database name \(example)")
        }
        if let problem = databaseProblem(database) { throw Problem(text: problem) }
        if let port = components.port, !(1...65535).contains(port) {
            throw Problem(text: "has the port \(port), not in 1…65535")
        }
        self.host = host
        self.port = components.port
        self.user = user
        self.password = components.password
        self.database = database
        self.queryItems = components.queryItems ?? []
    }

    /// The value of `item` as one of `Mode`'s names (an `sslmode`), or a problem listing them.
    public static func choice<Mode: RawRepresentable & CaseIterable>(
        _ item: URLQueryItem, of _: Mode.Type = Mode.self
    ) throws(Problem) -> Mode where Mode.RawValue == String {
        let value = item.value ?? ""
        guard let mode = Mode(rawValue: value) else {
            throw Problem(
                text: "has \(item.name)=\(value); expected one of "
                    + Mode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return mode
    }

    /// The value of `item` as a file path that must not be empty (an `sslrootcert`).
    public static func path(_ item: URLQueryItem) throws(Problem) -> String {
        guard let value = item.value, !value.isEmpty else { throw Problem(text: "has an empty \(item.name)") }
        return value
    }
}

/// What the database outputs decide about a host before connecting.
public enum DatabaseHost {
    /// Whether `host` is `localhost` or a loopback address (IPv4 127/8, IPv6 `::1` or
    /// `::ffff:127.x.x.x`): a connection to it never leaves the machine.
    public static func isLoopback(_ host: String) -> Bool {
        if ["localhost", "localhost."].contains(host.lowercased()) { return true }
        var address4 = in_addr()
        if inet_pton(AF_INET, host, &address4) == 1 { return (UInt32(bigEndian: address4.s_addr) >> 24) == 127 }
        var address6 = in6_addr()
        guard inet_pton(AF_INET6, host, &address6) == 1 else { return false }
        let octets = withUnsafeBytes(of: address6) { Array($0) }
        let loopback = Array(repeating: UInt8(0), count: 15) + [1]
        let mappedPrefix = Array(repeating: UInt8(0), count: 10) + [0xff, 0xff]
        return octets == loopback || (Array(octets.prefix(12)) == mappedPrefix && octets[12] == 127)
    }

    /// The system's CA bundle for a verifying TLS mode without `sslrootcert`: `SSL_CERT_FILE` when set,
    /// else the first of the distributions' usual places that exists; `nil` when there is none.
    public static var systemCABundle: String? {
        let environment = ProcessInfo.processInfo.environment["SSL_CERT_FILE"].map { [$0] } ?? []
        let candidates = [
            "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Alpine, Arch
            "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
            "/etc/ssl/ca-bundle.pem",  // openSUSE
            "/etc/ssl/cert.pem",  // macOS, BSD
        ]
        return (environment + candidates).first { !$0.isEmpty && FileManager.default.isReadableFile(atPath: $0) }
    }
}
