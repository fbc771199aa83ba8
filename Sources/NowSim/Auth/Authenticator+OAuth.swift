import Foundation

extension Authenticator {
    /// The password grant: tokens for `userName` through client `clientID`.
    ///
    /// While the session's access token is still valid the same token is returned (with its
    /// remaining lifetime), and likewise the refresh token (ref §6.2).
    ///
    /// - Throws: ``OAuthGrantError`` for an unknown client, a wrong secret, or a wrong user name or
    ///   password.
    public func grantPassword(
        clientID: String, clientSecret: String, userName: String, password: String
    ) throws(OAuthGrantError) -> OAuthTokenGrant {
        try verifyClient(clientID, clientSecret)
        guard let user = user(named: userName), Self.constantTimeEqual(user.password, password) else {
            throw OAuthGrantError(reason: .wrongUserCredentials, clientID: clientID, userName: userName)
        }
        let now = now()
        let key = OAuthTokenStore.SessionKey(clientID: clientID, userName: user.userName, flow: .password)
        let session = tokens.withLock {
            $0.tokens(
                for: key, now: now, accessLifetime: accessTokenLifetime, refreshLifetime: refreshTokenLifetime)
        }
        return OAuthTokenGrant(
            accessToken: session.accessToken, refreshToken: session.refreshToken,
            expiresIn: Self.expiresIn(session.accessExpiresAt, now: now))
    }

    /// The refresh grant: an access token for the session of `refreshToken`, which must have been
    /// issued to `clientID`.
    ///
    /// Returns only an access token (ref §6.2): the session's current one while it is valid, a new
    /// one otherwise. The refresh token itself is not renewed.
    ///
    /// - Throws: ``OAuthGrantError`` for an unknown client, a wrong secret, or an unknown, expired
    ///   or foreign refresh token.
    public func grantRefresh(
        clientID: String, clientSecret: String, refreshToken: String
    ) throws(OAuthGrantError) -> OAuthTokenGrant {
        try verifyClient(clientID, clientSecret)
        let now = now()
        let result: Result<OAuthTokenStore.Session, OAuthGrantError> = tokens.withLock { store in
            guard let (key, expiresAt) = store.session(forRefreshToken: refreshToken) else {
                return .failure(OAuthGrantError(reason: .unknownRefreshToken, clientID: clientID))
            }
            guard now < expiresAt else {
                return .failure(
                    OAuthGrantError(reason: .expiredRefreshToken, clientID: clientID, userName: key.userName))
            }
            guard key.clientID == clientID else {
                return .failure(
                    OAuthGrantError(reason: .refreshTokenOfOtherClient, clientID: clientID, userName: key.userName))
            }
            guard user(named: key.userName) != nil else {
                return .failure(
                    OAuthGrantError(reason: .wrongUserCredentials, clientID: clientID, userName: key.userName))
            }
            return .success(
                store.tokens(for: key, now: now, accessLifetime: accessTokenLifetime, refreshLifetime: nil))
        }
        let session = try result.get()
        return OAuthTokenGrant(
            accessToken: session.accessToken, refreshToken: nil,
            expiresIn: Self.expiresIn(session.accessExpiresAt, now: now))
    }

    /// The client-credentials grant: an access token acting as the client's OAuth Application User
    /// (``OAuthClient/applicationUser``, `admin` by default); no refresh token.
    ///
    /// The platform only allows this grant when
    /// `glide.oauth.inbound.client.credential.grant_type.enabled` is set; nowsim always allows it
    /// for clients with an application user.
    ///
    /// - Throws: ``OAuthGrantError`` for an unknown client, a wrong secret, or a client without a
    ///   configured application user.
    public func grantClientCredentials(clientID: String, clientSecret: String) throws(OAuthGrantError)
        -> OAuthTokenGrant
    {
        let client = try verifyClient(clientID, clientSecret)
        guard let userName = client.applicationUser, user(named: userName) != nil else {
            throw OAuthGrantError(reason: .noApplicationUser, clientID: clientID, userName: client.applicationUser)
        }
        let now = now()
        let key = OAuthTokenStore.SessionKey(clientID: clientID, userName: userName, flow: .clientCredentials)
        let session = tokens.withLock {
            $0.tokens(for: key, now: now, accessLifetime: accessTokenLifetime, refreshLifetime: nil)
        }
        return OAuthTokenGrant(
            accessToken: session.accessToken, refreshToken: nil,
            expiresIn: Self.expiresIn(session.accessExpiresAt, now: now))
    }

    @discardableResult
    private func verifyClient(_ clientID: String, _ clientSecret: String) throws(OAuthGrantError) -> OAuthClient {
        guard let client = client(withID: clientID) else {
            throw OAuthGrantError(reason: .unknownClient, clientID: clientID)
        }
        guard Self.constantTimeEqual(client.clientSecret, clientSecret) else {
            throw OAuthGrantError(reason: .wrongClientSecret, clientID: clientID)
        }
        return client
    }

    /// Whole seconds left, minus one (1800 → 1799, as instances report), never negative.
    private static func expiresIn(_ expiresAt: Date, now: Date) -> Int {
        max(0, Int(expiresAt.timeIntervalSince(now).rounded(.up)) - 1)
    }
}
