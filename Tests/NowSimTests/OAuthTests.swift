import Foundation
import NowSim
import Synchronization
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct OAuthTests {}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func now() -> Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// An authenticator, its token endpoint and its clock.
struct OAuthFixture {
    let clock = ManualClock()
    let authenticator: Authenticator
    let endpoint: OAuthTokenEndpoint

    init(
        users: [APIUser] = [.defaultAdmin, APIUser(userName: "etl", password: "etl pw", roles: ["itil"])],
        clients: [OAuthClient] = [
            .defaultClient, OAuthClient(clientID: "other", clientSecret: "other-secret", applicationUser: nil),
        ]
    ) {
        let clock = clock
        authenticator = Authenticator(users: users, clients: clients, now: { clock.now() })
        endpoint = OAuthTokenEndpoint(authenticator: authenticator)
    }

    /// POSTs a form body to the endpoint.
    func post(_ pairs: [(name: String, value: String)], contentType: String? = "application/x-www-form-urlencoded")
        -> HTTPResponse
    {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        return endpoint.handle(
            HTTPRequest(
                method: "POST", path: OAuthTokenEndpoint.path, headers: headers,
                body: Array(FormEncoding.encode(pairs).utf8)))
    }

    func passwordGrant(user: String = "admin", password: String = "admin", secret: String = "nowsim") -> HTTPResponse {
        post([
            (name: "grant_type", value: "password"), (name: "client_id", value: "nowsim"),
            (name: "client_secret", value: secret), (name: "username", value: user),
            (name: "password", value: password),
        ])
    }

    func refreshGrant(_ token: String, client: String = "nowsim", secret: String = "nowsim") -> HTTPResponse {
        post([
            (name: "grant_type", value: "refresh_token"), (name: "client_id", value: client),
            (name: "client_secret", value: secret), (name: "refresh_token", value: token),
        ])
    }

    func bearer(_ token: String) -> AuthResult {
        authenticator.authenticate(request(authorization: "Bearer " + token))
    }
}

func tokenJSON(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    #expect(response.status == 200, sourceLocation: sourceLocation)
    #expect(response.header("content-type") == "application/json;charset=UTF-8", sourceLocation: sourceLocation)
    #expect(response.header("cache-control") == "no-store", sourceLocation: sourceLocation)
    return try #require(
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], sourceLocation: sourceLocation)
}

func expectAccessDenied(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == 401, sourceLocation: sourceLocation)
    #expect(
        String(decoding: response.body, as: UTF8.self)
            == #"{"error_description":"access_denied","error":"server_error"}"#,
        sourceLocation: sourceLocation)
}

func expectOAuthError(
    _ response: HTTPResponse, status: Int, error: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(response.status == status, sourceLocation: sourceLocation)
    let object = try #require(
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], sourceLocation: sourceLocation)
    #expect(object["error"] as? String == error, sourceLocation: sourceLocation)
    #expect((object["error_description"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
}

/// 86 characters of the URL-safe base64 alphabet.
func isOpaqueToken(_ token: String?) -> Bool {
    guard let token, token.count == 86 else { return false }
    return token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
}

// MARK: - Password grant and bearer tokens

