import Foundation
import NowSimTesting
import Testing

@testable import NowData

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(5))) struct TransportTests {
    let ok = ScriptedHTTPServer.Response.json(200, #"{"result":[{"sys_id":"a"}]}"#)

    @Test func retryAfterSecondsIsHonouredExactly() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(
                429,
                TestService.envelope(
                    "Rate limit exceeded", "Rate limit of 100 requests per hour for Table API exceeded"),
                headers: [("Retry-After", "7")]),
            ok,
        ])
        let sleeps = Recorder<Double>()
        let service = TestService.make(server, sleeps: sleeps)
        let data = try await service.records(from: "incident")
        #expect(try data.decodeRecords().count == 1)
        #expect(sleeps.values == [7])
        #expect(server.requests.count == 2)
    }

    @Test func retryAfterHTTPDateIsHonoured() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let formatted = Date()
        let date = formatter.string(from: formatted.addingTimeInterval(30))
        let server = try ScriptedHTTPServer(script: [.json(503, "{}", headers: [("Retry-After", date)]), ok])
        let sleeps = Recorder<Double>()
        _ = try await TestService.make(server, sleeps: sleeps).records(from: "incident")
        // The date has whole seconds and time passes before the answer is read (much on a busy machine).
        let elapsed = Date().timeIntervalSince(formatted)
        #expect(sleeps.values.count == 1)
        #expect((29.0 - elapsed...30.5).contains(sleeps.values[0]))
    }

    @Test func retryAfterParsing() {
        #expect(RetryAfter.delay(from: "120") == 120)
        #expect(RetryAfter.delay(from: " 0 ") == 0)
        #expect(RetryAfter.delay(from: "-5") == 0)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:47 GMT", now: now) == 10)
        #expect(RetryAfter.delay(from: "Sunday, 06-Nov-94 08:49:57 GMT", now: now) == 20)
        #expect(RetryAfter.delay(from: "Sun Nov  6 08:50:07 1994", now: now) == 30)
        #expect(RetryAfter.delay(from: "soon") == nil)
        // Hostile values: finite, never negative, at most a day; unreadable ones are nil.
        #expect(RetryAfter.delay(from: "1e30") == RetryAfter.maximumDelay)
        #expect(RetryAfter.delay(from: "inf") == RetryAfter.maximumDelay)
        #expect(RetryAfter.delay(from: "-inf") == 0)
        #expect(RetryAfter.delay(from: "nan") == nil)
        #expect(RetryAfter.delay(from: "Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.maximumDelay)
        #expect(RetryAfter.delay(from: String(repeating: "9", count: 10_000)) == nil)
    }

    /// Counts from an instance are plain decimals from 0 to 10^12; anything else is no count.
    @Test(
        arguments: [
            ("0", 0), (" 42 ", 42), ("1000000000000", 1_000_000_000_000), ("1000000000001", nil),
            ("-1", nil), ("-9223372036854775808", nil), ("9223372036854775807", nil), ("99999999999999999999", nil),
            ("1e3", nil), ("12abc", nil), ("", nil), ("4 2", nil), ("+5", nil), ("0x10", nil),
        ] as [(String, Int?)])
    func instanceCountsAreCheckedWhereTheyEnter(text: String, count: Int?) {
        #expect(InstanceCount.parse(text) == count)
    }

    /// The one sys_id rule: what real instances hold passes, query metacharacters, controls, non-ASCII
    /// and overlong values do not, and the message escapes what it quotes.
    @Test func theSysIDRuleAcceptsImportedIdsAndRefusesQueryText() {
        for good in [
            "a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5", "legacy-import-0001", "ACME_42.1", "x",
            String(repeating: "a", count: 64),
        ] {
            #expect(SysIDRule.accepts(good), "\(good)")
        }
        for bad in [
            "", "zz^NQsys_idISNOTEMPTY", "a,b", "a=b", "a>b", "a<b", "a!b", "a@b", "a b", "a/b", "a?b", "a%5E", "a\nb",
            "a\u{1B}[2J", "café", String(repeating: "a", count: 65),
        ] {
            #expect(!SysIDRule.accepts(bad), "\(bad)")
        }
        #expect(SysIDRule.problem("zz^NQ") == "holds '^' at byte 3")
        #expect(SysIDRule.problem("a\u{1B}") == "holds byte 0x1b at byte 2")
        #expect(SysIDRule.escaped("a\u{1B}]0;x\u{7}\\") == "a\\x1b]0;x\\x07\\x5c")
        #expect(SysIDRule.escaped(String(repeating: "b", count: 100)).hasSuffix("b…"))
    }

    /// Text from an instance keeps its letters but not its terminal controls.
    @Test func printableTextEscapesTerminalControls() {
        #expect(PrintableText.escaped("café\ttab") == "café\ttab")
        #expect(PrintableText.escaped("\u{1B}]0;t\u{7}") == "\\u{1b}]0;t\\u{7}")
        #expect(PrintableText.escaped("a\u{9B}b\u{202E}c\rd") == "a\\u{9b}b\\u{202e}c\\u{d}d")
        #expect(PrintableText.escaped("one\ntwo", keepingLineBreaks: true) == "one\ntwo")
        #expect(PrintableText.escaped("one\ntwo") == "one\\u{a}two")
    }

    @Test func backoffIsExponentialWithFullJitterAndCap() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, "{}"), .json(502, "{}"), .json(504, "{}"), ok])
        let sleeps = Recorder<Double>()
        let policy = RetryPolicy(maximumAttempts: 4, initialBackoff: 1, maximumBackoff: 3)
        _ = try await TestService.make(server, policy: policy, sleeps: sleeps).records(from: "incident")
        // unitRandom is 0.5: half of min(cap, 1, 2, 4).
        #expect(sleeps.values == [0.5, 1.0, 1.5])
        #expect(policy.backoff(beforeRetry: 10, unitRandom: 0.999) <= 3)
        #expect(policy.backoff(beforeRetry: 1, unitRandom: 0) == 0)
    }

    @Test func givesUpAfterMaximumAttemptsWithContext() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, TestService.envelope("Service unavailable", nil))])
        let service = TestService.make(server)
        await #expect {
            _ = try await service.records(from: "incident")
        } throws: { error in
            guard case NowDataError.badResponse(503, let context) = error else { return false }
            return context.attempts == 4 && context.message == "Service unavailable" && context.detail == nil
                && context.table == "incident" && context.url.contains("/api/now/table/incident")
        }
        #expect(server.requests.count == 4)
    }

    @Test func postIsNotRetriedUnlessOptedIn() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, "{}"), .json(201, #"{"result":{"sys_id":"n"}}"#)])
        await #expect(throws: NowDataError.self) {
            _ = try await TestService.make(server).createRecord(with: ["short_description": "x"], in: "incident")
        }
        #expect(server.requests.count == 1)

        let retrying = try ScriptedHTTPServer(script: [.json(503, "{}"), .json(201, #"{"result":{"sys_id":"n"}}"#)])
        let policy = RetryPolicy(initialBackoff: 0.001, retriesNonIdempotentRequests: true)
        let data = try await TestService.make(retrying, policy: policy).createRecord(
            with: ["short_description": "x"], in: "incident")
        #expect(try data.decodeRecord().sysId == "n")
        #expect(retrying.requests.count == 2)
    }

    @Test func truncatedBodyIsAnErrorNeverAShortPage() async throws {
        let body = Data(#"{"result":[{"sys_id":"a","number":"INC1"},{"sys_id":"b","num"#.utf8)
        let server = try ScriptedHTTPServer(script: [
            .init(
                status: 200, headers: [("Content-Type", "application/json")], body: body + Data("ber\"}]}".utf8),
                truncateAfter: body.count)
        ])
        let service = TestService.make(server, policy: .none)
        await #expect {
            _ = try await service.records(from: "incident")
        } throws: { error in
            if case NowDataError.truncatedResponse(let context) = error { return context.statusCode == 200 }
            return false
        }
    }

    @Test func truncatedBodyIsRetriedForGet() async throws {
        let full = #"{"result":[{"sys_id":"a"}]}"#
        let server = try ScriptedHTTPServer(script: [
            .init(status: 200, body: Data(full.utf8), truncateAfter: 12), .json(200, full),
        ])
        let data = try await TestService.make(server).records(from: "incident")
        #expect(try data.decodeRecords().map(\.sysId) == ["a"])
        #expect(server.requests.count == 2)
    }

    @Test(arguments: [
        // Error member appended after the (cut) result array, as KB1297438 describes.
        #"{"result":[{"sys_id":"a"},{"sys_id":"b"}],"error":{"message":"Transaction cancelled: maximum execution time exceeded","detail":"Transaction cancelled: maximum execution time exceeded Check logs for error trace or enable glide.rest.debug property to verify REST request processing"},"status":"failure"}"#,
        // Record cut mid-way, then the error object.
        #"{"result":[{"sys_id":"a"},{"sys_id":"b","numb{"error":{"message":"Transaction cancelled: maximum execution time exceeded","detail":null},"status":"failure"}"#,
    ])
    func transactionCancelledIn200(body: String) async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, body)])
        await #expect {
            _ = try await TestService.make(server).records(from: "incident")
        } throws: { error in
            guard case NowDataError.transactionCancelled(let context) = error else { return false }
            return context.message?.contains("maximum execution time exceeded") == true
        }
        #expect(server.requests.count == 1, "quota cancellations are not retried blindly")
    }

    @Test func htmlErrorBodyGivesStatusAndFirstBytes() async throws {
        let html = "<html><head><title>400 Bad Request</title></head><body>proxy says no</body></html>"
        let server = try ScriptedHTTPServer(script: [
            .init(status: 400, headers: [("Content-Type", "text/html")], body: Data(html.utf8))
        ])
        await #expect {
            _ = try await TestService.make(server).records(from: "incident")
        } throws: { error in
            guard case NowDataError.badResponse(400, let context) = error else { return false }
            return context.bodyPrefix?.hasPrefix("<html><head><title>400") == true && context.message == nil
        }
    }

    @Test func htmlBodyWith200IsNotData() async throws {
        let server = try ScriptedHTTPServer(script: [
            .init(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html>login</html>".utf8))
        ])
        await #expect {
            _ = try await TestService.make(server).records(from: "incident")
        } throws: { error in
            if case NowDataError.badResponse(200, let context) = error {
                return context.bodyPrefix == "<html>login</html>"
            }
            return false
        }
    }

    @Test func slowResponseTimesOut() async throws {
        // The server answers only after ten minutes, long after the test is over: a timeout error can only
        // come from the 1 s timeout, whatever the load.
        let server = try ScriptedHTTPServer(script: [.init(status: 200, body: Data("{}".utf8), delay: 600)])
        await #expect {
            _ = try await TestService.make(server, policy: .none, timeout: 1).records(from: "incident")
        } throws: { error in
            if case NowDataError.network(let network) = error { return network.isTimeout && network.isTransient }
            return false
        }
    }

    @Test func connectionRefusedIsRetriedThenNetworkError() async throws {
        let refused = try RefusedPort()
        let sleeps = Recorder<Double>()
        await #expect {
            _ = try await TestService.make(url: refused.baseURL, sleeps: sleeps).records(from: "incident")
        } throws: { error in
            if case NowDataError.network(.systemError) = error { return true }
            return false
        }
        withExtendedLifetime(refused) {}
        #expect(sleeps.values.count == 3)
    }

    @Test(arguments: [
        (401, "User Not Authenticated", "Required to provide Auth information"),
        (403, "Operation Failed", "ACL Exception Update Failed due to security constraints"),
        (404, "No Record found", "Record doesn't exist or ACL restricts the record retrieval"),
        (400, "Invalid table nope", "Table nope does not exist"),
        (500, "Internal error", "boom"),
    ])
    func errorEnvelopeIsCarried(status: Int, message: String, detail: String) async throws {
        let server = try ScriptedHTTPServer(script: [.json(status, TestService.envelope(message, detail))])
        let service = TestService.make(server)
        do {
            _ = try await service.record(with: "abc", from: "incident")
            Issue.record("expected an error")
        } catch {
            #expect(error.statusCode == status)
            #expect(error.context?.message == message)
            #expect(error.context?.detail == detail)
            #expect(error.isTransient == (status == 500))
            #expect(!"\(error)".contains(TestService.password))
        }
        #expect(server.requests.count == 1)
    }

    @Test func retryAfterBeyondLimitFailsWithTheDelay() async throws {
        let server = try ScriptedHTTPServer(script: [.json(429, "{}", headers: [("Retry-After", "3600")])])
        let sleeps = Recorder<Double>()
        await #expect {
            _ = try await TestService.make(server, sleeps: sleeps).records(from: "incident")
        } throws: { error in
            if case NowDataError.badResponse(429, let context) = error { return context.retryAfter == 3600 }
            return false
        }
        #expect(sleeps.values.isEmpty)
    }

    @Test func sendsBasicAuthAcceptAndUserAgentButNeverLeaksThePassword() async throws {
        let server = try ScriptedHTTPServer(script: [.json(401, TestService.envelope("User Not Authenticated", nil))])
        let events = Recorder<TransportEvent>()
        do {
            _ = try await TestService.make(server, events: events).records(from: "incident")
        } catch {
            #expect(!error.description.contains(TestService.password))
            #expect(!String(reflecting: error).contains(TestService.password))
        }
        let request = try #require(server.requests.first)
        let expected = "Basic " + Data("admin:\(TestService.password)".utf8).base64EncodedString()
        #expect(request.headers["authorization"] == expected)
        #expect(request.headers["accept"] == "application/json")
        #expect(request.headers["user-agent"] == NowServiceConfiguration.defaultUserAgent)
        #expect(server.requests.count == 1, "basic auth 401 is not retried")
    }

    @Test func retryEventsAreReported() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, "{}"), ok])
        let events = Recorder<TransportEvent>()
        _ = try await TestService.make(server, events: events).records(from: "incident")
        guard case .retry(let method, let url, let attempt, _, let reason) = try #require(events.values.first) else {
            Issue.record("no retry event")
            return
        }
        #expect(method == "GET" && url.contains("/incident") && attempt == 2 && reason == "HTTP 503")
    }

    @Test func plainHTTPToRemoteHostIsRefused() async throws {
        let configuration = NowServiceConfiguration(
            instanceURL: URL(string: "http://example.service-now.com")!, authentication: .none)
        await #expect {
            _ = try await NowTableService(configuration: configuration).records(from: "incident")
        } throws: { error in
            if case NowDataError.insecureConnectionRefused(let host) = error {
                return host == "example.service-now.com"
            }
            return false
        }
        var allowed = configuration
        allowed.allowsInsecureHTTP = true
        #expect(throws: Never.self) { try allowed.validate() }
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            let loopback = NowServiceConfiguration(
                instanceURL: URL(string: "http://\(host):8080")!, authentication: .none)
            #expect(throws: Never.self) { try loopback.validate() }
        }
    }

    @Test(arguments: [
        ("localhost", true), ("LOCALHOST", true), ("127.0.0.1", true), ("127.255.3.4", true), ("::1", true),
        ("[::1]", true), ("127.attacker.example", false), ("127.0.0.1.nip.io", false), ("127.1", false),
        ("0177.0.0.1", false), ("0x7f.0.0.1", false), ("localhost.attacker.example", false),
        ("evil.localhost", false), ("128.0.0.1", false), ("::2", false), ("example.com", false),
    ])
    func loopbackMeansALiteralLoopbackAddressOrLocalhost(host: String, loopback: Bool) {
        #expect(NowServiceConfiguration.isLoopbackHost(host) == loopback)
    }

    @Test func plainHTTPToANameStartingWith127IsRefusedBeforeAnyRequest() async throws {
        // The name resolves nowhere here, but a refusal after a request would show as a network error;
        // the proxy catches any request that would leave, with its Authorization header.
        let proxy = try ScriptedHTTPServer(script: [.json(200, #"{"result":[]}"#)])
        let configuration = NowServiceConfiguration(
            instanceURL: URL(string: "http://127.attacker.example:\(proxy.port)")!,
            authentication: .basic(username: "admin", password: TestService.password),
            proxy: proxy.baseURL)
        await #expect {
            _ = try await withDeadline(60) {
                try await NowTableService(configuration: configuration).records(from: "incident")
            }
        } throws: { error in
            if case NowDataError.insecureConnectionRefused(let host) = error { return host == "127.attacker.example" }
            return false
        }
        #expect(proxy.requests.isEmpty, "no request, so no Authorization, may leave")
    }

    @Test func secretsStayOutOfDescriptionsAndDumps() {
        let configuration = NowServiceConfiguration(
            instanceURL: URL(string: "https://user:urlpass@x.service-now.com")!,
            authentication: .oauth2(
                OAuth2Credentials(
                    clientID: "cid", clientSecret: "client-SECRET",
                    grant: .password(username: "u", password: TestService.password))))
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            configuration.description, String(reflecting: configuration), dumped, "\(configuration.authentication)",
        ] {
            #expect(!text.contains(TestService.password))
            #expect(!text.contains("client-SECRET"))
            #expect(!text.contains("urlpass"))
        }
        var basic = ""
        dump(Authentication.basic(username: "u", password: TestService.password), to: &basic)
        #expect(!basic.contains(TestService.password))
    }
}

