/// An OAuth client registered with the instance (an `oauth_entity` "OAuth API endpoint for external
/// clients"): its `client_id`, `client_secret` and optional OAuth Application User.
///
/// ``description`` and ``debugDescription`` never show the secret.
public struct OAuthClient: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The `client_id`.
    public var clientID: String
    /// The `client_secret`, compared exactly.
    public var clientSecret: String
    /// The user a `client_credentials` token acts as (the entity's "OAuth Application User"), or
    /// `nil` to refuse that grant for this client, as the platform does when none is set.
    public var applicationUser: String?

    /// Creates a client; `applicationUser` defaults to `admin`.
    public init(clientID: String, clientSecret: String, applicationUser: String? = "admin") {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.applicationUser = applicationUser
    }

    /// The default client, `nowsim` with secret `nowsim`, whose `client_credentials` tokens act as
    /// `admin`.
    public static let defaultClient = OAuthClient(clientID: "nowsim", clientSecret: "nowsim")

    /// Parses `ID:SECRET`; the id ends at the first `:`, the secret is everything after it (so a
    /// secret may contain `:`). The application user is `applicationUser`.
    ///
    /// - Throws: ``AuthConfigurationError`` for an empty id or a missing or empty secret; its
    ///   description names the client id but never the secret.
    public init(parsing specification: String, applicationUser: String? = "admin") throws(AuthConfigurationError) {
        let expected = "CLIENT_ID:CLIENT_SECRET"
        guard let colon = specification.firstIndex(of: ":") else {
            if specification.isEmpty {
                throw AuthConfigurationError(
                    kind: .emptyName, subject: "OAuth client", name: nil, expectedForm: expected)
            }
            throw AuthConfigurationError(
                kind: .missingPassword, subject: "OAuth client", name: specification, expectedForm: expected)
        }
        let id = String(specification[..<colon])
        let secret = String(specification[specification.index(after: colon)...])
        guard !id.isEmpty else {
            throw AuthConfigurationError(kind: .emptyName, subject: "OAuth client", name: nil, expectedForm: expected)
        }
        guard !secret.isEmpty else {
            throw AuthConfigurationError(
                kind: .emptyPassword, subject: "OAuth client", name: id, expectedForm: expected)
        }
        self.init(clientID: id, clientSecret: secret, applicationUser: applicationUser)
    }

    /// `OAuthClient(nowsim, applicationUser: admin)`; the secret is never shown.
    public var description: String {
        "OAuthClient(\(clientID), applicationUser: \(applicationUser ?? "none"))"
    }

    /// Same as ``description``: the secret is never shown.
    public var debugDescription: String { description }

    /// A mirror without the secret, so that `dump` and test failure messages do not reveal it.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["clientID": clientID, "applicationUser": applicationUser as Any], displayStyle: .struct)
    }
}
