import Foundation
import NowData
import Synchronization

/// Limits the requests in flight to one instance, lowering the limit when the instance throttles and
/// raising it again while answers are healthy (additive increase, multiplicative decrease).
///
/// All partitions of all tables of a run that read from one instance share one limiter: each request
/// is bracketed by ``acquire()`` and ``release(_:)``. The limit starts at ``maximum`` (the configured
/// `concurrency`).
///
/// - A 429 (``Outcome/throttled(retryAfter:)``, or a `retry` ``TransportEvent`` for `HTTP 429` passed to
///   ``observe(_:)``) halves the limit (never below 1) and starts a shared cooldown: no request starts
///   until `retryAfter` (or ``defaultCooldown``) has passed, in any partition, not only the one that saw
///   the 429. Throttles during a cooldown extend it when they ask for longer but do not halve again, so
///   a burst of 429s from the requests in flight halves the limit once. No cooldown lasts longer than
///   ``maximumCooldown`` (the retry budget of one request): `Retry-After` is the instance's word, and
///   `Retry-After: 999999` must not hold every other table of a `--keep-going` run for eleven days.
/// - ``currentLimit`` consecutive healthy releases raise the limit by one, up to ``maximum``; a failed release
///   (any other error) breaks the run of healthy ones without changing the limit.
///
/// Requests already in flight when the limit drops are not interrupted; new ones start once fewer than
/// the new limit are in flight. Waiters are served first come, first served.
///
/// Safety: every piece of mutable state lives in one `Mutex`; each method takes the lock once, decides,
/// and resumes the continuations it took out of the queue only after unlocking, so no continuation is
/// resumed under the lock or twice (a waiter is resumed by whoever removes it from the queue: a grant,
/// or its cancellation handler). No lock is held across a suspension, so the cooperative pool is never
/// blocked. Cooldowns end in a timer task that sleeps on the injected clock and holds the limiter
/// weakly; a newer cooldown or deinit cancels it.
final class RequestLimiter: Sendable {
    /// How a request that held a slot ended.
    enum Outcome: Sendable, Hashable {
        /// The instance answered normally.
        case healthy
        /// The instance answered 429; `retryAfter` is its `Retry-After` in seconds, if it sent one.
        case throttled(retryAfter: Double?)
        /// Any other failure: it neither raises nor lowers the limit.
        case failed

        /// The outcome of a request that failed with `failure`: throttled for a 429, else failed.
        init(failure: NowDataError) {
            if failure.statusCode == 429 {
                self = .throttled(retryAfter: failure.context?.retryAfter)
            } else {
                self = .failed
            }
        }
    }

    /// The configured concurrency: the limit never rises above it.
    let maximum: Int
    /// The cooldown of a throttle that names no delay.
    let defaultCooldown: Duration
    /// The longest cooldown, whatever a throttle asks for.
    let maximumCooldown: Duration

    private let now: @Sendable () -> Duration
    private let sleep: @Sendable (_ until: Duration) async throws -> Void
    private let state: Mutex<State>

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var limit: Int
        var lowestLimit: Int
        var inFlight = 0
        var throttleCount = 0
        var healthyStreak = 0
        /// When the running cooldown ends (on the injected clock), `nil` when none runs.
        var cooldownEnd: Duration?
        /// Tells the timer of the running cooldown from timers of earlier ones.
        var cooldownGeneration = 0
        var timer: Task<Void, Never>?
        var waiters: [Waiter] = []
        var nextWaiterID = 0

