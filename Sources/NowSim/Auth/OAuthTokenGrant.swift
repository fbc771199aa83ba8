/// The tokens `/oauth_token.do` hands out for one successful grant.
///
/// ``description`` shows neither token.
public struct OAuthTokenGrant: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The bearer token for API calls.
    public var accessToken: String
    /// The refresh token (password grant only; `nil` after a refresh or a `client_credentials` grant).
    public var refreshToken: String?
    /// The scope, `useraccount` as on the platform.
    public var scope: String
    /// The token type, `Bearer`.
    public var tokenType: String
    /// Whole seconds the access token remains valid, one less than the exact remainder (a fresh
    /// 1800-second token reports 1799, as real instances do), never negative.
    public var expiresIn: Int

    /// Creates a grant.
    public init(
        accessToken: String, refreshToken: String?, scope: String = "useraccount", tokenType: String = "Bearer",
        expiresIn: Int
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.scope = scope
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }

    /// The token response body: `{"access_token":…,"refresh_token":…,"scope":…,"token_type":…,
    /// "expires_in":…}`, `refresh_token` omitted when there is none.
    public var json: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(contentsOf: #"{"access_token":"#.utf8)
        ErrorEnvelope.appendQuoted(accessToken, to: &bytes)
        if let refreshToken {
            bytes.append(contentsOf: #","refresh_token":"#.utf8)
            ErrorEnvelope.appendQuoted(refreshToken, to: &bytes)
        }
        bytes.append(contentsOf: #","scope":"#.utf8)
        ErrorEnvelope.appendQuoted(scope, to: &bytes)
        bytes.append(contentsOf: #","token_type":"#.utf8)
        ErrorEnvelope.appendQuoted(tokenType, to: &bytes)
        bytes.append(contentsOf: #","expires_in":"#.utf8)
        bytes.append(contentsOf: String(expiresIn).utf8)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `OAuthTokenGrant(Bearer, scope: useraccount, expiresIn: 1799, refresh: yes)`; no tokens shown.
    public var description: String {
        "OAuthTokenGrant(\(tokenType), scope: \(scope), expiresIn: \(expiresIn), refresh: "
            + (refreshToken == nil ? "no)" : "yes)")
    }

    /// Same as ``description``: no tokens shown.
    public var debugDescription: String { description }

    /// A mirror without the tokens.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["scope": scope, "tokenType": tokenType, "expiresIn": expiresIn],
            displayStyle: .struct)
    }
}
