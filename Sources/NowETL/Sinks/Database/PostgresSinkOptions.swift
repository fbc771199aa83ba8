import Foundation
import NowPostgres

/// The settings of a PostgreSQL output: where the database is, its schema, and how tables load.
///
/// The URL is `postgres://user@host:5432/db` (see ``PostgresSettings`` for its parameters and TLS
/// defaults); the statement limit is PostgreSQL's `statement_timeout`, the lock limit its `lock_timeout`.
/// The settings every server output has are in ``common`` and read as the options' own (`options.url`).
@dynamicMemberLookup
public struct PostgresSinkOptions: DatabaseServerOptions {
    /// The URL, password, load settings and limits.
    public var common: ServerSinkSettings
    /// The schema the tables go in (created when missing; default `public`).
    public var schema: String

    /// Creates options.
    public init(
        url: String, password: Secret? = nil, schema: String = "public", mode: DatabaseLoadMode = .merge,
        tableName: String? = nil, onTypeChange: DatabaseTypeChangePolicy = .fail,
        statementTimeout: Int = PostgresSettings.defaultStatementTimeout,
        lockTimeout: Int = PostgresSettings.defaultLockTimeout, prune: DatabasePrunePolicy? = nil,
        deletes: DatabaseDeletePolicy = .hard
    ) {
        common = ServerSinkSettings(
            url: url, password: password, mode: mode, tableName: tableName, onTypeChange: onTypeChange,
            statementTimeout: statementTimeout, lockTimeout: lockTimeout, prune: prune, deletes: deletes)
        self.schema = schema
    }

    /// Creates options with the defaults (``DatabaseServerOptions``'s way to create them).
    public init(url: String, password: Secret?) {
        self.init(url: url, password: password, mode: .merge)
    }

    /// The connection settings: ``PostgresSettings``.
    public typealias Settings = PostgresSettings
    /// `postgres`.
    public static var outputKey: String { "postgres" }

    /// Host, port and database and schema, for the output's stand-in path.
    public var standInParts: [String] {
        let settings = try? PostgresSettings(url: common.url)
        return [settings?.host ?? "", String(settings?.port ?? 0), settings?.database ?? "", schema]
    }
}
