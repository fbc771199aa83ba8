import NowPostgres
import NowSimTesting

/// Connects to a test database as its superuser, on a thread of its own (libpq blocks).
func connect(_ database: PostgresTestDatabase) async throws -> PostgresConnection {
    let settings = try PostgresSettings(url: database.url, password: database.password)
    return try await offCooperativePool { try PostgresConnection.connect(settings) }
}

/// Runs blocking libpq work on a thread of its own.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await offCooperativePool(work)
}

/// The outcome of a connection attempt that is expected to fail.
func connectionFailure(_ settings: PostgresSettings) async throws -> PostgresError? {
    try await blocking { () -> PostgresError? in
        do {
            _ = try PostgresConnection.connect(settings)
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
