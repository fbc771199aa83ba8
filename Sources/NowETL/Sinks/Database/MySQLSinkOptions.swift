import Foundation
import NowMariaDB

/// The settings of a MySQL or MariaDB output: where the database is and how tables load.
public struct MySQLSinkOptions: DatabaseLoadSettings, Hashable {
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

    /// The connection settings.
    ///
    /// - Throws: ``NowETLError`` (exit 78) for a URL the settings refuse; never the password.
    func settings() throws(NowETLError) -> MariaDBSettings {
        do {
            var settings = try MariaDBSettings(url: url, password: password?.value)
            settings.statementTimeout = statementTimeout
            settings.lockTimeout = lockTimeout
            return settings
        } catch {
            throw NowETLError(.init(exitCode: error.exitCode, otherwise: .database), path: "mysql", error.message)
        }
    }

    /// The passwords for the logger to redact: the ``password`` and one written in the URL (also
    /// percent-encoded, as it appears in the URL).
    var secretValues: [String] {
        let inURL = (try? MariaDBSettings(url: url))?.password
        return Secret.redactable(given: password, inURL: inURL)
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