extension OAuthTests {
    @Test func passwordGrantIssuesUsableTokens() throws {
        let fixture = OAuthFixture()
        let json = try tokenJSON(fixture.passwordGrant())
        let access = json["access_token"] as? String
        let refresh = json["refresh_token"] as? String
        #expect(isOpaqueToken(access))
        #expect(isOpaqueToken(refresh))
        #expect(access != refresh)
        #expect(json["scope"] as? String == "useraccount")
        #expect(json["token_type"] as? String == "Bearer")
        #expect(json["expires_in"] as? Int == 1799)
        #expect(fixture.bearer(try #require(access)).user == .defaultAdmin)
        #expect(fixture.authenticator.authenticate(request(authorization: "bearer " + access!)).user == .defaultAdmin)
        // A refresh token is not an access token.
        expectNotAuthenticated(fixture.bearer(try #require(refresh)))
    }

    @Test func passwordGrantReturnsTheSameTokensWhileValid() throws {
        let fixture = OAuthFixture()
        let first = try tokenJSON(fixture.passwordGrant())
        fixture.clock.advance(by: 100)
        let second = try tokenJSON(fixture.passwordGrant())
        #expect(second["access_token"] as? String == first["access_token"] as? String)
        #expect(second["refresh_token"] as? String == first["refresh_token"] as? String)
        #expect(second["expires_in"] as? Int == 1699)
        // Another user gets other tokens.
        let other = try tokenJSON(fixture.passwordGrant(user: "etl", password: "etl pw"))
        #expect(other["access_token"] as? String != first["access_token"] as? String)
        #expect(fixture.bearer(other["access_token"] as! String).user?.userName == "etl")
    }

    @Test func bearerTokenExpiresAndRefreshIssuesANewOne() throws {
        let fixture = OAuthFixture()
        let grant = try tokenJSON(fixture.passwordGrant())
        let access = try #require(grant["access_token"] as? String)
        let refresh = try #require(grant["refresh_token"] as? String)

        fixture.clock.advance(by: 1799)
        #expect(fixture.bearer(access).user == .defaultAdmin)
        fixture.clock.advance(by: 1)
        expectNotAuthenticated(fixture.bearer(access))

        let refreshed = try tokenJSON(fixture.refreshGrant(refresh))
        let newAccess = try #require(refreshed["access_token"] as? String)
        #expect(isOpaqueToken(newAccess))
        #expect(newAccess != access)
        #expect(refreshed["refresh_token"] == nil)  // a refresh returns only an access token
        #expect(refreshed["expires_in"] as? Int == 1799)
        #expect(refreshed["token_type"] as? String == "Bearer")
        #expect(fixture.bearer(newAccess).user == .defaultAdmin)
        expectNotAuthenticated(fixture.bearer(access))

        // Refreshing again while the new token is valid returns that same token.
        fixture.clock.advance(by: 10)
        let again = try tokenJSON(fixture.refreshGrant(refresh))
        #expect(again["access_token"] as? String == newAccess)
        #expect(again["expires_in"] as? Int == 1789)
        // And a password grant now continues the same session: same access and refresh token.
        let password = try tokenJSON(fixture.passwordGrant())
        #expect(password["access_token"] as? String == newAccess)
        #expect(password["refresh_token"] as? String == refresh)
    }

    @Test func refreshTokenExpires() throws {
        let fixture = OAuthFixture()
        let refresh = try #require(try tokenJSON(fixture.passwordGrant())["refresh_token"] as? String)
        fixture.clock.advance(by: 8_640_000)
        expectAccessDenied(fixture.refreshGrant(refresh))
        #expect(throws: OAuthGrantError(reason: .expiredRefreshToken, clientID: "nowsim", userName: "admin")) {
            try fixture.authenticator.grantRefresh(clientID: "nowsim", clientSecret: "nowsim", refreshToken: refresh)
        }
        // A new password grant starts over with fresh tokens.
        let fresh = try tokenJSON(fixture.passwordGrant())
        #expect(fresh["refresh_token"] as? String != refresh)
        #expect(isOpaqueToken(fresh["refresh_token"] as? String))
    }

    @Test func lifetimesAreConfigurable() throws {
        let clock = ManualClock()
        let authenticator = Authenticator(
            accessTokenLifetime: 60, refreshTokenLifetime: 120, now: { clock.now() })
        let grant = try authenticator.grantPassword(
            clientID: "nowsim", clientSecret: "nowsim", userName: "admin", password: "admin")
        #expect(grant.expiresIn == 59)
        clock.advance(by: 60)
        #expect(authenticator.user(accessToken: grant.accessToken) == nil)
        let refreshed = try authenticator.grantRefresh(
            clientID: "nowsim", clientSecret: "nowsim", refreshToken: try #require(grant.refreshToken))
        #expect(authenticator.user(accessToken: refreshed.accessToken) == .defaultAdmin)
        clock.advance(by: 60)
        #expect(throws: OAuthGrantError.self) {
            try authenticator.grantRefresh(
                clientID: "nowsim", clientSecret: "nowsim", refreshToken: grant.refreshToken!)
        }
    }
}

// MARK: - Client credentials

extension OAuthTests {
    @Test func clientCredentialsActAsTheApplicationUser() throws {
        let fixture = OAuthFixture()
        let json = try tokenJSON(
            fixture.post([
                (name: "grant_type", value: "client_credentials"), (name: "client_id", value: "nowsim"),
                (name: "client_secret", value: "nowsim"),
            ]))
        let access = try #require(json["access_token"] as? String)
        #expect(isOpaqueToken(access))
        #expect(json["refresh_token"] == nil)
        #expect(json["expires_in"] as? Int == 1799)
        #expect(fixture.bearer(access).user == .defaultAdmin)
        // Reuse while valid.
        let again = try fixture.authenticator.grantClientCredentials(clientID: "nowsim", clientSecret: "nowsim")
        #expect(again.accessToken == access)
    }

