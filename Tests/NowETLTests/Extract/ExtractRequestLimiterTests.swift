import Foundation
import NowData
import NowSimTesting
import Synchronization
import Testing

@testable import NowETL

/// ``RequestLimiter``: the limit holds under contention, 429s halve it once per burst and hold every
/// caller back for the cooldown, healthy answers raise it again, waiters are served in order and can
/// leave by cancellation. Cooldowns run on a ``ManualClock``, so no decision waits for real time; the
/// tests wait only for events (a caller queued, a slot granted), never for a duration.
@Suite(.timeLimit(.minutes(3))) struct ExtractRequestLimiterTests {
    @Test func theLimitIsNeverExceededByManyConcurrentCallers() async throws {
        let limiter = RequestLimiter(maximum: 4, clock: ManualClock())
        let tracker = InFlightTracker()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    try await limiter.acquire()
                    tracker.enter(limit: limiter.currentLimit)
                    for _ in 0..<3 { await Task.yield() }
                    tracker.leave()
                    limiter.release(.healthy)
                }
            }
            try await group.waitForAll()
        }
        #expect(tracker.maximum <= 4 && tracker.maximum >= 1)
        #expect(tracker.overLimit == 0)
        #expect(limiter.inFlight == 0 && limiter.waitingCount == 0 && limiter.currentLimit == 4)
    }

    @Test func afterAThrottleNewRequestsStartOnlyBelowTheLowerLimit() async throws {
        let limiter = RequestLimiter(maximum: 4, clock: ManualClock())
        for _ in 0..<4 { try await limiter.acquire() }
        // Retry-After 0: the limit halves, no cooldown holds anyone back.
        limiter.release(.throttled(retryAfter: 0))
        #expect(limiter.currentLimit == 2 && limiter.inFlight == 3 && !limiter.isCoolingDown)

        let fifth = Task { try await limiter.acquire() }
        await waitUntil { limiter.waitingCount == 1 }
        limiter.release(.healthy)
        #expect(limiter.inFlight == 2 && limiter.waitingCount == 1, "2 in flight is not below the limit of 2")
        limiter.release(.healthy)
        #expect(limiter.inFlight == 2 && limiter.waitingCount == 0, "the waiter got the freed slot at once")
        try await fifth.value
    }

    @Test func aBurstOfThrottlesHalvesTheLimitOnce() async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: 8, clock: clock)
        for _ in 0..<8 { try await limiter.acquire() }
        // Every request in flight comes back 429, and the transport reports retries of some of them.
        for _ in 0..<5 { limiter.release(.throttled(retryAfter: 5)) }
        for _ in 0..<3 { limiter.observe(Self.retry(after: 5)) }
        for _ in 0..<3 { limiter.release(.throttled(retryAfter: nil)) }
        #expect(limiter.currentLimit == 4 && limiter.lowestLimit == 4)
        #expect(limiter.throttleCount == 11)
        #expect(limiter.isCoolingDown)

        clock.advance(by: .seconds(5))
        await waitUntil { !limiter.isCoolingDown }
        // A 429 after the cooldown is a new burst.
        try await limiter.acquire()
        limiter.release(.throttled(retryAfter: 1))
        #expect(limiter.currentLimit == 2 && limiter.lowestLimit == 2 && limiter.throttleCount == 12)
    }

    @Test func healthyAnswersRaiseTheLimitByOnePerLimitAnswersUpToTheMaximum() async throws {
        let limiter = RequestLimiter(maximum: 6, clock: ManualClock())
        for _ in 0..<3 {
            try await limiter.acquire()
            limiter.release(.throttled(retryAfter: 0))
        }
        #expect(limiter.currentLimit == 1 && limiter.lowestLimit == 1)

        var limits: [Int] = []
        for _ in 0..<(1 + 2 + 3 + 4 + 5 + 6) {
            try await limiter.acquire()
            limiter.release(.healthy)
            limits.append(limiter.currentLimit)
        }
        // 1 healthy answer at limit 1, then 2 at limit 2, … until the maximum, where it stays.
        let expected = [2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6]
        #expect(limits == expected)
        #expect(limiter.lowestLimit == 1)
    }

    @Test func aFailureBreaksTheRunOfHealthyAnswers() async throws {
        let limiter = RequestLimiter(maximum: 8, clock: ManualClock())
        try await limiter.acquire()
        limiter.release(.throttled(retryAfter: 0))
        #expect(limiter.currentLimit == 4)
        for outcome in [RequestLimiter.Outcome.healthy, .healthy, .healthy, .failed, .healthy, .healthy, .healthy] {
            try await limiter.acquire()
            limiter.release(outcome)
        }
        #expect(limiter.currentLimit == 4, "3 healthy, a failure, 3 healthy: never 4 in a row")
        try await limiter.acquire()
        limiter.release(.healthy)
        #expect(limiter.currentLimit == 5)
    }

    @Test func aCooldownHoldsBackEveryCallerUntilItEndsThenServesThemInOrder() async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: 4, clock: clock)
        try await limiter.acquire()
        limiter.release(.throttled(retryAfter: 2))
        #expect(limiter.currentLimit == 2 && limiter.inFlight == 0 && limiter.isCoolingDown)

        let order = Recorded<Int>()
        var callers: [Task<Void, any Error>] = []
        for index in 0..<3 {
            callers.append(
                Task {
                    try await limiter.acquire()
                    order.append(index)
                })
            await waitUntil { limiter.waitingCount == index + 1 }
        }
        clock.advance(by: .seconds(1))
        #expect(limiter.isCoolingDown && limiter.inFlight == 0 && limiter.waitingCount == 3)

        clock.advance(by: .seconds(1))
        await waitUntil { limiter.inFlight == 2 }
        try await callers[0].value
        try await callers[1].value
        #expect(order.values == [0, 1], "first come, first served, up to the limit of 2")
        #expect(limiter.waitingCount == 1)
        limiter.release(.healthy)
        try await callers[2].value
        #expect(order.values == [0, 1, 2])
    }

    @Test func aLongerRetryAfterExtendsTheCooldownAndAShorterOneDoesNotShortenIt() async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: 4, clock: clock)
        limiter.observe(Self.retry(after: 2))
        clock.advance(by: .seconds(1))
        limiter.observe(Self.retry(after: 5))  // ends at 6 s
        limiter.observe(Self.retry(after: 1))  // would end at 2 s
        #expect(limiter.currentLimit == 2 && limiter.throttleCount == 3)

        let caller = Task { try await limiter.acquire() }
        await waitUntil { limiter.waitingCount == 1 }
        clock.advance(by: .seconds(4))  // 5 s: past both earlier ends
        #expect(limiter.isCoolingDown && limiter.waitingCount == 1)
        clock.advance(by: .seconds(1))
        try await caller.value
        #expect(!limiter.isCoolingDown && limiter.inFlight == 1)
    }

    /// `Retry-After: 999999` (or 1e30, or NaN) holds the other partitions for at most the retry budget,
    /// and never traps.
    @Test(arguments: [999_999.0, 1e30, .infinity, .nan])
    func aCooldownNeverOutlivesTheRetryBudget(retryAfter: Double) async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: 2, maximumCooldown: .seconds(5), clock: clock)
        try await limiter.acquire()
        limiter.release(.throttled(retryAfter: retryAfter))
        if retryAfter.isNaN {
            // No delay can be read from it: no cooldown, the throttle only halves the limit.
            #expect(!limiter.isCoolingDown && limiter.currentLimit == 1)
            return
        }
        try await expectCooldown(of: limiter, on: clock, lasting: .milliseconds(5000))
        #expect(!limiter.isCoolingDown)
    }

    @Test func aThrottleWithoutRetryAfterCoolsDownForTheDefault() async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: 2, defaultCooldown: .seconds(3), clock: clock)
        try await limiter.acquire()
        limiter.release(.throttled(retryAfter: nil))
        try await expectCooldown(of: limiter, on: clock, lasting: .milliseconds(3000))
    }

    @Test func aCancelledWaiterLeavesTheQueueAndTheNextOneGetsTheSlot() async throws {
        let limiter = RequestLimiter(maximum: 1, clock: ManualClock())
        try await limiter.acquire()
        let cancelled = Task { try await limiter.acquire() }
        await waitUntil { limiter.waitingCount == 1 }
        let next = Task { try await limiter.acquire() }
        await waitUntil { limiter.waitingCount == 2 }

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(limiter.waitingCount == 1 && limiter.inFlight == 1)

        limiter.release(.healthy)
        try await next.value
        #expect(limiter.inFlight == 1 && limiter.waitingCount == 0, "the slot went to the waiter left")

        // A task cancelled before it asks gets no slot, even when one is free.
        limiter.release(.healthy)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.acquire()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(limiter.inFlight == 0 && limiter.waitingCount == 0)
    }

    @Test(arguments: [(1, 1, 1), (3, 1, 1), (5, 1, 2), (8, 2, 2), (16, 3, 2), (32, 10, 1)])
    func lowestLimitIsTheConcurrencyTheRunWasHeldTo(maximum: Int, bursts: Int, lowest: Int) async throws {
        let clock = ManualClock()
        let limiter = RequestLimiter(maximum: maximum, clock: clock)
        for _ in 0..<bursts {
            limiter.observe(Self.retry(after: 1))
            clock.advance(by: .seconds(1))
            await waitUntil { !limiter.isCoolingDown }
        }
        #expect(limiter.lowestLimit == lowest && limiter.currentLimit == lowest)
        #expect(limiter.throttleCount == bursts)
        for _ in 0..<100 {
            try await limiter.acquire()
            limiter.release(.healthy)
        }
        #expect(limiter.lowestLimit == lowest, "raising the limit again does not change the lowest")
    }

    @Test func onlyRetriesAfterA429AreThrottles() {
        let limiter = RequestLimiter(maximum: 4, clock: ManualClock())
        limiter.observe(.retry(method: "GET", url: "http://x/api", attempt: 2, delay: 1, reason: "HTTP 503"))
        limiter.observe(.retry(method: "GET", url: "http://x/api", attempt: 2, delay: 1, reason: "truncated body"))
        limiter.observe(.tokenRefreshed(grant: "password"))
        #expect(limiter.throttleCount == 0 && limiter.currentLimit == 4 && !limiter.isCoolingDown)
        limiter.observe(Self.retry(after: 1))
        #expect(limiter.throttleCount == 1 && limiter.currentLimit == 2 && limiter.isCoolingDown)
    }

    @Test func outcomeOfAFailure() {
        let context = ResponseContext(
            method: "GET", url: "http://x/api", table: "incident", statusCode: 429, retryAfter: 30, attempts: 4)
        #expect(
            RequestLimiter.Outcome(failure: .badResponse(statusCode: 429, context: context))
                == .throttled(retryAfter: 30))
        #expect(RequestLimiter.Outcome(failure: .badResponse(statusCode: 503, context: context)) == .failed)
        #expect(RequestLimiter.Outcome(failure: .cannotParseResponse) == .failed)
    }

    /// Partitions paging nowsim through one limiter fed by the transport's events: 429s lower the limit,
    /// every row still arrives once.
    @Test func rateLimitedInstanceLowersTheLimitThroughTransportEvents() async throws {
        let seed = seededNowSim("incident=80", value: 7)
        try await withNowSim(arguments: seed, faults: ["rate-limit:every=5,retry-after=1,table=incident"]) { sim in
            let limiter = RequestLimiter(maximum: 4)
            let retries = Recorded<Double>()
            let service = NowTableService(
                configuration: NowServiceConfiguration(
                    instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin"),
                    retryPolicy: RetryPolicy(maximumAttempts: 6),
                    eventHandler: { event in
                        if case .retry(_, _, _, let delay, RequestLimiter.rateLimitedReason) = event {
                            retries.append(delay)
                        }
                        limiter.observe(event)
                    }))
            let configuration = FetchConfiguration(
                limit: 10, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"]))
            let rows = try await withThrowingTaskGroup(of: [String].self) { group in
                for range in SysIDRange.partitions(4) {
                    group.addTask {
                        try await Self.page(range, of: service, configuration: configuration, through: limiter)
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(rows.count == 80 && Set(rows).count == 80)
            #expect(!retries.values.isEmpty && retries.values.allSatisfy { $0 == 1 }, "Retry-After: 1 each time")
            #expect(limiter.throttleCount >= retries.values.count)
            #expect(limiter.lowestLimit < 4)
            #expect(limiter.inFlight == 0)
        }
    }

    // MARK: - Support

    /// All rows of `range`, one limited request per page; a page that still fails with 429 after the
    /// transport's retries is asked for again.
    static func page(
        _ range: SysIDRange, of service: NowTableService, configuration: FetchConfiguration,
        through limiter: RequestLimiter
    ) async throws -> [String] {
        var rows: [String] = []
        var after: SysID?
        while true {
            try await limiter.acquire()
            let page: KeysetPage
            do throws(PaginationError) {
                page = try await service.keysetPage(
                    from: "incident", configuration: configuration, range: range, after: after)
            } catch {
                if case .fetchFailed(let failure) = error, RequestLimiter.Outcome(failure: failure) != .failed {
                    limiter.release(RequestLimiter.Outcome(failure: failure))
                    continue
                }
                limiter.release(.failed)
                throw error
            }
            limiter.release(.healthy)
            rows += try page.body.decodeRecords().map(\.sysId)
            guard let last = page.lastSysId else { return rows }
            after = last
        }
    }

    static func retry(after delay: Double) -> TransportEvent {
        .retry(method: "GET", url: "http://x/api/now/table/incident", attempt: 2, delay: delay, reason: "HTTP 429")
    }
}

/// Waits (without a deadline of its own: the suite's time limit ends a hang) until `condition` holds.
/// Expects a caller of `limiter` to wait for exactly `cooldown` of `clock` (still waiting a millisecond
/// before) and then to get its slot.
private func expectCooldown(
    of limiter: RequestLimiter, on clock: ManualClock, lasting cooldown: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let caller = Task { try await limiter.acquire() }
    await waitUntil { limiter.waitingCount == 1 }
    clock.advance(by: cooldown - .milliseconds(1))
    #expect(limiter.isCoolingDown && limiter.waitingCount == 1, sourceLocation: sourceLocation)
    clock.advance(by: .milliseconds(1))
    try await caller.value
}

private func waitUntil(_ condition: () -> Bool) async {
    while !condition() { try? await Task.sleep(for: .milliseconds(1)) }
}

/// Values appended from many tasks.
private final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// Counts the callers between acquire and release, the most at once, and how often more were in
/// flight than the limit allowed when one entered.
private final class InFlightTracker: Sendable {
    private struct State {
        var current = 0
        var maximum = 0
        var overLimit = 0
    }
    private let state = Mutex(State())

    func enter(limit: Int) {
        state.withLock { state in
            state.current += 1
            state.maximum = max(state.maximum, state.current)
            if state.current > limit { state.overLimit += 1 }
        }
    }

    func leave() { state.withLock { $0.current -= 1 } }
    var maximum: Int { state.withLock { $0.maximum } }
    var overLimit: Int { state.withLock { $0.overLimit } }
}
