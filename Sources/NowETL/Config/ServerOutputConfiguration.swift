/// A database server output, `postgres:` or `mysql:` (``PostgresOutputConfiguration``,
/// ``MySQLOutputConfiguration``): the keys they share (`url`, `password` | `password_file`, `mode`,
/// `table_name`, `on_type_change`, `statement_timeout_seconds`, `lock_timeout_seconds`, `prune`,
/// `deletes`) read once here, in the same order for both, and the database's own keys (a PostgreSQL
/// `schema`) read by its options type through ``DatabaseServerOptions/decodeOwnKeys(_:)``.
public struct ServerOutputConfiguration<Options: DatabaseServerOptions>: Sendable, Hashable, Decodable {
    /// The connection, mode, table name and type-change policy.
    public var options: Options

    /// Creates an output.
    public init(options: Options) {
        self.options = options
    }

    /// The allowed `statement_timeout_seconds` and `lock_timeout_seconds` values (0: no limit).
    public static var timeoutRange: ClosedRange<Int> { 0...604_800 }

    /// A stand-in path, unique per database (and schema), for the checks every output shares (no file is
    /// written): ASCII letters, digits and underscores only, a valid template whatever the URL holds.
    public var file: OutputFileSettings {
        let text =
            Options.outputKey + "_"
            + options.standInParts.joined(separator: "_")
            .map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }.joined()
        guard let path = try? OutputPathTemplate(text) else { preconditionFailure("\(text) is a valid path") }
        return OutputFileSettings(path: path)
    }

    /// Decodes and checks the output: the URL with the password, then the database's own keys, then the
    /// load settings.
    public init(from decoder: any Decoder) throws {
        typealias Key = Options.OutputKeys
        let container = try decoder.container(keyedBy: Key.self)
        let url = try container.decode(String.self, forKey: .url)
        let password = try Secret.decode(
            from: container, value: .password, file: .passwordFile, userInfo: decoder.userInfo)
        do {
            _ = try Options.Settings(url: url, password: password?.value)
        } catch {
            throw container.issue(.url, "\(container.path(.url)): \(error.message)")
        }
        var options = Options(url: url, password: password)
        try options.decodeOwnKeys(container)
        options.common.mode = try container.decode(.mode, default: DatabaseLoadMode.merge)
        options.common.onTypeChange = try container.decode(.onTypeChange, default: DatabaseTypeChangePolicy.fail)
        options.common.tableName = try SQLiteSinkOptions.decodeTableName(container, key: .tableName)
        options.common.statementTimeout =
            try container.decodeInteger(
                .statementTimeout, default: Options.Settings.defaultStatementTimeout, in: Self.timeoutRange)
            ?? Options.Settings.defaultStatementTimeout
        options.common.lockTimeout =
            try container.decodeInteger(
                .lockTimeout, default: Options.Settings.defaultLockTimeout, in: Self.timeoutRange)
            ?? Options.Settings.defaultLockTimeout
        let keys = try DatabaseConvergenceKeys.decode(
            container, prune: .prune, deletes: .deletes, mode: options.common.mode)
        (options.common.prune, options.common.deletes) = (keys.prune, keys.deletes)
        self.options = options
    }
}

/// The coding keys a database server output has (its own may add more, such as `schema`); each output
/// lists them in its own enumeration, whose order the message about an unknown key shows.
public protocol DatabaseServerCodingKey: CodingKey, CaseIterable {
    /// `url`.
    static var url: Self { get }
    /// `password`.
    static var password: Self { get }
    /// `password_file`.
    static var passwordFile: Self { get }
    /// `mode`.
    static var mode: Self { get }
    /// `table_name`.
    static var tableName: Self { get }
    /// `on_type_change`.
    static var onTypeChange: Self { get }
    /// `statement_timeout_seconds`.
    static var statementTimeout: Self { get }
    /// `lock_timeout_seconds`.
    static var lockTimeout: Self { get }
    /// `prune`.
    static var prune: Self { get }
    /// `deletes`.
    static var deletes: Self { get }
}
