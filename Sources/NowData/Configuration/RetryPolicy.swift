import Foundation

/// When and how long the transport waits before trying a request again.
///
/// Retries happen on the ``retryableStatusCodes`` (429, 502, 503, 504 by default), on connection
/// errors and timeouts, and on 2xx bodies cut short — for idempotent requests only (GET, PUT, DELETE),
/// unless ``retriesNonIdempotentRequests`` is set, because a POST that reached the instance may already
/// have created the record. A `Retry-After` header (seconds or HTTP date) is honoured exactly instead
/// of the backoff; otherwise the delay is exponential with full jitter and a cap.
///
/// Two limits end the retries, whichever comes first: ``maximumAttempts``, and ``totalTimeBudget``
/// (when set), the time a request may take from the start of its first attempt — attempts and waits
/// together. A wait that would end past the budget is not begun: the request fails at once with the
/// last error, whose context counts the attempts made.
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts including the first (1 disables retries).
    public var maximumAttempts: Int
    /// The backoff ceiling of the first retry, in seconds; it doubles per retry.
    public var initialBackoff: TimeInterval
    /// The largest backoff ceiling, in seconds.
    public var maximumBackoff: TimeInterval
    /// The longest `Retry-After` the transport waits out, in seconds; a longer one fails the request
    /// with the delay in ``ResponseContext/retryAfter`` so the caller can schedule later.
    public var maximumRetryAfter: TimeInterval
    /// The statuses that are retried.
    public var retryableStatusCodes: Set<HTTPStatusCode>
    /// Whether POST (and PATCH) are retried too.
    public var retriesNonIdempotentRequests: Bool
    /// The longest time, in seconds, from the start of a request's first attempt to the end of its
    /// last wait before a retry (`nil`, the default: no limit but ``maximumAttempts``).
    ///
    /// Attempts and waits both count. The transport never begins a wait that would end past the
    /// budget; it fails with the last error instead. An attempt that has begun runs to its answer or
    /// its timeout, so a request whose every attempt hangs takes at most about `totalTimeBudget` plus
    /// one ``NowServiceConfiguration/requestTimeout``.
    public var totalTimeBudget: TimeInterval?
    /// Total attempts, the first included, when the instance cannot be reached at all — connection
    /// refused, unknown host, no network (``NowDataError/Classification/unreachable``); `nil`, the
    /// default, for ``maximumAttempts``. A wrong URL or a host that is down seldom heals while a
    /// budget meant for maintenance windows runs out, so callers with a long budget set this low.
    public var maximumUnreachableAttempts: Int?

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 4, initialBackoff: TimeInterval = 0.5, maximumBackoff: TimeInterval = 30,
        maximumRetryAfter: TimeInterval = 300, retryableStatusCodes: Set<HTTPStatusCode> = [429, 502, 503, 504],
        retriesNonIdempotentRequests: Bool = false, totalTimeBudget: TimeInterval? = nil,
        maximumUnreachableAttempts: Int? = nil
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.totalTimeBudget = totalTimeBudget.map { max(0, $0) }
        self.maximumUnreachableAttempts = maximumUnreachableAttempts.map { max(1, $0) }
    }

    /// Four attempts, 0.5 s initial backoff, 30 s cap, `Retry-After` up to 5 minutes, idempotent only,
    /// no time budget.
    public static let `default` = RetryPolicy()

    /// A single attempt.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// The full-jitter delay before retry number `retry` (1 for the first retry):
    /// a uniform draw from `0 ... min(maximumBackoff, initialBackoff * 2^(retry-1))`.
    /// - Parameter unitRandom: a number in `0..<1` (injected for tests).
    public func backoff(beforeRetry retry: Int, unitRandom: Double) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let ceiling = min(maximumBackoff, initialBackoff * pow(2, min(exponent, 62)))
        return max(0, ceiling) * min(max(unitRandom, 0), 1)
    }

    /// Whether a wait of `delay` seconds, begun after `elapsed` seconds of the request (attempts and
    /// earlier waits), ends within ``totalTimeBudget``.
    public func budgetAllows(wait delay: TimeInterval, after elapsed: TimeInterval) -> Bool {
        guard let totalTimeBudget else { return true }
        return elapsed + max(0, delay) <= totalTimeBudget
    }

    /// The attempts allowed for a failure: ``maximumAttempts``, or for an instance that cannot be
    /// reached at all the smaller ``maximumUnreachableAttempts``.
    public func attemptLimit(unreachable: Bool) -> Int {
        guard unreachable, let maximumUnreachableAttempts else { return maximumAttempts }
        return min(maximumAttempts, maximumUnreachableAttempts)
    }

    /// Whether a request with `method` may be retried under this policy.
    public func allowsRetry(of method: HTTPMethod) -> Bool {
        method.isIdempotent || retriesNonIdempotentRequests
    }
}
