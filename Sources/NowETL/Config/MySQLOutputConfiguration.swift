/// A MySQL or MariaDB output: `mysql: { url, mode, table_name, on_type_change, prune, deletes, password | password_file }`
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
/// * `mode`, `table_name`, `on_type_change`, `prune`, `deletes` — as for `sqlite:`.
/// * `statement_timeout_seconds` (default 3600) and `lock_timeout_seconds` (default 300) — how long one
///   statement may run and wait for a lock before the server stops it (the table fails with exit 75);
///   0 for no limit, at most 604800 (a week).
public typealias MySQLOutputConfiguration = ServerOutputConfiguration<MySQLSinkOptions>

extension MySQLSinkOptions {
    /// The keys of `mysql:`, in the order a message about an unknown key lists them.
    public enum OutputKeys: String, DatabaseServerCodingKey {
        case url, mode, password
        case passwordFile = "password_file"
        case tableName = "table_name"
        case onTypeChange = "on_type_change"
        case statementTimeout = "statement_timeout_seconds"
        case lockTimeout = "lock_timeout_seconds"
        case prune, deletes
    }

    /// `mysql:` has no keys of its own: a MySQL database is its own schema.
    public mutating func decodeOwnKeys(_ container: KeyedDecodingContainer<OutputKeys>) throws {}
}
