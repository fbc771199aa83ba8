import Foundation
import NowData
import Testing

/// The slow-request watchdog and the retry budget against nowsim's `delay` and `status` faults.
extension NowSimIntegrationTests {
    func watchedService(events: Recorder<TransportEvent>, policy: RetryPolicy = .none) -> NowTableService {
        var configuration = NowServiceConfiguration(
            instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin"),
            requestTimeout: 30, retryPolicy: policy, eventHandler: { events.append($0) })
        configuration.slowRequestInterval = 1
        return NowTableService(configuration: configuration)
    }

    static func slowRequests(_ events: Recorder<TransportEvent>) -> [(attempt: Int, waited: Double, url: String)] {
        events.values.compactMap { event in
            if case .slowRequest(_, let url, let attempt, let waited) = event { return (attempt, waited, url) }
            return nil
        }
    }

    @Test func aSlowRequestIsReportedWhileItWaitsAndNoLongerOnceAnswered() async throws {
        let events = Recorder<TransportEvent>()
        let service = watchedService(events: events)
        // nowsim answers after 4 s; the watchdog reports every second, so at 1, 2 and 3 s (two at
        // least, however late a busy machine wakes it).
        try await server.withFaults(["delay:ms=4000,table=incident"]) {
            let data = try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
            #expect(try data.decodeRecords().count == 1)
        }
        let reported = Self.slowRequests(events)
        #expect(reported.count >= 2, "\(reported)")
        #expect(reported.allSatisfy { $0.attempt == 1 && $0.url.contains("/api/now/table/incident") })
        #expect(!reported.contains { $0.url.contains("admin:admin") })
        #expect(reported.map(\.waited) == reported.map(\.waited).sorted(), "each report waited longer")
        #expect((reported.first?.waited ?? 0) >= 1)

        // The watchdog ended with the answer: two more intervals pass without a report.
        try await Task.sleep(for: .seconds(2.5))
        #expect(Self.slowRequests(events).count == reported.count)

        // A fast answer is never reported.
        let fast = Recorder<TransportEvent>()
        _ = try await watchedService(events: fast).records(
            from: "incident", configuration: FetchConfiguration(limit: 1))
        try await Task.sleep(for: .seconds(1.5))
        #expect(Self.slowRequests(fast).isEmpty)
    }

    @Test func aPersistent503FailsWhenTheBudgetIsSpent() async throws {
        let events = Recorder<TransportEvent>()
        // 1000 attempts with waits of up to 0.2 s would take far longer than the budget of 3 s.
        let policy = RetryPolicy(maximumAttempts: 1000, initialBackoff: 0.05, maximumBackoff: 0.2, totalTimeBudget: 3)
        try await server.withFaults(["status:code=503,table=incident"]) {
            let error = await TestService.failure {
                try await watchedService(events: events, policy: policy).records(
                    from: "incident", configuration: FetchConfiguration(limit: 1))
            }
            guard case .badResponse(503, let context)? = error as? NowDataError else {
                Issue.record("expected 503, got \(String(describing: error))")
                return
            }
            let retries = events.values.filter {
                if case .retry(_, _, _, _, "HTTP 503") = $0 { return true }
                return false
            }
            #expect(context.attempts < 1000, "the budget, not the attempts, ended it")
            #expect(retries.count == context.attempts - 1)
            #expect((error as? NowDataError)?.classification == .transient)
        }
    }
}
