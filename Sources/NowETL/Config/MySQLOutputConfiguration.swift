import NowMariaDB

/// A MySQL or MariaDB output: `mysql: { url, mode, table_name, on_type_change, password | password_file }`
/// — the keys of `postgres:` without `schema:` (a MySQL database is its own schema).
///
/// ```yaml
/// outputs:
///   - mysql: { url: "mysql://etl@db.example:3306/reports", password_file: /run/secrets/mysql, mode: merge }
/// ```
///
/// * `url` — `mysql://user@host:3306/db` (or `mariadb://`; parameters `sslmode` = `disable`, `prefer`,
///   `require` or `verify-full` — the default for a remote host, `prefer` for loopback —, `sslrootcert`,
///   `connect_timeout`, `socket`; see ``MariaDBSettings``); a password may be interpolated into it.
/// * `password` or `password_file` — the password, inline (`${ENV}`) or read from a file like
///   `source.auth`'s; it wins over one in the URL. Never logged.
/// * `mode`, `table_name`, `on_type_change` — as for `sqlite:`.
/// * `statement_timeout_seconds` (default 3600) and `lock_timeout_seconds` (default 300) — how long one
///   statement may run and wait for a lock before the server stops it (the table fails with exit 75);
///   0 for no limit, at most 604800 (a week).
public struct MySQLOutputConfiguration: Sendable, Hashable, Decodable {
    /// The connection, mode, table name and type-change policy.
    public var options: MySQLSinkOptions

    /// Creates a MySQL output.
    public init(options: MySQLSinkOptions) {
        self.options = options
    }

    /// A stand-in path, unique per database, for the checks every output shares (no file is written).
    public var file: OutputFileSettings {
        let settings = try? MariaDBSettings(url: options.url)
        let parts = [settings?.host ?? "", String(settings?.port ?? 0), settings?.database ?? ""]
        let text =
            "mysql_"
            + parts.joined(separator: "_").map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }
            .joined()
        // ASCII letters, digits and underscores only: a valid template whatever the URL holds.
        guard let path = try? OutputPathTemplate(text) else { preconditionFailure("\(text) is a valid path") }
        return OutputFileSettings(path: path)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case url, mode, password
        case passwordFile = "password_file"
        case tableName = "table_name"
        case onTypeChange = "on_type_change"
        case statementTimeout = "statement_timeout_seconds"
        case lockTimeout = "lock_timeout_seconds"
        case prune, deletes
    }

    /// Decodes and checks a MySQL output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let url = try container.decode(String.self, forKey: .url)
        let password = try Secret.decode(
            from: container, value: .password, file: .passwordFile, userInfo: decoder.userInfo)
        do {
            _ = try MariaDBSettings(url: url, password: password?.value)
        } catch {
            throw container.issue(.url, "\(container.path(.url)): \(error.message)")
        }
        var options = MySQLSinkOptions(url: url, password: password)
        options.mode = try container.decode(.mode, default: DatabaseLoadMode.merge)
        options.onTypeChange = try container.decode(.onTypeChange, default: DatabaseTypeChangePolicy.fail)
        options.tableName = try SQLiteSinkOptions.decodeTableName(container, key: .tableName)
        let range = PostgresOutputConfiguration.timeoutRange
        options.statementTimeout =
            try container.decodeInteger(.statementTimeout, default: MariaDBSettings.defaultStatementTimeout, in: range)
            ?? MariaDBSettings.defaultStatementTimeout
        options.lockTimeout =
            try container.decodeInteger(.lockTimeout, default: MariaDBSettings.defaultLockTimeout, in: range)
            ?? MariaDBSettings.defaultLockTimeout
        let keys = try DatabaseConvergenceKeys.decode(container, prune: .prune, deletes: .deletes, mode: options.mode)
        (options.prune, options.deletes) = (keys.prune, keys.deletes)
        self.options = options
    }
}
