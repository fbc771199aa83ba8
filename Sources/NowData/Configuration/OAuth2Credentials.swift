import Foundation

/// The client registration and grant used against `/oauth_token.do` (ref §6.2).
public struct OAuth2Credentials: Sendable {
    /// The OAuth client id from the instance's Application Registry.
    public var clientID: String
    /// The OAuth client secret.
    public var clientSecret: String
    /// The grant that obtains the first token.
    public var grant: Grant
    /// The requested scope (client-credentials grant only; optional).
    public var scope: String?
    /// How long before expiry a token is refreshed, in seconds (default 60).
    public var refreshLeeway: TimeInterval
    /// The token endpoint path on the instance (default `/oauth_token.do`).
    public var tokenPath: String

    /// Creates OAuth 2 credentials.
    public init(
        clientID: String, clientSecret: String, grant: Grant, scope: String? = nil, refreshLeeway: TimeInterval = 60,
        tokenPath: String = "/oauth_token.do"
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.grant = grant
        self.scope = scope
        self.refreshLeeway = refreshLeeway
        self.tokenPath = tokenPath
    }

    /// The OAuth grant that obtains the first token.
    public enum Grant: Sendable {
        /// Resource-owner password grant: returns an access and a refresh token.
        case password(username: String, password: String)
        /// Client-credentials grant (needs `glide.oauth.inbound.client.credential.grant_type.enabled`).
        case clientCredentials
        /// Start from an existing refresh token.
        case refreshToken(String)
    }
}

extension OAuth2Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The client id and grant kind, never a secret.
    public var description: String {
        let grantName: String
        switch grant {
        case .password(let username, _): grantName = "password(username: \(username))"
        case .clientCredentials: grantName = "clientCredentials"
        case .refreshToken: grantName = "refreshToken(<redacted>)"
        }
        return "clientID: \(clientID), clientSecret: <redacted>, grant: \(grantName)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without secrets.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description]) }
}
