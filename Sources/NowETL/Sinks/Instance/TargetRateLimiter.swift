import Synchronization

/// The `rate_per_second` ceiling of an `instance:` output: requests to the target are spaced at least
/// `1 / rate` seconds apart, however many are in flight.
///
/// A token bucket of one token refilled every `1 / rate` seconds (the generic cell rate algorithm): each
/// caller reserves the next free slot under a lock — never held across a wait — and sleeps until it
/// with `Task.sleep`, so a waiting request holds no thread of the cooperative pool and cancellation ends
/// the wait at once. Retries inside NowData's transport are not paced again: their backoff (or the
/// target's `Retry-After`) spaces them already.
final class TargetRateLimiter: Sendable {
    /// The least time between two requests.
    let interval: Duration
    private let clock = ContinuousClock()
    /// The earliest instant the next request may start.
    private let nextSlot = Mutex<ContinuousClock.Instant?>(nil)

    /// Creates a limiter for `ratePerSecond` requests per second (above 0).
    init(ratePerSecond: Double) {
        let nanoseconds = max(1, Int64((1e9 / ratePerSecond).rounded(.up)))
        interval = .nanoseconds(nanoseconds)
    }

    /// Waits until the caller may send its request.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func acquire() async throws {
        let now = clock.now
        let slot = reserveSlot(at: now)
        if slot > now { try await Task.sleep(until: slot, clock: clock) }
    }

    /// Reserves the next free slot for a request asked for at `now`: `now` when the limiter is idle,
    /// else one ``interval`` after the last reserved slot (idle time is not saved up as a burst).
    func reserveSlot(at now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        nextSlot.withLock { next -> ContinuousClock.Instant in
            let slot = max(now, next ?? now)
            next = slot + interval
            return slot
        }
    }
}
