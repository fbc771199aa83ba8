/// How long one request has taken so far, for ``RetryPolicy/totalTimeBudget``: the time outside the
/// transport's waits as measured, plus the waits as asked for.
///
/// Counting the waits as asked for (not as slept) keeps the budget exact when a test injects a sleep
/// that returns at once, and differs from the wall clock only by the scheduler's lateness otherwise.
struct RetryTimeline {
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var slept: Duration = .zero
    private var waited: Double = 0

    /// Starts the timeline now, as the first attempt begins.
    init() {
        started = clock.now
    }

    /// Seconds the request has taken: attempts, authorization and the waits so far.
    var elapsed: Double {
        let outside = clock.now - started - slept
        return Double(outside.components.seconds) + Double(outside.components.attoseconds) / 1e18 + waited
    }

    /// Waits `delay` seconds with `sleep` and records it.
    mutating func wait(
        _ delay: Double, sleep: @Sendable (Double) async throws -> Void
    ) async throws {
        let before = clock.now
        defer {
            slept += clock.now - before
            waited += delay
        }
        try await sleep(delay)
    }
}
