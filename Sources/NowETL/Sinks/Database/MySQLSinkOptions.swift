import Foundation
import NowMariaDB

/// The settings of a MySQL or MariaDB output: where the database is and how tables load.
public struct MySQLSinkOptions: DatabaseServerOptions {
    /// `mysql://user@host:3306/db` (see ``MariaDBSettings`` for its parameters and TLS defaults); a
    /// password in it is used unless ``password`` is set.
    public var url: String
    /// The password from `password:` or `password_file:`, when given.
    public var password: Secret?
    /// How rows are loaded (default ``DatabaseLoadMode/merge``).
    public var mode: DatabaseLoadMode
    /// The database table's name, `{table}` standing for the pipeline table's; `nil` for the pipeline
    /// table's name.
    public var tableName: String?
    /// What a column whose type changed does (default ``DatabaseTypeChangePolicy/fail``).
    public var onTypeChange: DatabaseTypeChangePolicy
    /// Seconds one statement may run (`max_statement_time`; 0: no limit; default
    /// ``MariaDBSettings/defaultStatementTimeout``).
    public var statementTimeout: Int
    /// Seconds a statement may wait for a row or table lock (0: no limit; default
    /// ``MariaDBSettings/defaultLockTimeout``).
    public var lockTimeout: Int
    /// When rows the source no longer has are removed (`nil`: the table's default).
    public var prune: DatabasePrunePolicy?
    /// What a deleted record's row becomes (default ``DatabaseDeletePolicy/hard``).
    public var deletes: DatabaseDeletePolicy

    /// Creates options.
    public init(
        url: String, password: Secret? = nil, mode: DatabaseLoadMode = .merge, tableName: String? = nil,
        onTypeChange: DatabaseTypeChangePolicy = .fail, statementTimeout: Int = MariaDBSettings.defaultStatementTimeout,
        lockTimeout: Int = MariaDBSettings.defaultLockTimeout, prune: DatabasePrunePolicy? = nil,
        deletes: DatabaseDeletePolicy = .hard
    ) {
        self.prune = prune
        self.deletes = deletes
        self.url = url
        self.password = password
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

    /// The connection settings: ``MariaDBSettings``.
    public typealias Settings = MariaDBSettings
    /// `mysql`.
    public static var outputKey: String { "mysql" }

    /// Host, port and database, for the output's stand-in path.
    public var standInParts: [String] {
        let settings = try? MariaDBSettings(url: url)
        return [settings?.host ?? "", String(settings?.port ?? 0), settings?.database ?? ""]
    }
}

extension Secret {
    /// The values to redact for a database output's password: the one `given` (`password:` or
    /// `password_file:`) and the one written in its URL, also percent-encoded as it appears there.
    static func redactable(given: Secret?, inURL: String?) -> [String] {
        var values = given.map { [$0.value] } ?? []
        if let inURL, !inURL.isEmpty {
            values.append(inURL)
            if let encoded = inURL.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed), encoded != inURL {
                values.append(encoded)
            }
        }
        return values
    }
}
