import NowPostgres
import NowSimTesting

/// Connects to a test database as its superuser, on a thread of its own (libpq blocks), with the
/// session settings `configure` changes (a shorter timeout, say).
func connect(
    _ database: PostgresTestDatabase, configure: (inout PostgresSettings) -> Void = { _ in }
) async throws -> PostgresConnection {
    var settings = try PostgresSettings(url: database.url, password: database.password)
    configure(&settings)
    let configured = settings
    return try await offCooperativePool { try PostgresConnection.connect(configured) }
}

/// A connection to `database` that ran `setup`, began a transaction and ran `inTransaction` in it.
func connectInTransaction(
    _ database: PostgresTestDatabase, setup: String, inTransaction: String
) async throws -> PostgresConnection {
    let connection = try await connect(database)
    try await blocking {
        try connection.execute(setup)
        try connection.begin()
        try connection.execute(inTransaction)
    }
    return connection
}

/// Runs blocking libpq work on a thread of its own.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await offCooperativePool(work)
}

/// The outcome of a connection attempt that is expected to fail.
func connectionFailure(_ settings: PostgresSettings) async throws -> PostgresError? {
    try await postgresFailure { _ = try PostgresConnection.connect(settings) }
}

/// The `PostgresError` that blocking `work` throws (on a thread of its own), or `nil` when it succeeds;
/// any other error is rethrown.
func postgresFailure(_ work: @escaping @Sendable () throws -> Void) async throws -> PostgresError? {
    try await blocking { () -> PostgresError? in
        do {
            try work()
            return nil
        } catch let error as PostgresError {
            return error
        }
    }
}

/// Text that breaks naive quoting and escaping: quotes, backslashes, the COPY escapes themselves,
/// control characters, a lone `\.` (COPY's old end marker), non-ASCII and emoji.
let awkwardTexts: [String] = [
    "plain", "it's \"quoted\"", #"back\slash \\ double"#, "tab\there", "new\nline", "carriage\rreturn",
    "crlf\r\n", #"\N"#, #"\."#, "\\", "\t", "\n", " leading and trailing ", "semi;colon -- comment",
    "$1 $$dollar$$", "ünïcödé ß 日本語", "emoji 🚀👩🏽‍💻", "\u{7}bell\u{1b}escape\u{7f}", "%_like_%", "'; DROP TABLE x; --",
]
