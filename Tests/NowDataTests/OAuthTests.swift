import Foundation
import Testing

@testable import NowData

@Suite(.timeLimit(.minutes(5))) struct OAuthTests {
    /// A token endpoint and a table endpoint that accepts only the newest token.
    final class Instance: @unchecked Sendable {
        let lock = NSLock()
        var issued = 0
        var expiresIn = 1799
        var rejectRefresh = false
        var validToken: String { "token-\(issued)" }

        func handle(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response {
            lock.withLock {
                if request.path == "/oauth_token.do" {
                    if rejectRefresh, request.form["grant_type"] == "refresh_token" {
                        return .json(401, #"{"error_description":"access_denied","error":"server_error"}"#)
                    }
                    issued += 1
                    return .json(
                        200,
                        #"{"access_token":"\#(validToken)","refresh_token":"refresh-\#(issued)","scope":"useraccount","token_type":"Bearer","expires_in":\#(expiresIn)}"#
                    )
                }
                guard request.headers["authorization"] == "Bearer \(validToken)" else {
                    return .json(
                        401, TestService.envelope("User Not Authenticated", "Required to provide Auth information"))
                }
                return .json(200, #"{"result":[{"sys_id":"a"}]}"#)
            }
        }
    }

    static let credentials = OAuth2Credentials(
        clientID: "client-1", clientSecret: "client-secret-value",
        grant: .password(username: "integration", password: TestService.password))

    @Test func passwordGrantIsFormEncodedAndTokenIsReused() async throws {
        let instance = Instance()
        let server = try ScriptedHTTPServer { instance.handle($0) }
        let events = Recorder<TransportEvent>()
        let service = TestService.make(server, authentication: .oauth2(Self.credentials), events: events)
        _ = try await service.records(from: "incident")
        _ = try await service.records(from: "incident")
        let tokenRequests = server.requests.filter { $0.path == "/oauth_token.do" }
        #expect(tokenRequests.count == 1)
        let token = try #require(tokenRequests.first)
        #expect(token.method == "POST")
        #expect(token.headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(token.headers["authorization"] == nil)
        #expect(
            token.form == [
                "grant_type": "password", "client_id": "client-1", "client_secret": "client-secret-value",
                "username": "integration", "password": TestService.password,
            ])
        #expect(
            server.requests.filter { $0.path != "/oauth_token.do" }.allSatisfy {
                $0.headers["authorization"] == "Bearer token-1"
            })
        #expect(events.values.count == 1)
    }

    @Test func refreshesBeforeExpiryWithRefreshToken() async throws {
        let instance = Instance()
        instance.expiresIn = 30  // inside the 60 s leeway: every use refreshes
        let server = try ScriptedHTTPServer { instance.handle($0) }
        let service = TestService.make(server, authentication: .oauth2(Self.credentials))
        _ = try await service.records(from: "incident")
        _ = try await service.records(from: "incident")
        let grants = server.requests.filter { $0.path == "/oauth_token.do" }.map { $0.form["grant_type"] }
        #expect(grants == ["password", "refresh_token"])
        #expect(server.requests.last?.headers["authorization"] == "Bearer token-2")
        #expect(server.requests.filter { $0.path == "/oauth_token.do" }.last?.form["refresh_token"] == "refresh-1")
    }

    @Test func refreshesOnceOn401() async throws {
        let instance = Instance()
        let server = try ScriptedHTTPServer { instance.handle($0) }
        let service = TestService.make(server, authentication: .oauth2(Self.credentials))
        _ = try await service.records(from: "incident")
        instance.lock.withLock { instance.issued += 1 }  // the instance revokes token-1
        _ = try await service.records(from: "incident")
        let paths = server.requests.map { "\($0.path) \($0.form["grant_type"] ?? $0.headers["authorization"] ?? "")" }
        #expect(
            paths == [
                "/oauth_token.do password", "/api/now/table/incident Bearer token-1",
                "/api/now/table/incident Bearer token-1",
                "/oauth_token.do refresh_token", "/api/now/table/incident Bearer token-3",
            ])
    }

    @Test func persistent401IsReturnedAfterOneRefresh() async throws {
        let server = try ScriptedHTTPServer { request in
            request.path == "/oauth_token.do"
                ? .json(200, #"{"access_token":"t","expires_in":1800}"#)
                : .json(401, TestService.envelope("User Not Authenticated", nil))
        }
        let service = TestService.make(server, authentication: .oauth2(Self.credentials))
        await #expect {
            _ = try await service.records(from: "incident")
        } throws: { error in
            if case NowDataError.badResponse(401, _) = error { return true }
            return false
        }
        #expect(server.requests.filter { $0.path != "/oauth_token.do" }.count == 2)
    }

    @Test func rejectedRefreshFallsBackToOriginalGrant() async throws {
        let instance = Instance()
        instance.expiresIn = 30
        instance.rejectRefresh = true
        let server = try ScriptedHTTPServer { instance.handle($0) }
        let service = TestService.make(server, authentication: .oauth2(Self.credentials))
        _ = try await service.records(from: "incident")
        _ = try await service.records(from: "incident")
        let grants = server.requests.filter { $0.path == "/oauth_token.do" }.map { $0.form["grant_type"] ?? "" }
        #expect(grants == ["password", "refresh_token", "password"])
    }

    @Test func clientCredentialsGrant() async throws {
        let instance = Instance()
        let server = try ScriptedHTTPServer { instance.handle($0) }
        let credentials = OAuth2Credentials(
            clientID: "c", clientSecret: "s", grant: .clientCredentials, scope: "useraccount")
        _ = try await TestService.make(server, authentication: .oauth2(credentials)).records(from: "incident")
        #expect(
            server.requests.first?.form == [
                "grant_type": "client_credentials", "client_id": "c", "client_secret": "s", "scope": "useraccount",
            ])
    }

    @Test func tokenEndpointRejectionIsAnAccessTokenError() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(401, #"{"error_description":"access_denied","error":"server_error"}"#)
        ])
        do {
            _ = try await TestService.make(server, authentication: .oauth2(Self.credentials)).records(from: "incident")
            Issue.record("expected failure")
        } catch {
            guard case .accessToken(.tokenRequestRejected(401, "server_error", "access_denied")) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(!"\(error)".contains("client-secret-value"))
            #expect(!"\(error)".contains(TestService.password))
        }
    }

    @Test func customBearerProviderIsAskedToRefreshOn401() async throws {
        final class Provider: AccessTokenProvider, @unchecked Sendable {
            let forced = Recorder<Bool>()
            func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String {
                forced.append(forceRefresh)
                return forceRefresh ? "fresh" : "stale"
            }
        }
        let provider = Provider()
        let server = try ScriptedHTTPServer { request in
            request.headers["authorization"] == "Bearer fresh" ? .json(200, #"{"result":[]}"#) : .json(401, "{}")
        }
        _ = try await TestService.make(server, authentication: .bearerToken(provider)).records(from: "incident")
        #expect(provider.forced.values == [false, true])
    }
}
