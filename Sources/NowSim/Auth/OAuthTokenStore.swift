import Foundation

/// The OAuth tokens an ``Authenticator`` has issued, kept per grant "session" so that a repeated
/// request while a token is still valid gets the same token back (ref §6.2).
///
/// A value type living inside the authenticator's mutex; every method is called with the lock held.
/// Tokens are kept in memory only and forgotten once both of a session's tokens have expired.
struct OAuthTokenStore: Sendable {
    /// How a session's access token was obtained.
    enum Flow: Sendable, Hashable {
        /// `grant_type=password` (refreshes continue the same session).
        case password
        /// `grant_type=client_credentials` (no refresh token).
        case clientCredentials
    }

    /// One client acting as one user through one flow.
    struct SessionKey: Sendable, Hashable {
        var clientID: String
        var userName: String
        var flow: Flow
    }

    /// The current tokens of a session.
    struct Session: Sendable {
        var accessToken: String
        var accessExpiresAt: Date
        var refreshToken: String?
        var refreshExpiresAt: Date?
    }

    private(set) var sessions: [SessionKey: Session] = [:]
    private var accessIndex: [String: SessionKey] = [:]
    private var refreshIndex: [String: SessionKey] = [:]

    /// The session whose current, unexpired access token is `token`.
    func session(forAccessToken token: String, now: Date) -> SessionKey? {
        guard let key = accessIndex[token], let session = sessions[key], session.accessToken == token,
            now < session.accessExpiresAt
        else { return nil }
        return key
    }

    /// The session and expiry of the refresh token `token`, expired or not.
    func session(forRefreshToken token: String) -> (key: SessionKey, expiresAt: Date)? {
        guard let key = refreshIndex[token], let session = sessions[key], session.refreshToken == token,
            let expiresAt = session.refreshExpiresAt
        else { return nil }
        return (key, expiresAt)
    }

    /// Returns the session's tokens, reusing each one that is still valid and issuing the others.
    ///
    /// - Parameter refreshLifetime: The refresh token's lifetime, or `nil` for a flow without one.
    mutating func tokens(
        for key: SessionKey, now: Date, accessLifetime: TimeInterval, refreshLifetime: TimeInterval?
    ) -> Session {
        prune(now: now)
        var session: Session
        if let existing = sessions[key], now < existing.accessExpiresAt {
            session = existing
        } else {
            if let old = sessions[key]?.accessToken { accessIndex[old] = nil }
            session = Session(
                accessToken: Self.newToken(), accessExpiresAt: now + accessLifetime,
                refreshToken: sessions[key]?.refreshToken, refreshExpiresAt: sessions[key]?.refreshExpiresAt)
            accessIndex[session.accessToken] = key
        }
        if let refreshLifetime {
            let refreshAlive = session.refreshExpiresAt.map { now < $0 } ?? false
            if session.refreshToken == nil || !refreshAlive {
                if let old = session.refreshToken { refreshIndex[old] = nil }
                let token = Self.newToken()
                session.refreshToken = token
                session.refreshExpiresAt = now + refreshLifetime
                refreshIndex[token] = key
            }
        }
        sessions[key] = session
        return session
    }

    /// Forgets access tokens that have expired and sessions with nothing valid left.
    mutating func prune(now: Date) {
        for (key, session) in sessions where !(now < session.accessExpiresAt) {
            accessIndex[session.accessToken] = nil
            let refreshAlive = session.refreshExpiresAt.map { now < $0 } ?? false
            if !refreshAlive {
                if let refresh = session.refreshToken { refreshIndex[refresh] = nil }
                sessions[key] = nil
            }
        }
    }

    /// A new opaque token: 64 random bytes as unpadded URL-safe base64, 86 characters, the length
    /// and alphabet of the platform's opaque tokens.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(64)
        for _ in 0..<8 {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
