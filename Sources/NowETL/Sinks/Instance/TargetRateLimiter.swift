import Synchronization

/// The `rate_per_second` ceiling of an `instance:` output: writes (and lookups) to the target are spaced
/// at least `1 / rate` seconds apart, however many are in flight; a Batch API call of N writes takes N
/// slots (the target does the work of N requests).
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

    /// Waits until the caller may send its request of `count` writes.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func acquire(count: Int = 1) async throws {
        let now = clock.now
        let slot = reserveSlot(at: now, count: count)
        if slot > now { try await Task.sleep(until: slot, clock: clock) }
    }

    /// Reserves the next free slots for `count` writes asked for at `now`: from `now` when the limiter
    /// is idle, else from the end of the last reservation (idle time is not saved up as a burst). The
    /// request starts at the first slot; the next request waits for the end of all `count`.
    func reserveSlot(at now: ContinuousClock.Instant, count: Int = 1) -> ContinuousClock.Instant {
        nextSlot.withLock { next -> ContinuousClock.Instant in
            let slot = max(now, next ?? now)
            next = slot + interval * max(1, count)
            return slot
        }
    }
}
