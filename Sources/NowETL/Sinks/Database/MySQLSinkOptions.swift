import Foundation
import NowMariaDB

/// The settings of a MySQL or MariaDB output: where the database is and how tables load.
///
/// The URL is `mysql://user@host:3306/db` (see ``MariaDBSettings`` for its parameters and TLS defaults);
/// the statement limit is MariaDB's `max_statement_time`, the lock limit the wait for a row or table
/// lock. The settings every server output has are in ``common`` and read as the options' own
/// (`options.url`).
@dynamicMemberLookup
public struct MySQLSinkOptions: DatabaseServerOptions {
    /// The URL, password, load settings and limits.
    public var common: ServerSinkSettings

    /// Creates options.
    public init(
        url: String, password: Secret? = nil, mode: DatabaseLoadMode = .merge, tableName: String? = nil,
        onTypeChange: DatabaseTypeChangePolicy = .fail, statementTimeout: Int = MariaDBSettings.defaultStatementTimeout,
        lockTimeout: Int = MariaDBSettings.defaultLockTimeout, prune: DatabasePrunePolicy? = nil,
        deletes: DatabaseDeletePolicy = .hard
    ) {
        common = ServerSinkSettings(
            url: url, password: password, mode: mode, tableName: tableName, onTypeChange: onTypeChange,
            statementTimeout: statementTimeout, lockTimeout: lockTimeout, prune: prune, deletes: deletes)
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
        let settings = try? MariaDBSettings(url: common.url)
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
