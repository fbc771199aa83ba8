import NowPostgres

/// A PostgreSQL output: `postgres: { url, schema, mode, table_name, on_type_change, prune, deletes, password | password_file }`.
///
/// ```yaml
/// outputs:
///   - postgres: { url: "${PG_URL}", schema: servicenow, mode: merge }
/// ```
///
/// * `url` — `postgres://user@host:5432/db` (`sslmode`, `sslrootcert`, `connect_timeout`, `keepalives`,
///   `keepalives_idle`, `keepalives_interval`, `keepalives_count`, `application_name`; see
///   ``PostgresSettings``); a password may be interpolated into it (`${PG_PASSWORD}`).
/// * `password` or `password_file` — the password, inline (`${ENV}`) or read from a file like
///   `source.auth`'s; it wins over one in the URL. Never logged.
/// * `schema` — created when missing, default `public`.
/// * `mode`, `table_name`, `on_type_change`, `prune`, `deletes` — as for `sqlite:`.
/// * `statement_timeout_seconds` (default 3600) and `lock_timeout_seconds` (default 300) — how long one
///   statement may run and wait for a lock before the server cancels it (the table fails with exit 75);
///   0 for no limit, at most 604800 (a week).
public struct PostgresOutputConfiguration: Sendable, Hashable, Decodable {
    /// The connection, schema, mode, table name and type-change policy.
    public var options: PostgresSinkOptions

    /// Creates a PostgreSQL output.
    public init(options: PostgresSinkOptions) {
        self.options = options
    }

    /// A stand-in path, unique per database and schema, for the checks every output shares (no file is written).
    public var file: OutputFileSettings {
        let settings = try? PostgresSettings(url: options.url)
        let parts = [settings?.host ?? "", String(settings?.port ?? 0), settings?.database ?? "", options.schema]
        let text =
            "postgres_"
            + parts.joined(separator: "_").map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }
            .joined()
        // ASCII letters, digits and underscores only: a valid template whatever the URL holds.
        guard let path = try? OutputPathTemplate(text) else { preconditionFailure("\(text) is a valid path") }
        return OutputFileSettings(path: path)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case url, schema, mode, password
        case passwordFile = "password_file"
        case tableName = "table_name"
        case onTypeChange = "on_type_change"
        case statementTimeout = "statement_timeout_seconds"
        case lockTimeout = "lock_timeout_seconds"
        case prune, deletes
    }

    /// The allowed `statement_timeout_seconds` and `lock_timeout_seconds` values (0: no limit).
    public static let timeoutRange = 0...604_800

    /// Decodes and checks a PostgreSQL output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let url = try container.decode(String.self, forKey: .url)
        let password = try Secret.decode(
            from: container, value: .password, file: .passwordFile, userInfo: decoder.userInfo)
        do {
            _ = try PostgresSettings(url: url, password: password?.value)
        } catch {
            throw container.issue(.url, "\(container.path(.url)): \(error.message)")
        }
        var options = PostgresSinkOptions(url: url, password: password)
        if let schema = try container.decodeIfPresent(String.self, forKey: .schema) {
            if let offset = NameRule.offsetOfInvalidIdentifier(schema) {
                throw container.issue(
                    .schema,
                    "schema '\(schema)' in \(container.path(.schema)) is not valid: use letters, digits and "
                        + "underscores, not starting with a digit", utf8Offset: min(offset, schema.utf8.count))
            }
            if schema.utf8.count > PostgresDialect.identifierLimit {
                throw container.issue(
                    .schema,
                    "schema '\(schema)' in \(container.path(.schema)) is \(schema.utf8.count) bytes long; PostgreSQL "
                        + "keeps \(PostgresDialect.identifierLimit)")
            }
            options.schema = schema
        }
        options.mode = try container.decode(.mode, default: DatabaseLoadMode.merge)
        options.onTypeChange = try container.decode(.onTypeChange, default: DatabaseTypeChangePolicy.fail)
        options.tableName = try SQLiteSinkOptions.decodeTableName(container, key: .tableName)
        options.statementTimeout =
            try container.decodeInteger(
                .statementTimeout, default: PostgresSettings.defaultStatementTimeout, in: Self.timeoutRange)
            ?? PostgresSettings.defaultStatementTimeout
        options.lockTimeout =
            try container.decodeInteger(
                .lockTimeout, default: PostgresSettings.defaultLockTimeout, in: Self.timeoutRange)
            ?? PostgresSettings.defaultLockTimeout
        let keys = try DatabaseConvergenceKeys.decode(container, prune: .prune, deletes: .deletes, mode: options.mode)
        (options.prune, options.deletes) = (keys.prune, keys.deletes)
        self.options = options
    }
}
