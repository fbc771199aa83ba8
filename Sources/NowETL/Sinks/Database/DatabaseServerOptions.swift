import NowMariaDB
import NowPostgres

/// The settings of a database server output (``PostgresSinkOptions``, ``MySQLSinkOptions``): where the
/// server is, the password, the statement and lock limits, and how tables load. What is the same for
/// both — reading the output's keys (``ServerOutputConfiguration``), turning the URL into connection
/// settings, the passwords to redact — is written once, in this protocol's extension.
public protocol DatabaseServerOptions: DatabaseLoadSettings, Hashable {
    /// The connection settings of the server's library (``NowPostgres/PostgresSettings``,
    /// ``NowMariaDB/MariaDBSettings``).
    associatedtype Settings: DatabaseServerSettings
    /// The output's keys.
    associatedtype OutputKeys: DatabaseServerCodingKey
    /// The output's key under `outputs:` (`postgres`, `mysql`), naming it in errors and stand-in paths.
    static var outputKey: String { get }

    /// The server URL; a password in it is used unless ``password`` is set.
    var url: String { get set }
    /// The password from `password:` or `password_file:`, when given.
    var password: Secret? { get set }
    /// How rows are loaded.
    var mode: DatabaseLoadMode { get set }
    /// The database table's name, `{table}` standing for the pipeline table's.
    var tableName: String? { get set }
    /// What a column whose type changed does.
    var onTypeChange: DatabaseTypeChangePolicy { get set }
    /// Seconds one statement may run (0: no limit).
    var statementTimeout: Int { get set }
    /// Seconds a statement may wait for a lock (0: no limit).
    var lockTimeout: Int { get set }
    /// When rows the source no longer has are removed (`nil`: the table's default).
    var prune: DatabasePrunePolicy? { get set }
    /// What a deleted record's row becomes.
    var deletes: DatabaseDeletePolicy { get set }
    /// What tells two outputs apart in the stand-in path: host, port, database (and schema).
    var standInParts: [String] { get }

    /// Creates options with the defaults.
    init(url: String, password: Secret?)
    /// Reads the keys only this database has, right after the URL and password.
    mutating func decodeOwnKeys(_ container: KeyedDecodingContainer<OutputKeys>) throws
}

/// Connection settings a database server output fills in: the limits it sets, the password it redacts.
public protocol DatabaseServerSettings {
    /// The library's error (``NowPostgres/PostgresError``, ``NowMariaDB/MariaDBError``).
    associatedtype Failure: DatabaseServerFailure
    /// Seconds one statement may run.
    var statementTimeout: Int { get set }
    /// Seconds a statement may wait for a lock.
    var lockTimeout: Int { get set }
    /// The password.
    var password: String? { get }
    /// The default ``statementTimeout``.
    static var defaultStatementTimeout: Int { get }
    /// The default ``lockTimeout``.
    static var defaultLockTimeout: Int { get }
    /// Parses `url`, `password` winning over one in it.
    init(url: String, password: String?) throws(Failure)
}

/// A database library's error as an output reports it: its exit code and its message (no password).
public protocol DatabaseServerFailure: Error {
    /// The process exit code under nowetl's contract.
    var exitCode: Int32 { get }
    /// The message.
    var message: String { get }
}

extension DatabaseServerOptions {
    /// The connection settings with the output's limits.
    ///
    /// - Throws: ``NowETLError`` (the library's exit code, 78 for a URL it refuses); never the password.
    func settings() throws(NowETLError) -> Settings {
        do {
            var settings = try Settings(url: url, password: password?.value)
            settings.statementTimeout = statementTimeout
            settings.lockTimeout = lockTimeout
            return settings
        } catch {
            throw NowETLError(
                .init(exitCode: error.exitCode, otherwise: .database), path: Self.outputKey, error.message)
        }
    }

    /// The passwords for the logger to redact: the ``password`` and one written in the URL (also
    /// percent-encoded, as it appears in the URL).
    var secretValues: [String] {
        Secret.redactable(given: password, inURL: (try? Settings(url: url, password: nil))?.password)
    }
}

extension PostgresSettings: DatabaseServerSettings {}
extension PostgresError: DatabaseServerFailure {}
extension MariaDBSettings: DatabaseServerSettings {}
extension MariaDBError: DatabaseServerFailure {}
