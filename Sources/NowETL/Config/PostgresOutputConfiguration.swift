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
public typealias PostgresOutputConfiguration = ServerOutputConfiguration<PostgresSinkOptions>

extension PostgresSinkOptions {
    /// The keys of `postgres:`, in the order a message about an unknown key lists them.
    public enum OutputKeys: String, DatabaseServerCodingKey {
        case url, schema, mode, password
        case passwordFile = "password_file"
        case tableName = "table_name"
        case onTypeChange = "on_type_change"
        case statementTimeout = "statement_timeout_seconds"
        case lockTimeout = "lock_timeout_seconds"
        case prune, deletes
    }

    /// Reads `schema:` (default `public`): an identifier PostgreSQL keeps whole.
    public mutating func decodeOwnKeys(_ container: KeyedDecodingContainer<OutputKeys>) throws {
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
            self.schema = schema
        }
    }
}
