import Foundation
import Synchronization

/// Decides who a request comes from: Basic credentials of a configured ``APIUser`` or a bearer
/// token issued by `/oauth_token.do` (see ``OAuthTokenEndpoint``).
///
/// Users and OAuth clients are fixed at creation; issued tokens live in a lock-protected store, so
/// one authenticator is shared by all server threads. Every failure is the same 401
/// `User Not Authenticated` envelope (ref §6.1, §6.2), whatever was wrong. Nothing here logs, and no
/// password, secret or token appears in a description or error.
public final class Authenticator: Sendable {
    /// How long an access token is valid, in seconds (default 1800, the platform's default).
    public let accessTokenLifetime: TimeInterval
    /// How long a refresh token is valid, in seconds (default 8,640,000 = 100 days).
    public let refreshTokenLifetime: TimeInterval

    let now: @Sendable () -> Date
    private let usersByName: [String: APIUser]
    private let clientsByID: [String: OAuthClient]
    let tokens = Mutex(OAuthTokenStore())

    /// Creates an authenticator.
    ///
    /// A later user or client with the same name as an earlier one replaces it.
    ///
    /// - Parameters:
    ///   - users: Who may log in (default: `admin`/`admin` with role `admin`).
    ///   - clients: The registered OAuth clients (default: `nowsim`/`nowsim`, acting as `admin` for
    ///     `client_credentials`).
    ///   - accessTokenLifetime: Seconds an access token is valid.
    ///   - refreshTokenLifetime: Seconds a refresh token is valid.
    ///   - now: The clock; tests inject one to expire tokens without waiting.
    public init(
        users: [APIUser] = [.defaultAdmin], clients: [OAuthClient] = [.defaultClient],
        accessTokenLifetime: TimeInterval = 1800, refreshTokenLifetime: TimeInterval = 8_640_000,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.usersByName = Dictionary(users.map { ($0.userName, $0) }, uniquingKeysWith: { _, later in later })
        self.clientsByID = Dictionary(clients.map { ($0.clientID, $0) }, uniquingKeysWith: { _, later in later })
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.now = now
    }

    /// The configured users, sorted by name.
    public var users: [APIUser] { usersByName.values.sorted { $0.userName < $1.userName } }

    /// The configured OAuth clients, sorted by id.
    public var clients: [OAuthClient] { clientsByID.values.sorted { $0.clientID < $1.clientID } }

    /// The user named `userName`, if configured.
    public func user(named userName: String) -> APIUser? { usersByName[userName] }

    /// The client with id `clientID`, if registered.
    public func client(withID clientID: String) -> OAuthClient? { clientsByID[clientID] }

    /// Authenticates `request` by its `Authorization` header.
    ///
    /// `Basic <base64(user:password)>` (padding optional) and `Bearer <access_token>` are accepted;
    /// the scheme is case-insensitive. A missing header, another scheme, malformed base64, a wrong
    /// name or password, and an unknown or expired token all give ``AuthResult/failure(_:)`` with
    /// ``ErrorEnvelope/notAuthenticated``.
    public func authenticate(_ request: HTTPRequest) -> AuthResult {
        guard let header = request.header("authorization"),
            let user = authenticate(authorization: header)
        else { return .failure(ErrorEnvelope.notAuthenticated) }
        return .user(user)
    }

    /// The user an `Authorization` header value authenticates, or `nil`.
    public func authenticate(authorization header: String) -> APIUser? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let scheme = value[..<space]
        let credentials = value[space...].trimmingCharacters(in: .whitespaces)
        if scheme.caseInsensitiveCompare("Basic") == .orderedSame {
            return user(basicCredentials: credentials)
        }
        if scheme.caseInsensitiveCompare("Bearer") == .orderedSame {
            return user(accessToken: credentials)
        }
        return nil
    }

    /// The user of the base64 `user:password` pair, if the pair is well-formed and matches.
    public func user(basicCredentials encoded: String) -> APIUser? {
        var padded = encoded
        switch padded.utf8.count % 4 {
        case 2: padded += "=="
        case 3: padded += "="
        case 1: return nil
        default: break
        }
        guard let data = Data(base64Encoded: padded),
            let pair = String(validating: data, as: UTF8.self),
            let colon = pair.firstIndex(of: ":")
        else { return nil }
        guard let user = usersByName[String(pair[..<colon])],
            Self.constantTimeEqual(user.password, pair[pair.index(after: colon)...])
        else { return nil }
        return user
    }

    /// The user an unexpired access token was issued for, if any.
    public func user(accessToken token: String) -> APIUser? {
        let now = now()
        guard let key = tokens.withLock({ $0.session(forAccessToken: token, now: now) }) else { return nil }
        return usersByName[key.userName]
    }

    /// Compares without an early exit on the first differing byte, so timing does not reveal how
    /// much of a password was right.
    static func constantTimeEqual(_ expected: String, _ given: some StringProtocol) -> Bool {
        let a = Array(expected.utf8)
        let b = Array(given.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        for index in 0..<min(a.count, b.count) {
            difference |= a[index] ^ b[index]
        }
        return difference == 0
    }
}
