import Foundation
import NowSimTesting
import Testing

/// Injected misbehaviour: what clients must survive (ref §1.4, §2.1, §3.4).
@Suite(.timeLimit(.minutes(5))) struct FaultInjectionTests {
    @Test func rateLimitEveryOtherRequestWithRetryAfter() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=10", "--fault", "rate-limit:every=2,retry-after=3",
        ]) { sim in
            let first = try await sim.request("/api/now/table/incident")
            #expect(first.status == 429)
            #expect(first.header("Retry-After") == "3")
            #expect(first.header("X-RateLimit-Limit") != nil)
            #expect(first.header("X-RateLimit-Remaining") == nil)
            let error = (first.json as? [String: Any])?["error"] as? [String: Any]
            #expect(error?["message"] as? String == "Rate limit exceeded")
            #expect(try await sim.request("/api/now/table/incident").status == 200)
            #expect(try await sim.request("/api/now/table/incident").status == 429)
        }
    }

    @Test func gatewayErrorsAreHTML() async throws {
        try await withNowSim(arguments: ["--fault", "status:code=502,table=incident"]) { sim in
            let failed = try await sim.request("/api/now/table/incident")
            #expect(failed.status == 502)
            #expect(failed.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try await sim.request("/api/now/table/problem").status == 200)
        }
    }

    @Test func aFaultOfOneAPISparesTheOther() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=3", "--fault", "status:code=503,table=incident,api=table",
            "--fault", "status:code=502,table=problem,api=stats",
        ]) { sim in
            var statuses: [Int] = []
            for path in [
                "/api/now/table/incident", "/api/now/v2/table/incident", "/api/now/stats/incident?sysparm_count=true",
                "/api/now/table/problem", "/api/now/stats/problem?sysparm_count=true",
            ] {
                statuses.append(try await sim.request(path).status)
            }
            #expect(statuses == [503, 503, 200, 200, 502])
        }
    }

    @Test func truncatedBodyEndsWithTransactionCancelled() async throws {
        try await withNowSim(arguments: ["--seed", "incident=50", "--fault", "truncate"]) { sim in
            let response = try await sim.request("/api/now/table/incident")
            #expect(response.status == 200)
            let object = try #require(response.json as? [String: Any])
            #expect((object["result"] as? [Any])?.count ?? 0 < 50)
            let error = object["error"] as? [String: Any]
            #expect(error?["message"] as? String == "Transaction cancelled: maximum execution time exceeded")
        }
    }

    @Test func aclHiddenRowsShortenPagesButNotTheCount() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=400", "--fault", "acl-hide:fraction=0.3",
        ]) { sim in
            var visible = 0
            var shortPages = 0
            var offset = 0
            while offset < 400 {
                let page = try await sim.request(
                    "/api/now/table/incident",
                    query: [
                        ("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", "50"), ("sysparm_offset", "\(offset)"),
                    ])
                #expect(page.header("X-Total-Count") == "400")
                if page.resultList.count < 50 { shortPages += 1 }
                visible += page.resultList.count
                offset += 50
            }
            #expect(visible > 200 && visible < 350)
            #expect(shortPages >= 6)
        }
    }

    @Test func faultsCanBeSwitchedAtRunTime() async throws {
        try await withNowSim { sim in
            #expect(try await sim.request("/api/now/table/incident").status == 200)
            let set = try await sim.request(
                "PUT", "/api/nowsim/faults", body: Data(#"{"faults":["status:code=503"]}"#.utf8))
            #expect(set.status == 200)
            #expect(try await sim.request("/api/now/table/incident").status == 503)
            _ = try await sim.request("PUT", "/api/nowsim/faults", body: Data(#"{"faults":[]}"#.utf8))
            #expect(try await sim.request("/api/now/table/incident").status == 200)
            let bad = try await sim.request("PUT", "/api/nowsim/faults", body: Data(#"{"faults":["explode"]}"#.utf8))
            #expect(bad.status == 400)
        }
    }
}

/// Fault variants and token lifetimes that clients' retry and refresh paths are tested with.
@Suite(.timeLimit(.minutes(5))) struct FaultVariantTests {
    @Test func retryAfterAsHTTPDateAndCutBodies() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=40", "--fault", "rate-limit:retry-after=30,date=true,table=problem",
            "--fault", "truncate:cut=true,table=incident",
        ]) { sim in
            let limited = try await sim.request("/api/now/table/problem")
            #expect(limited.status == 429)
            let retryAfter = try #require(limited.header("Retry-After"))
            #expect(
                retryAfter.range(
                    of: #"^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$"#, options: .regularExpression)
                    != nil)
            let cut = try await sim.request("/api/now/table/incident")
            #expect(cut.status == 200)
            #expect(cut.json == nil, "a cut body must not parse")
            #expect(cut.body.starts(with: Array(#"{"result":[{"#.utf8)))
        }
    }

    @Test func accessTokensExpireAfterTheirLifetime() async throws {
        // nowsim stamps a token's expiry as "time of the grant + lifetime", the grant happening while it
        // handles the token request. So the grant lies after `requested` and before `granted`: a use that
        // was answered less than a lifetime after `requested` must succeed, and a use sent more than a
        // lifetime after `granted` must fail, however slow the machine is in between.
        let lifetime = Duration.seconds(5)
        try await withNowSim(arguments: ["--access-token-lifetime", "5"]) { sim in
            let clock = ContinuousClock()
            let requested = clock.now
            let grant = try await sim.request(
                "POST", "/oauth_token.do", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(
                    "grant_type=password&client_id=nowsim&client_secret=nowsim&username=admin&password=admin".utf8),
                user: nil)
            let granted = clock.now
            let token = try #require(grant.json as? [String: Any])
            let expiresIn = try #require(token["expires_in"] as? Int)
            #expect(expiresIn >= 1 && expiresIn <= 5)
            let bearer = ["Authorization": "Bearer \(token["access_token"] as? String ?? "")"]
            let early = try await sim.request("/api/now/table/incident", headers: bearer, user: nil)
            // Only provably within the lifetime may the first use be required to succeed.
            if clock.now - requested < lifetime - .milliseconds(250) { #expect(early.status == 200) }
            try await Task.sleep(until: granted + lifetime + .milliseconds(500))
            #expect(try await sim.request("/api/now/table/incident", headers: bearer, user: nil).status == 401)
        }
    }
}
