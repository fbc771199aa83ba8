import Foundation

/// How requests authenticate against the instance.
///
/// Secrets never appear in `description`, `debugDescription`, `dump` or errors.
public enum Authentication: Sendable {
    /// HTTP Basic with a user's name and password.
    case basic(username: String, password: String)
    /// OAuth 2 against the instance's `/oauth_token.do`; tokens are fetched, refreshed before they
    /// expire and once more when the instance answers 401.
    case oauth2(OAuth2Credentials)
    /// Bearer tokens from your own provider (an SSO broker, a secrets manager).
    case bearerToken(any AccessTokenProvider)
    /// No credentials (tables in `sys_public`, local test instances).
    case none
}

extension Authentication: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The kind of authentication, with the user or client id but never a secret.
    public var description: String {
        switch self {
        case .basic(let username, _): return "basic(username: \(username), password: <redacted>)"
        case .oauth2(let credentials): return "oauth2(\(credentials))"
        case .bearerToken: return "bearerToken(<provider>)"
        case .none: return "none"
        }
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without secrets, so `dump` cannot print them.
    public var customMirror: Mirror { Mirror(self, children: ["kind": description], displayStyle: .enum) }
}
