import NowData

/// Why a command failed, as `--summary-json` (``RunReport/error``) and a JSON log line say it: what
/// kind of failure it was, for scripts that react differently, and the message for people.
///
/// ```json
/// "error": { "kind": "authentication", "message": "fetching the dictionary: HTTP 401 …" }
/// ```
/// The message is redacted by the logger that printed it, like every other line.
public struct RunFailure: Sendable, Hashable, Codable {
    /// A ``ConfigError``'s kind (`syntax`, `environment`, `invalidValue`, …), a ``NowETLError``'s code
    /// (`authentication`, `unreachable`, `outputDirectoryBusy`, …), `usage`, or `failed` for anything else.
    public var kind: String
    /// What went wrong, as printed on standard error, with the secrets redacted.
    public var message: String

    /// The kind of `error`: its own classification, never its text (which may hold anything).
    static func kind(of error: any Error) -> String {
        switch error {
        case let error as ConfigError: "\(error.kind)"
        case let error as NowETLError: error.code.rawValue
        case let error as NowDataError: NowETLError.Code(error).rawValue
        case is NowETLArguments.UsageError: NowETLError.Code.usage.rawValue
        default: NowETLError.Code.failed.rawValue
        }
    }
}
