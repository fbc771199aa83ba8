import NowMariaDB
import NowPostgres

/// The settings of a database server output (``PostgresSinkOptions``, ``MySQLSinkOptions``): where the
/// server is, the password, the statement and lock limits, and how tables load. What is the same for
/// both — the settings themselves (``ServerSinkSettings``, read through ``subscript(dynamicMember:)``),
/// reading the output's keys (``ServerOutputConfiguration``), turning the URL into connection settings,
/// the passwords to redact — is written once: there and in this protocol's extension.
@dynamicMemberLookup
public protocol DatabaseServerOptions: Sendable, Hashable {
    /// The connection settings of the server's library (``NowPostgres/PostgresSettings``,
    /// ``NowMariaDB/MariaDBSettings``).
    associatedtype Settings: DatabaseServerSettings
    /// The output's keys.
    associatedtype OutputKeys: DatabaseServerCodingKey
    /// The output's key under `outputs:` (`postgres`, `mysql`), naming it in errors and stand-in paths.
    static var outputKey: String { get }

    /// The settings every server output has.
    var common: ServerSinkSettings { get set }
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

/// The settings every database server output has: the server URL and password, how tables load, and
/// the statement and lock limits.
public struct ServerSinkSettings: DatabaseLoadSettings, Hashable {
    /// The server URL (`postgres://user@host:5432/db`, `mysql://user@host:3306/db`); a password in it is
    /// used unless ``password`` is set.
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
    /// Seconds one statement may run (0: no limit; default the library's
    /// ``DatabaseServerSettings/defaultStatementTimeout``).
    public var statementTimeout: Int
    /// Seconds a statement may wait for a lock (0: no limit; default the library's
    /// ``DatabaseServerSettings/defaultLockTimeout``).
    public var lockTimeout: Int
    /// When rows the source no longer has are removed (`nil`: the table's default).
    public var prune: DatabasePrunePolicy?
    /// What a deleted record's row becomes (default ``DatabaseDeletePolicy/hard``).
    public var deletes: DatabaseDeletePolicy
}

extension DatabaseServerOptions {
    /// A setting of ``common`` read or written as the options' own: `options.url`, `options.mode = …`.
    public subscript<Value>(dynamicMember setting: WritableKeyPath<ServerSinkSettings, Value>) -> Value {
        get { common[keyPath: setting] }
        set { common[keyPath: setting] = newValue }
    }

    /// The connection settings with the output's limits.
    ///
    /// - Throws: ``NowETLError`` (the library's exit code, 78 for a URL it refuses); never the password.
    func settings() throws(NowETLError) -> Settings {
        do {
            var settings = try Settings(url: common.url, password: common.password?.value)
            settings.statementTimeout = common.statementTimeout
            settings.lockTimeout = common.lockTimeout
            return settings
        } catch {
            throw NowETLError(
                .init(exitCode: error.exitCode, otherwise: .database), path: Self.outputKey, error.message)
        }
    }

    /// The passwords for the logger to redact: the `password` and one written in the URL (also
    /// percent-encoded, as it appears in the URL).
    var secretValues: [String] {
        Secret.redactable(given: common.password, inURL: (try? Settings(url: common.url, password: nil))?.password)
    }
}

extension PostgresSettings: DatabaseServerSettings {}
extension PostgresError: DatabaseServerFailure {}
extension MariaDBSettings: DatabaseServerSettings {}
extension MariaDBError: DatabaseServerFailure {}
