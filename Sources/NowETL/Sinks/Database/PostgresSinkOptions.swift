import Foundation
import NowPostgres

/// The settings of a PostgreSQL output: where the database is, its schema, and how tables load.
public struct PostgresSinkOptions: DatabaseServerOptions {
    /// `postgres://user@host:5432/db` (see ``PostgresSettings`` for its parameters and TLS defaults); a
    /// password in it is used unless ``password`` is set.
    public var url: String
    /// The password from `password:` or `password_file:`, when given.
    public var password: Secret?
    /// The schema the tables go in (created when missing; default `public`).
    public var schema: String
    /// How rows are loaded (default ``DatabaseLoadMode/merge``).
    public var mode: DatabaseLoadMode
    /// The database table's name, `{table}` standing for the pipeline table's; `nil` for the pipeline
    /// table's name.
    public var tableName: String?
    /// What a column whose type changed does (default ``DatabaseTypeChangePolicy/fail``).
    public var onTypeChange: DatabaseTypeChangePolicy
    /// When rows the source no longer has are removed (`nil`: the table's default).
    public var prune: DatabasePrunePolicy?
    /// What a deleted record's row becomes (default ``DatabaseDeletePolicy/hard``).
    public var deletes: DatabaseDeletePolicy
    /// Seconds one statement may run (`statement_timeout`; 0: no limit; default
    /// ``PostgresSettings/defaultStatementTimeout``).
    public var statementTimeout: Int
    /// Seconds a statement may wait for a lock (`lock_timeout`; 0: no limit; default
    /// ``PostgresSettings/defaultLockTimeout``).
    public var lockTimeout: Int

    /// Creates options.
    public init(
        url: String, password: Secret? = nil, schema: String = "public", mode: DatabaseLoadMode = .merge,
        tableName: String? = nil, onTypeChange: DatabaseTypeChangePolicy = .fail,
        statementTimeout: Int = PostgresSettings.defaultStatementTimeout,
        lockTimeout: Int = PostgresSettings.defaultLockTimeout, prune: DatabasePrunePolicy? = nil,
        deletes: DatabaseDeletePolicy = .hard
    ) {
        self.prune = prune
        self.deletes = deletes
        self.url = url
        self.password = password
        self.schema = schema
        self.mode = mode
        self.tableName = tableName
        self.onTypeChange = onTypeChange
        self.statementTimeout = statementTimeout
        self.lockTimeout = lockTimeout
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
        let settings = try? PostgresSettings(url: url)
        return [settings?.host ?? "", String(settings?.port ?? 0), settings?.database ?? "", schema]
    }
}
