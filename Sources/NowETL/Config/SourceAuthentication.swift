import NowData

/// How nowetl signs in to the instance: `source.auth` with exactly one of `basic` or `oauth`.
///
/// ```yaml
/// auth:
///   basic: { user: ${SN_USER}, password: ${SN_PASSWORD} }      # or password_file: /run/secrets/sn
/// # oauth: { client_id: ${ID}, client_secret_file: /run/secrets/id, grant: client_credentials }
/// # oauth: { client_id: ${ID}, client_secret: ${SECRET}, grant: password, user: etl, password: ${PW} }
/// ```
public enum SourceAuthentication: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// HTTP basic authentication.
    case basic(user: String, password: Secret)
    /// OAuth 2 against the instance's `/oauth_token.do`.
    case oauth(OAuth)

    /// OAuth 2 client credentials and grant.
    public struct OAuth: Sendable, Hashable {
        /// The grant that obtains the first token.
        public enum Grant: Sendable, Hashable {
            /// Resource-owner password grant (`grant: password` with `user` and `password`).
            case password(user: String, password: Secret)
            /// Client-credentials grant (`grant: client_credentials`).
            case clientCredentials
        }

        /// The client id from the instance's Application Registry.
        public var clientID: String
        /// The client secret.
        public var clientSecret: Secret
        /// The grant.
        public var grant: Grant

        /// Creates OAuth settings.
        public init(clientID: String, clientSecret: Secret, grant: Grant) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.grant = grant
        }
    }

    /// The NowData authentication these settings stand for.
    public var authentication: Authentication {
        switch self {
        case .basic(let user, let password):
            return .basic(username: user, password: password.value)
        case .oauth(let oauth):
            let grant: OAuth2Credentials.Grant =
                switch oauth.grant {
                case .password(let user, let password): .password(username: user, password: password.value)
                case .clientCredentials: .clientCredentials
                }
            return .oauth2(
                OAuth2Credentials(clientID: oauth.clientID, clientSecret: oauth.clientSecret.value, grant: grant))
        }
    }

    /// The kind and user, never a secret.
    public var description: String {
        switch self {
        case .basic(let user, _): "basic(user: \(user))"
        case .oauth(let oauth):
            switch oauth.grant {
            case .password(let user, _): "oauth(client_id: \(oauth.clientID), grant: password, user: \(user))"
            case .clientCredentials: "oauth(client_id: \(oauth.clientID), grant: client_credentials)"
            }
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case basic, oauth
    }

    private enum BasicKeys: String, CodingKey, CaseIterable {
        case user, password
        case passwordFile = "password_file"
    }

    private enum OAuthKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientSecretFile = "client_secret_file"
        case grant, user, password
        case passwordFile = "password_file"
    }

    /// `grant:` as written.
    enum GrantName: String, Decodable, CaseIterable {
        case password
        case clientCredentials = "client_credentials"
    }

    /// Decodes `auth` (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hasBasic = container.contains(.basic)
        let hasOAuth = container.contains(.oauth)
        guard hasBasic != hasOAuth else {
            if hasBasic {
                throw container.issue(
                    .oauth, "\(container.containerPath) takes exactly one of basic or oauth, not both",
                    pointsAtKey: true)
            }
            throw container.issue("\(container.containerPath) needs one of basic or oauth", kind: .missingKey)
        }
        if hasBasic {
            let basic = try container.nestedContainer(keyedBy: BasicKeys.self, forKey: .basic)
            let user = try basic.decode(String.self, forKey: .user)
            let password = try Secret.decodeRequired(
                from: basic, value: .password, file: .passwordFile, userInfo: decoder.userInfo)
            self = .basic(user: user, password: password)
            return
        }
        let oauth = try container.nestedContainer(keyedBy: OAuthKeys.self, forKey: .oauth)
        let clientID = try oauth.decode(String.self, forKey: .clientID)
        let secret = try Secret.decodeRequired(
            from: oauth, value: .clientSecret, file: .clientSecretFile, userInfo: decoder.userInfo)
        let grant: OAuth.Grant
        switch try oauth.decode(GrantName.self, forKey: .grant) {
        case .password:
            let user = try oauth.decode(String.self, forKey: .user)
            let password = try Secret.decodeRequired(
                from: oauth, value: .password, file: .passwordFile, userInfo: decoder.userInfo)
            grant = .password(user: user, password: password)
        case .clientCredentials:
            for key in [OAuthKeys.user, .password, .passwordFile] where oauth.contains(key) {
                throw oauth.issue(
                    key, "\(oauth.path(key)) applies only to grant: password, not client_credentials", pointsAtKey: true
                )
            }
            grant = .clientCredentials
        }
        self = .oauth(OAuth(clientID: clientID, clientSecret: secret, grant: grant))
    }
}
