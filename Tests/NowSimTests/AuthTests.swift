import Foundation
import NowSim
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct AuthTests {}

/// `Basic base64(user:password)`.
func basicHeader(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
}

func request(authorization: String?) -> HTTPRequest {
    HTTPRequest(
        method: "GET", path: "/api/now/table/incident",
        headers: authorization.map { ["authorization": $0] } ?? [:])
}

/// Checks that `result` is the standard 401 envelope.
func expectNotAuthenticated(_ result: AuthResult, sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .failure(let response) = result else {
        Issue.record("expected a 401, got \(result)", sourceLocation: sourceLocation)
        return
    }
    #expect(response.status == 401, sourceLocation: sourceLocation)
    #expect(
        String(decoding: response.body, as: UTF8.self)
            == #"{"error":{"message":"User Not Authenticated","detail":"Required to provide Auth information"},"status":"failure"}"#,
        sourceLocation: sourceLocation)
}

// MARK: - APIUser / OAuthClient parsing

extension AuthTests {
    @Test(arguments: [
        ("admin:admin:admin", "admin", "admin", ["admin"]),
        ("etl:s3cret", "etl", "s3cret", []),
        ("etl:pass word:itil:snc_read_only", "etl", "pass word", ["itil", "snc_read_only"]),
        ("ü ser:pä$$", "ü ser", "pä$$", []),
    ])
    func apiUserParses(_ spec: String, _ name: String, _ password: String, _ roles: [String]) throws {
        let user = try APIUser(parsing: spec)
        #expect(user == APIUser(userName: name, password: password, roles: roles))
    }

    @Test(arguments: [
        ("", AuthConfigurationError.Kind.emptyName),
        (":pw", .emptyName),
        ("bob", .missingPassword),
        ("bob:", .emptyPassword),
        ("bob:pw:", .emptyRole),
        ("bob:pw::itil", .emptyRole),
    ])
    func apiUserRejects(_ spec: String, _ kind: AuthConfigurationError.Kind) {
        #expect(throws: AuthConfigurationError.self) { try APIUser(parsing: spec) }
        do {
            _ = try APIUser(parsing: spec)
        } catch {
            #expect(error.kind == kind)
            #expect(error.subject == "user")
            #expect(error.description.contains("NAME:PASSWORD[:ROLE…]"))
        }
    }

    @Test func authConfigurationErrorNeverShowsThePassword() {
        do {
            _ = try APIUser(parsing: "bob:TopSecret42:")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("bob"))
            #expect(!error.description.contains("TopSecret42"))
            #expect(!String(reflecting: error).contains("TopSecret42"))
        }
    }

    @Test func oauthClientParsesSecretsWithColons() throws {
        let client = try OAuthClient(parsing: "etl-client:se:cr:et", applicationUser: nil)
        #expect(client.clientID == "etl-client")
        #expect(client.clientSecret == "se:cr:et")
        #expect(client.applicationUser == nil)
        #expect(try OAuthClient(parsing: "a:b").applicationUser == "admin")
        #expect(throws: AuthConfigurationError.self) { try OAuthClient(parsing: "") }
        #expect(throws: AuthConfigurationError.self) { try OAuthClient(parsing: "id-only") }
        #expect(throws: AuthConfigurationError.self) { try OAuthClient(parsing: ":secret") }
        #expect(throws: AuthConfigurationError.self) { try OAuthClient(parsing: "id:") }
    }

    @Test func descriptionsHideSecrets() {
        let user = APIUser(userName: "bob", password: "TopSecret42", roles: ["itil"])
        let client = OAuthClient(clientID: "cid", clientSecret: "ClientSecret99")
        for text in [
            user.description, String(reflecting: user), "\(user)", String(describing: AuthResult.user(user)),
            client.description, String(reflecting: client),
        ] {
            #expect(!text.contains("TopSecret42"))
            #expect(!text.contains("ClientSecret99"))
        }
        var dumped = ""
        dump(user, to: &dumped)
        dump(client, to: &dumped)
        #expect(!dumped.contains("TopSecret42"))
        #expect(!dumped.contains("ClientSecret99"))
        #expect(dumped.contains("bob"))
    }

    @Test func adminHoldsEveryRole() {
        #expect(APIUser.defaultAdmin.hasRole("itil"))
        let itil = APIUser(userName: "i", password: "p", roles: ["itil"])
        #expect(itil.hasRole("itil"))
        #expect(!itil.hasRole("admin"))
    }
}

// MARK: - Basic authentication

extension AuthTests {
    @Test(arguments: [
        basicHeader("admin", "admin"),
        "basic " + Data("admin:admin".utf8).base64EncodedString(),
        "BASIC   " + Data("admin:admin".utf8).base64EncodedString() + "  ",
        "Basic\t" + Data("admin:admin".utf8).base64EncodedString(),
    ])
    func basicAuthenticatesTheDefaultAdmin(_ header: String) {
        let authenticator = Authenticator()
        let result = authenticator.authenticate(request(authorization: header))
        #expect(result.user == .defaultAdmin)
    }

    @Test func basicAcceptsMissingPaddingAndPasswordsWithColons() {
        let authenticator = Authenticator(users: [APIUser(userName: "etl", password: "a:b:c=", roles: [])])
        // "etl:a:b:c=" is 10 bytes → base64 ends in "==".
        let encoded = Data("etl:a:b:c=".utf8).base64EncodedString()
        #expect(encoded.hasSuffix("=="))
        let unpadded = String(encoded.dropLast(2))
        #expect(authenticator.authenticate(request(authorization: "Basic " + encoded)).user?.userName == "etl")
        #expect(authenticator.authenticate(request(authorization: "Basic " + unpadded)).user?.userName == "etl")
    }

    @Test(
        arguments: [
            nil,
            "",
            "Basic",
            "Basic ",
            basicHeader("admin", "wrong"),
            basicHeader("admin", "admin "),
            basicHeader("admin", "Admin"),
            basicHeader("nobody", "admin"),
            basicHeader("", ""),
            "Basic " + Data("adminadmin".utf8).base64EncodedString(),  // no colon
            "Basic !!!not-base64!!!",
            "Basic YWRtaW46YWRtaW4=x",  // one stray character
            "Basic " + Data([0x61, 0x3A, 0xFF, 0xFE]).base64EncodedString(),  // not UTF-8
            "Digest " + Data("admin:admin".utf8).base64EncodedString(),
            Data("admin:admin".utf8).base64EncodedString(),  // no scheme
            "Bearer ",
            "Bearer unknown-token",
        ] as [String?])
    func basicRejects(_ header: String?) {
        expectNotAuthenticated(Authenticator().authenticate(request(authorization: header)))
    }

    @Test func configuredUsersReplaceTheDefault() throws {
        let authenticator = Authenticator(users: [try APIUser(parsing: "etl:pw:itil")])
        expectNotAuthenticated(authenticator.authenticate(request(authorization: basicHeader("admin", "admin"))))
        let user = authenticator.authenticate(request(authorization: basicHeader("etl", "pw"))).user
        #expect(user?.roles == ["itil"])
        #expect(authenticator.users.map(\.userName) == ["etl"])
    }
}