@Suite(.timeLimit(.minutes(5))) struct ResponseBodyScannerTests {
    @Test func findsCountAndGreatestSysIdInAllShapes() {
        let plain = ResponseBodyScanner.scan(
            Data(#"{"result":[{"sys_id":"0a","x":{"sys_id":"zz"}},{"n":1,"sys_id":"0c"},{"sys_id":"0b"}]}"#.utf8))
        #expect(plain.isComplete && plain.result == .array(count: 3) && plain.maxSysId == "0c")
        let all = ResponseBodyScanner.scan(
            Data(#"{"result":[{"sys_id":{"display_value":"x","value":"f1"}},{"sys_id":{"value":"e2"}}]}"#.utf8))
        #expect(all.maxSysId == "f1")
        let object = ResponseBodyScanner.scan(Data(#" {"result":{"sys_id":"a"}} "#.utf8))
        #expect(object.isComplete && object.result == .object)
        let empty = ResponseBodyScanner.scan(Data(#"{"result":[]}"#.utf8))
        #expect(empty.isComplete && empty.result == .array(count: 0) && empty.maxSysId == nil)
    }

    @Test(arguments: [
        #"{"result":[{"sys_id":"a"}"#, #"{"result":[{"sys_id":"a"}]"#, #"{"result":[{"sys_id":"a\"#, #"{"result":[1,2"#,
        #"{"result":[]}{"#, #"{"result":[tru"#, "",
    ])
    func detectsIncompleteBodies(text: String) {
        #expect(!ResponseBodyScanner.scan(Data(text.utf8)).isComplete)
    }

    @Test func readsErrorEnvelopeWithEscapes() {
        let scan = ResponseBodyScanner.scan(
            Data(#"{"error":{"message":"No \"Record\" found","detail":null},"status":"failure"}"#.utf8))
        #expect(scan.isComplete && scan.hasError)
        #expect(scan.errorMessage == #"No "Record" found"#)
        #expect(scan.errorDetail == nil)
    }
}

@Suite(.timeLimit(.minutes(5))) struct CoreServiceProviderTests {
    /// A provider that answers in memory and records what it was asked.
    final class CannedProvider: NowCoreServiceProviding, @unchecked Sendable {
        let urls = Recorder<String>()
        func data(for request: URLRequest) async throws -> (Data, URLResponse) {
            urls.append(request.url!.absoluteString)
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"])!
            return (Data(#"{"result":[{"sys_id":"p"}]}"#.utf8), response)
        }
    }

    @Test func customProviderCarriesRequestsAndMayTakeACABundle() async throws {
        let provider = CannedProvider()
        let configuration = NowServiceConfiguration(
            instanceURL: URL(string: "https://self-signed.example")!, authentication: .none,
            additionalCertificateAuthorities: URL(fileURLWithPath: "/etc/ssl/private-ca.pem"))
        let service = NowTableService(configuration: configuration, coreServiceProvider: provider)
        let data = try await service.records(from: "incident")
        #expect(try data.decodeRecords().map(\.sysId) == ["p"])
        #expect(provider.urls.values == ["https://self-signed.example/api/now/table/incident"])
    }
}
