/// Why `/oauth_token.do` refused a grant.
///
/// On the wire every reason is the same 401 `{"error_description":"access_denied","error":"server_error"}`
/// (ref §1.4): the platform does not tell a caller which credential was wrong. The reason is kept
/// for tests and diagnostics; the description names the client or user, never a secret or token.
public struct OAuthGrantError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// No client is registered under the `client_id`.
        case unknownClient
        /// The `client_secret` does not match.
        case wrongClientSecret
        /// The user does not exist or the password does not match.
        case wrongUserCredentials
        /// The refresh token was never issued, or has been replaced or forgotten.
        case unknownRefreshToken
        /// The refresh token has expired.
        case expiredRefreshToken
        /// The refresh token was issued to another client.
        case refreshTokenOfOtherClient
        /// `client_credentials` for a client without an OAuth Application User (or whose
        /// application user is not configured).
        case noApplicationUser
    }

    /// What was wrong.
    public var reason: Reason
    /// The `client_id` sent.
    public var clientID: String
    /// The user name involved, if any.
    public var userName: String?

    /// Creates an error.
    public init(reason: Reason, clientID: String, userName: String? = nil) {
        self.reason = reason
        self.clientID = clientID
        self.userName = userName
    }

    /// A sentence for logs: the reason, the client id and the user name.
    public var description: String {
        let what =
            switch reason {
            case .unknownClient: "unknown OAuth client"
            case .wrongClientSecret: "wrong client secret"
            case .wrongUserCredentials: "wrong user name or password"
            case .unknownRefreshToken: "unknown refresh token"
            case .expiredRefreshToken: "expired refresh token"
            case .refreshTokenOfOtherClient: "refresh token issued to another client"
            case .noApplicationUser: "client has no usable OAuth Application User for client_credentials"
            }
        return "OAuth access denied: \(what) (client '\(clientID)'"
            + (userName.map { ", user '\($0)')" } ?? ")")
    }
}
