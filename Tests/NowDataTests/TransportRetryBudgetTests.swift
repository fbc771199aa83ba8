import Foundation
import NowSimTesting
import Testing

@testable import NowData

/// ``RetryPolicy/totalTimeBudget``: the transport never begins a wait that would end past the budget
/// and then fails with the last error, counting the attempts. Sleeps are injected and recorded, so the
/// waits are exact and nothing waits for real.
@Suite(.timeLimit(.minutes(5))) struct TransportRetryBudgetTests {
    /// With `unitRandom` 0.5 the waits are half the ceilings 100, 200, 400, 400…: 50, 100, 200, 200,
    /// 200…, which add up to 50, 150, 350, 550, 750. A budget of 650 allows four of them, with 100
    /// seconds to spare for the time the attempts themselves take on a busy machine.
    static let policy = RetryPolicy(
        maximumAttempts: 100, initialBackoff: 100, maximumBackoff: 400, totalTimeBudget: 650)

    @Test func theBudgetEndsTheRetriesOfAPersistent503() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, TestService.envelope("Service unavailable", nil))])
        let sleeps = Recorder<Double>()
        let events = Recorder<TransportEvent>()
        let service = TestService.make(server, policy: Self.policy, sleeps: sleeps, events: events)
        await #expect {
            _ = try await service.records(from: "incident")
        } throws: { error in
            guard case NowDataError.badResponse(503, let context) = error else { return false }
            return context.attempts == 5 && context.message == "Service unavailable"
        }
        #expect(sleeps.values == [50, 100, 200, 200], "the fifth wait would end after 750 s, past the budget of 650 s")
        #expect(server.requests.count == 5)
        let attempts = events.values.compactMap { event -> Int? in
            if case .retry(_, _, let attempt, _, "HTTP 503") = event { return attempt }
            return nil
        }
        #expect(attempts == [2, 3, 4, 5])
    }

    @Test func aRetryAfterThatEndsPastTheBudgetIsNotWaited() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(429, TestService.envelope("Rate limit exceeded", nil), headers: [("Retry-After", "700")])
        ])
        let sleeps = Recorder<Double>()
        let policy = RetryPolicy(maximumAttempts: 100, maximumRetryAfter: 3600, totalTimeBudget: 1000)
        let service = TestService.make(server, policy: policy, sleeps: sleeps)
        await #expect {
            _ = try await service.records(from: "incident")
        } throws: { error in
            guard case NowDataError.badResponse(429, let context) = error else { return false }
            return context.attempts == 2 && context.retryAfter == 700
        }
        // 300 s to spare for the first attempt on a busy machine.
        #expect(sleeps.values == [700], "700 s fit the budget of 1000 s, 1400 s do not")
    }

    @Test func aNetworkFailureAfterRetriesCountsItsAttempts() async throws {
        // A port nobody listens on: every attempt is a refused connection.
        let closed = try RefusedPort()
        let url = closed.baseURL
        let sleeps = Recorder<Double>()
        let transport = HTTPTransport(
            configuration: NowServiceConfiguration(
                instanceURL: url, authentication: .none, retryPolicy: Self.policy),
            sleep: { sleeps.append($0) }, unitRandom: { 0.5 })
        let error = await #expect(throws: NowDataError.self) {
            _ = try await NowTableService(transport: transport).records(from: "incident")
        }
        withExtendedLifetime(closed) {}
        #expect(sleeps.values == [50, 100, 200, 200])
        guard case .network(let failure)? = error else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(failure.description.contains("(5 attempts)"), "\(failure)")
        #expect(error?.classification == .unreachable, "the count keeps the URLError code and so the classification")
    }

    @Test func anUnreachableInstanceIsTriedFewerTimes() async throws {
        let closed = try RefusedPort()
        let url = closed.baseURL
        let sleeps = Recorder<Double>()
        var policy = Self.policy
        policy.maximumUnreachableAttempts = 2
        let transport = HTTPTransport(
            configuration: NowServiceConfiguration(instanceURL: url, authentication: .none, retryPolicy: policy),
            sleep: { sleeps.append($0) }, unitRandom: { 0.5 })
        let error = await #expect(throws: NowDataError.self) {
            _ = try await NowTableService(transport: transport).records(from: "incident")
        }
        withExtendedLifetime(closed) {}
        #expect(sleeps.values == [50])
        #expect(error?.description.contains("(2 attempts)") == true, "\(String(describing: error))")
        #expect(error?.classification == .unreachable)
        #expect(policy.attemptLimit(unreachable: false) == 100 && policy.attemptLimit(unreachable: true) == 2)
    }

    @Test func withoutABudgetOnlyTheAttemptsCount() async throws {
        let server = try ScriptedHTTPServer(script: [.json(503, "{}")])
        let sleeps = Recorder<Double>()
        let policy = RetryPolicy(maximumAttempts: 6, initialBackoff: 1000, maximumBackoff: 4000)
        await #expect(throws: NowDataError.self) {
            _ = try await TestService.make(server, policy: policy, sleeps: sleeps).records(from: "incident")
        }
        #expect(sleeps.values == [500, 1000, 2000, 2000, 2000])
        #expect(server.requests.count == 6)
    }

    @Test func budgetArithmetic() {
        let policy = RetryPolicy(totalTimeBudget: 10)
        #expect(policy.budgetAllows(wait: 4, after: 6))
        #expect(!policy.budgetAllows(wait: 4.5, after: 6))
        #expect(RetryPolicy().budgetAllows(wait: 1e9, after: 1e9), "no budget by default")
        #expect(RetryPolicy(totalTimeBudget: -3).totalTimeBudget == 0)
        #expect(RetryPolicy.default.totalTimeBudget == nil, "the SDK default is unchanged")
    }
}