    @Test func clientCredentialsNeedAnApplicationUser() throws {
        let fixture = OAuthFixture()
        expectAccessDenied(
            fixture.post([
                (name: "grant_type", value: "client_credentials"), (name: "client_id", value: "other"),
                (name: "client_secret", value: "other-secret"),
            ]))
        #expect(throws: OAuthGrantError(reason: .noApplicationUser, clientID: "other")) {
            try fixture.authenticator.grantClientCredentials(clientID: "other", clientSecret: "other-secret")
        }
        // An application user that is not a configured user is refused too.
        let ghost = Authenticator(clients: [OAuthClient(clientID: "c", clientSecret: "s", applicationUser: "ghost")])
        #expect(throws: OAuthGrantError(reason: .noApplicationUser, clientID: "c", userName: "ghost")) {
            try ghost.grantClientCredentials(clientID: "c", clientSecret: "s")
        }
    }
}

// MARK: - Credential errors (all 401 access_denied on the wire)

extension OAuthTests {
    @Test func wrongCredentialsAreAccessDenied() throws {
        let fixture = OAuthFixture()
        expectAccessDenied(fixture.passwordGrant(secret: "wrong"))
        expectAccessDenied(fixture.passwordGrant(password: "wrong"))
        expectAccessDenied(fixture.passwordGrant(user: "nobody"))
        expectAccessDenied(
            fixture.post([
                (name: "grant_type", value: "password"), (name: "client_id", value: "unknown"),
                (name: "client_secret", value: "nowsim"), (name: "username", value: "admin"),
                (name: "password", value: "admin"),
            ]))
        expectAccessDenied(fixture.refreshGrant("not-a-token"))

        let authenticator = fixture.authenticator
        #expect(throws: OAuthGrantError(reason: .unknownClient, clientID: "x")) {
            try authenticator.grantPassword(clientID: "x", clientSecret: "nowsim", userName: "admin", password: "admin")
        }
        #expect(throws: OAuthGrantError(reason: .wrongClientSecret, clientID: "nowsim")) {
            try authenticator.grantPassword(clientID: "nowsim", clientSecret: "x", userName: "admin", password: "admin")
        }
        #expect(throws: OAuthGrantError(reason: .wrongUserCredentials, clientID: "nowsim", userName: "admin")) {
            try authenticator.grantPassword(
                clientID: "nowsim", clientSecret: "nowsim", userName: "admin", password: "x")
        }
        #expect(throws: OAuthGrantError(reason: .unknownRefreshToken, clientID: "nowsim")) {
            try authenticator.grantRefresh(clientID: "nowsim", clientSecret: "nowsim", refreshToken: "nope")
        }
    }

    @Test func refreshTokenOfAnotherClientIsRefused() throws {
        let fixture = OAuthFixture()
        let refresh = try #require(try tokenJSON(fixture.passwordGrant())["refresh_token"] as? String)
        expectAccessDenied(fixture.refreshGrant(refresh, client: "other", secret: "other-secret"))
        #expect(throws: OAuthGrantError(reason: .refreshTokenOfOtherClient, clientID: "other", userName: "admin")) {
            try fixture.authenticator.grantRefresh(
                clientID: "other", clientSecret: "other-secret", refreshToken: refresh)
        }
    }

    @Test func grantErrorsAndGrantsHideSecrets() throws {
        let fixture = OAuthFixture()
        let grant = try fixture.authenticator.grantPassword(
            clientID: "nowsim", clientSecret: "nowsim", userName: "admin", password: "admin")
        var dumped = ""
        dump(grant, to: &dumped)
        for text in [grant.description, String(reflecting: grant), dumped] {
            #expect(!text.contains(grant.accessToken))
            #expect(!text.contains(try #require(grant.refreshToken)))
        }
        do {
            _ = try fixture.authenticator.grantPassword(
                clientID: "nowsim", clientSecret: "nowsim", userName: "admin", password: "Hunter2Secret")
            Issue.record("expected access denied")
        } catch {
            #expect(!error.description.contains("Hunter2Secret"))
            #expect(error.description.contains("admin"))
        }
    }
}

