import CCurl
import Foundation
import NowSimTesting
import Testing

@testable import NowData

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default libcurl transport against the scripted server: 401 challenges, the no-progress and total
/// timeouts, cancellation, connection reuse and redirects. Every call runs under a deadline, so a hang fails instead of blocking.
@Suite(.timeLimit(.minutes(5))) struct CurlCoreTests {
    static let challenge = ("WWW-Authenticate", #"BASIC realm="Service-now""#)
    static let notAuthenticated = TestService.envelope(
        "User Not Authenticated", "Required to provide Auth information")

    // MARK: - 401 with WWW-Authenticate

    /// Reads incident from `server`, which must end promptly in a 401 with the instance's message.
    static func expectInstancesUnauthorized(
        _ server: ScriptedHTTPServer, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let service = TestService.make(server, timeout: 30)
        let error = await TestService.failure {
            try await withDeadline(60) { try await service.records(from: "incident") }
        }
        guard case .badResponse(401, let context)? = error as? NowDataError else {
            Issue.record("expected badResponse(401), got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(context.message == "User Not Authenticated", sourceLocation: sourceLocation)
        #expect(context.detail == "Required to provide Auth information", sourceLocation: sourceLocation)
    }

    @Test(arguments: [#"BASIC realm="Service-now""#, #"Basic realm="x""#, "Bearer", #"Bearer error="invalid_token""#])
    func unauthorizedWithChallengeEndsPromptly(header: String) async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(401, Self.notAuthenticated, headers: [("WWW-Authenticate", header)])
        ])
        await Self.expectInstancesUnauthorized(server)
        #expect(server.requests.count == 1, "a Basic 401 is not retried")
    }

    @Test func unauthorizedWithoutBodyGetsTheInstanceMessage() async throws {
        let server = try ScriptedHTTPServer(script: [.init(status: 401, headers: [Self.challenge])])
        await Self.expectInstancesUnauthorized(server)
    }

    @Test func bearerTokenIsRefreshedOnceAfterAChallenged401() async throws {
        let tokens = TokenSequence()
        let server = try ScriptedHTTPServer { request in
            request.headers["authorization"] == "Bearer token-2"
                ? .json(200, #"{"result":[{"sys_id":"a"}]}"#)
                : .json(401, Self.notAuthenticated, headers: [Self.challenge])
        }
        let service = TestService.make(server, authentication: .bearerToken(tokens), timeout: 30)
        let data = try await withDeadline(60) { try await service.records(from: "incident") }
        #expect(try data.decodeRecords().map(\.sysId) == ["a"])
        #expect(tokens.requests.values == [false, true])
        #expect(server.requests.map { $0.headers["authorization"] } == ["Bearer token-1", "Bearer token-2"])
    }

    @Test func bearerTokenStillRejectedAfterRefreshFailsOnce() async throws {
        let tokens = TokenSequence()
        let server = try ScriptedHTTPServer(script: [.json(401, Self.notAuthenticated, headers: [Self.challenge])])
        let service = TestService.make(server, authentication: .bearerToken(tokens), timeout: 30)
        let error = await TestService.failure {
            try await withDeadline(60) { try await service.records(from: "incident") }
        }
        #expect((error as? NowDataError)?.statusCode == 401)
        #expect(server.requests.count == 2, "one refresh, one retry, then the 401 stands")
    }

    // MARK: - Timeouts and cancellation

    /// The network error that reading incident through `service` ends in (within a minute), or `nil`
    /// (recording an issue) when it ends otherwise.
    static func networkFailure(
        _ service: NowTableService, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> NetworkServiceError? {
        let error = await TestService.failure(sourceLocation: sourceLocation) {
            try await withDeadline(60) { try await service.records(from: "incident") }
        }
        guard case .network(let failure)? = error as? NowDataError else {
            Issue.record("expected a network error, got \(String(describing: error))", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    @Test func noProgressEndsAStalledExchange() async throws {
        let server = try ScriptedHTTPServer(script: [.init(status: 200, body: Data("{}".utf8), delay: 600)])
        // The server answers only after ten minutes: only the no-progress limit can end this request.
        let service = TestService.make(server, policy: .none, timeout: 1)
        let failure = try #require(await Self.networkFailure(service))
        #expect(failure.isTimeout, "\(failure)")
        #expect(failure.isTransient)
    }

    @Test func arrivingBytesKeepARequestAlive() async throws {
        // 60 bytes, 0.1 s apart, against a 3 s no-progress limit: the body takes longer than the limit, so
        // only the arriving bytes can have kept the request going (a loaded machine only slows the server
        // thread's sends; a 3 s gap would need a stall thirty times the pause — a 1 s limit was reached
        // on a 2-core machine running the suite beside two busy processes).
        let body = #"{"result":[{"sys_id":"abcdefghijk"}]}                      "#
        let server = try ScriptedHTTPServer(script: [
            .init(status: 200, headers: [("Content-Type", "application/json")], body: Data(body.utf8), trickle: 0.1)
        ])
        let service = TestService.make(server, policy: .none, timeout: 3)
        let data = try await withDeadline(120) { try await service.records(from: "incident") }
        #expect(try data.decodeRecords().map(\.sysId) == ["abcdefghijk"])
    }

    @Test func totalTimeoutEndsALiveButEndlessExchange() async throws {
        // A byte every 0.2 s for 2000 bytes (400 s): progress never stops, so only the 2 s total limit ends it.
        let server = try ScriptedHTTPServer(script: [
            .init(status: 200, body: Data(repeating: UInt8(ascii: " "), count: 2000), trickle: 0.2)
        ])
        let service = TestService.make(server, policy: .none, timeout: 30, totalTimeout: 2)
        let failure = try #require(await Self.networkFailure(service))
        #expect(failure.isTimeout, "\(failure)")
    }

    @Test func cancellingTheCallerEndsTheRequest() async throws {
        let server = try ScriptedHTTPServer(script: [.init(status: 200, body: Data("{}".utf8), delay: 600)])
        // The server answers only after ten minutes: the request cannot end by its answer during the test.
        let service = TestService.make(server, policy: .none, timeout: 30)
        let call = Task { try await service.records(from: "incident") }
        try await Task.sleep(nanoseconds: 300_000_000)
        call.cancel()
        let error = await TestService.failure { try await withDeadline(60) { try await call.value } }
        guard case .network(.operationCanceled)? = error as? NowDataError else {
            Issue.record("expected operationCanceled, got \(String(describing: error))")
            return
        }
    }

    @Test func fractionalTimeoutsRoundUpToWholeSeconds() {
        #expect(CurlCoreService.wholeSeconds(0.2) == 1)
        #expect(CurlCoreService.wholeSeconds(1.5) == 2)
        #expect(CurlCoreService.wholeSeconds(120) == 120)
        #expect(CurlCoreService.wholeSeconds(0) == 60)
    }

    // MARK: - Redirects

    @Test func redirectOnTheSameHostIsFollowedWithCredentials() async throws {
        let server = try ScriptedHTTPServer { request in
            request.path == "/api/now/table/incident"
                ? .init(status: 302, headers: [("Location", "/api/now/table/incident_moved")])
                : .json(200, #"{"result":[{"sys_id":"m"}]}"#)
        }
        let service = TestService.make(server, timeout: 30)
        let data = try await withDeadline(60) { try await service.records(from: "incident") }
        #expect(try data.decodeRecords().map(\.sysId) == ["m"])
        #expect(server.requests.map(\.path) == ["/api/now/table/incident", "/api/now/table/incident_moved"])
        #expect(server.requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("Basic ") == true })
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func redirectToAnotherHostOrPortIsRefused(host: String) async throws {
        let elsewhere = try ScriptedHTTPServer(script: [.json(200, #"{"result":[]}"#)])
        let target = "http://\(host):\(elsewhere.port)/api/now/table/incident?sysparm_limit=1"
        let server = try ScriptedHTTPServer(script: [
            .init(status: 301, headers: [("Location", target)], body: Data("<html>moved</html>".utf8))
        ])
        let service = TestService.make(server, timeout: 30)
        let error = await TestService.failure {
            try await withDeadline(60) { try await service.records(from: "incident") }
        }
        guard case .badResponse(301, let context)? = error as? NowDataError else {
            Issue.record("expected badResponse(301), got \(String(describing: error))")
            return
        }
        #expect(context.message?.contains(target) == true)
        #expect(context.message?.contains("not followed") == true)
        #expect(elsewhere.requests.isEmpty, "credentials must not reach another origin")
        #expect(server.requests.count == 1, "a refused redirect is not retried")
    }

    @Test(arguments: [
        ("https://a.example/x", "https://a.example/y", true),
        ("https://a.example/x", "https://A.EXAMPLE:443/y", true),
        ("http://a.example/x", "https://a.example/y", true),
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/y", true),
        ("https://a.example/x", "http://a.example/y", false),
        ("https://a.example/x", "https://b.example/y", false),
        ("https://a.example/x", "https://a.example:8443/y", false),
        ("https://a.example/x", "https://a.example.evil.example/y", false),
        ("http://127.0.0.1:8080/x", "http://localhost:8080/y", false),
    ])
    func redirectRule(source: String, target: String, allowed: Bool) {
        #expect(RedirectRule.allows(from: URL(string: source)!, to: URL(string: target)!) == allowed)
    }

    // MARK: - Helpers

    /// Hands out `token-1`, `token-2`, … and records each `forceRefresh`.
    final class TokenSequence: AccessTokenProvider, @unchecked Sendable {
        let requests = Recorder<Bool>()
        private let counter = Counter()

        func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String {
            requests.append(forceRefresh)
            return "token-\(counter.next() + 1)"
        }
    }

    /// libcurl quotes the proxy URL as given in its messages; the error text keeps the URL but not its
    /// user info.
    @Test func libcurlMessagesLoseTheUserInfoOfTheURLsTheyQuote() {
        let message = "Unsupported proxy syntax in 'http://etl:S3cret@proxy.corp:312800': bad port"
        let cleaned = CurlFailure.withoutUserInfo(message)
        #expect(cleaned == "Unsupported proxy syntax in 'http://<redacted>@proxy.corp:312800': bad port")
        #expect(CurlFailure.withoutUserInfo("no URL here") == "no URL here")
        #expect(
            CurlFailure.withoutUserInfo("a https://x.example/p@q and socks5://u:p@h:1")
                == "a https://x.example/p@q and socks5://<redacted>@h:1")
        let error = CurlFailure.urlError(
            CURLE_COULDNT_RESOLVE_PROXY, message: message, url: URL(string: "https://acme.example")!)
        #expect(!error.localizedDescription.contains("S3cret"))
    }
}