        /// Takes slots for the waiters at the head of the queue while the limit and cooldown allow.
        mutating func grant() -> [CheckedContinuation<Void, any Error>] {
            guard cooldownEnd == nil else { return [] }
            let count = min(waiters.count, max(0, limit - inFlight))
            guard count > 0 else { return [] }
            inFlight += count
            let granted = waiters.prefix(count).map(\.continuation)
            waiters.removeFirst(count)
            return granted
        }
    }

    /// Creates a limiter on the continuous clock.
    /// - Parameters:
    ///   - maximum: the configured `concurrency` (at least 1); the limit starts there.
    ///   - defaultCooldown: how long everyone waits after a 429 without `Retry-After`.
    ///   - maximumCooldown: the longest cooldown (the run's retry budget, `source.retry.total_seconds`).
    convenience init(
        maximum: Int, defaultCooldown: Duration = .seconds(1), maximumCooldown: Duration = .seconds(300)
    ) {
        self.init(
            maximum: maximum, defaultCooldown: defaultCooldown, maximumCooldown: maximumCooldown,
            clock: ContinuousClock())
    }

    /// Creates a limiter whose cooldowns are timed by `clock` (tests pass a clock they advance by hand).
    init<C: Clock>(
        maximum: Int, defaultCooldown: Duration = .seconds(1), maximumCooldown: Duration = .seconds(300), clock: C
    ) where C.Duration == Duration {
        self.maximum = max(1, maximum)
        self.defaultCooldown = defaultCooldown
        self.maximumCooldown = max(.zero, maximumCooldown)
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
        self.state = Mutex(State(limit: self.maximum, lowestLimit: self.maximum))
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    // MARK: - Observing

    /// The current limit of requests in flight.
    var currentLimit: Int { state.withLock { $0.limit } }

    /// The lowest limit so far: the concurrency the run was held down to (``maximum`` when never throttled).
    var lowestLimit: Int { state.withLock { $0.lowestLimit } }

    /// Throttle signals seen (429 answers and their retries), including those that did not halve the limit.
    var throttleCount: Int { state.withLock { $0.throttleCount } }

    /// Requests holding a slot.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Callers waiting in ``acquire()``.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Whether a shared cooldown holds every new request back.
    var isCoolingDown: Bool { state.withLock { $0.cooldownEnd != nil } }

    // MARK: - Slots

    /// Waits for a slot: until fewer than the limit are in flight, no cooldown runs and every earlier
    /// caller got its slot.
    ///
    /// Every successful call must be matched by one ``release(_:)``. A caller granted a slot just as
    /// it is cancelled returns normally and must release it.
    /// - Throws: `CancellationError` when the task is cancelled before it gets a slot; it then leaves
    ///   the queue and holds no slot.
    func acquire() async throws {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock that the cancellation handler takes: either the handler runs
                // after this section and finds the waiter queued, or the flag is already set here.
                let start: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.waiters.isEmpty, state.cooldownEnd == nil, state.inFlight < state.limit {
                        state.inFlight += 1
                        return .success(())
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let start { continuation.resume(with: start) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back and adjusts the limit by how the request ended.
    func release(_ outcome: Outcome) {
        var cooldown: CooldownStart?
        let granted = state.withLock { state in
            assert(state.inFlight > 0, "release without acquire")
            state.inFlight = max(0, state.inFlight - 1)
            switch outcome {
            case .healthy:
                state.healthyStreak += 1
                if state.healthyStreak >= state.limit, state.limit < maximum {
                    state.limit += 1
                    state.healthyStreak = 0
                }
            case .throttled(let retryAfter):
                cooldown = throttle(&state, retryAfter: retryAfter)
            case .failed:
                state.healthyStreak = 0
            }
            return state.grant()
        }
        for continuation in granted { continuation.resume() }
        if let cooldown { startTimer(cooldown) }
    }

    /// Feeds the limiter from NowData's ``NowServiceConfiguration/eventHandler``: a retry after
    /// `HTTP 429` is a throttle whose cooldown is the retry's delay (the transport waits that long
    /// itself; the limiter holds the other partitions back meanwhile). Other events are ignored.
    func observe(_ event: TransportEvent) {
        guard case .retry(_, _, _, let delay, let reason) = event, reason == Self.rateLimitedReason else { return }
        if let cooldown = state.withLock({ throttle(&$0, retryAfter: delay) }) { startTimer(cooldown) }
    }

    /// The `reason` of a ``TransportEvent/retry(method:url:attempt:delay:reason:)`` after a 429
    /// (`HTTPTransport` writes `HTTP <status>`).
    static let rateLimitedReason = "HTTP 429"

    // MARK: - Throttling

    /// A cooldown whose timer is to be started, outside the lock.
    private struct CooldownStart {
        let generation: Int
        let end: Duration
        /// The timer of the cooldown it replaces.
        let replaced: Task<Void, Never>?
    }

    /// Counts a throttle; halves the limit unless a cooldown runs; starts or extends the cooldown.
    /// - Returns: the cooldown whose timer the caller starts after unlocking, if it began or ends later now.
    private func throttle(_ state: inout State, retryAfter: Double?) -> CooldownStart? {
        state.throttleCount += 1
        state.healthyStreak = 0
        if state.cooldownEnd == nil {
            state.limit = max(1, state.limit / 2)
            state.lowestLimit = min(state.lowestLimit, state.limit)
        }
        let cooldown = min(maximumCooldown, retryAfter.map { Self.duration(seconds: $0) } ?? defaultCooldown)
        guard cooldown > .zero else { return nil }
        let end = now() + cooldown
        if let running = state.cooldownEnd, running >= end { return nil }
        state.cooldownEnd = end
        state.cooldownGeneration += 1
        let replaced = state.timer
        state.timer = nil
        return CooldownStart(generation: state.cooldownGeneration, end: end, replaced: replaced)
    }

    /// `seconds` as a duration that cannot trap: NaN and negatives are 0, and anything beyond a day is a
    /// day (``maximumCooldown`` cuts it further).
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return seconds == .infinity ? .seconds(86_400) : .zero }
        return .seconds(min(seconds, 86_400))
    }

    /// Starts the timer that ends `cooldown` and cancels the one it replaces. Its handle is kept only
    /// while no later cooldown replaced it (that one cancels it, or it is cancelled here).
    private func startTimer(_ cooldown: CooldownStart) {
        cooldown.replaced?.cancel()
        let sleep = self.sleep
        let timer = Task { [weak self] in
            do {
                try await sleep(cooldown.end)
            } catch {
                return  // cancelled: a later cooldown replaced this one, or the limiter is gone
            }
            self?.endCooldown(generation: cooldown.generation)
        }
        let current = state.withLock { state in
            guard state.cooldownGeneration == cooldown.generation, state.cooldownEnd != nil else { return false }
            state.timer = timer
            return true
        }
        if !current { timer.cancel() }
    }

    /// Ends cooldown `generation` (unless a later one replaced it) and lets the waiters go.
    private func endCooldown(generation: Int) {
        let granted = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.cooldownGeneration == generation, state.cooldownEnd != nil else { return [] }
            state.cooldownEnd = nil
            state.timer = nil
            return state.grant()
        }
        for continuation in granted { continuation.resume() }
    }
}