// MARK: - Request errors (400 / 405)

extension OAuthTests {
    @Test(arguments: [
        ("password", ["client_id", "client_secret", "username", "password"]),
        ("refresh_token", ["client_id", "client_secret", "refresh_token"]),
        ("client_credentials", ["client_id", "client_secret"]),
    ])
    func missingParametersAreInvalidRequests(_ grantType: String, _ required: [String]) throws {
        let fixture = OAuthFixture()
        let all: [String: String] = [
            "client_id": "nowsim", "client_secret": "nowsim", "username": "admin", "password": "admin",
            "refresh_token": "whatever",
        ]
        for left in required {
            var pairs: [(name: String, value: String)] = [(name: "grant_type", value: grantType)]
            pairs += required.filter { $0 != left }.map { (name: $0, value: all[$0]!) }
            let response = fixture.post(pairs)
            try expectOAuthError(response, status: 400, error: "invalid_request")
            #expect(String(decoding: response.body, as: UTF8.self).contains(left))
            // An empty value counts as missing.
            try expectOAuthError(fixture.post(pairs + [(name: left, value: "")]), status: 400, error: "invalid_request")
        }
    }

    @Test func requestShapeErrors() throws {
        let fixture = OAuthFixture()
        try expectOAuthError(fixture.post([]), status: 400, error: "invalid_request")
        try expectOAuthError(
            fixture.post([(name: "grant_type", value: "authorization_code")]), status: 400,
            error: "unsupported_grant_type")
        try expectOAuthError(
            fixture.post([
                (name: "grant_type", value: "client_credentials"), (name: "client_id", value: "nowsim"),
                (name: "client_id", value: "other"), (name: "client_secret", value: "nowsim"),
            ]), status: 400, error: "invalid_request")

        // A JSON body is not accepted, even with valid credentials in it.
        let json = fixture.endpoint.handle(
            HTTPRequest(
                method: "POST", path: OAuthTokenEndpoint.path, headers: ["content-type": "application/json"],
                body: Array(#"{"grant_type":"client_credentials","client_id":"nowsim","client_secret":"nowsim"}"#.utf8))
        )
        try expectOAuthError(json, status: 400, error: "invalid_request")

        // Form bodies with a charset parameter or without Content-Type are read.
        let charset = fixture.post(
            [
                (name: "grant_type", value: "client_credentials"), (name: "client_id", value: "nowsim"),
                (name: "client_secret", value: "nowsim"),
            ], contentType: "Application/X-WWW-Form-URLEncoded; charset=UTF-8")
        #expect(charset.status == 200)
        let bare = fixture.post(
            [
                (name: "grant_type", value: "client_credentials"), (name: "client_id", value: "nowsim"),
                (name: "client_secret", value: "nowsim"),
            ], contentType: nil)
        #expect(bare.status == 200)

        for method in ["GET", "PUT", "DELETE"] {
            let response = fixture.endpoint.handle(HTTPRequest(method: method, path: OAuthTokenEndpoint.path))
            try expectOAuthError(response, status: 405, error: "invalid_request")
            #expect(response.header("Allow") == "POST")
        }
    }

    @Test func tokensWorkUnderConcurrentUse() async throws {
        let fixture = OAuthFixture()
        let authenticator = fixture.authenticator
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try authenticator.grantPassword(
                        clientID: "nowsim", clientSecret: "nowsim", userName: "admin", password: "admin"
                    ).accessToken
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(authenticator.user(accessToken: try #require(tokens.first)) == .defaultAdmin)
    }
}
