import Foundation

/// When and how long the transport waits before trying a request again.
///
/// Retries happen on the ``retryableStatusCodes`` (429, 502, 503, 504 by default), on connection
/// errors and timeouts, and on 2xx bodies cut short — for idempotent requests only (GET, PUT, DELETE),
/// unless ``retriesNonIdempotentRequests`` is set, because a POST that reached the instance may already
/// have created the record. A `Retry-After` header (seconds or HTTP date) is honoured exactly instead
/// of the backoff; otherwise the delay is exponential with full jitter and a cap.
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

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 4, initialBackoff: TimeInterval = 0.5, maximumBackoff: TimeInterval = 30,
        maximumRetryAfter: TimeInterval = 300, retryableStatusCodes: Set<HTTPStatusCode> = [429, 502, 503, 504],
        retriesNonIdempotentRequests: Bool = false
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
    }

    /// Four attempts, 0.5 s initial backoff, 30 s cap, `Retry-After` up to 5 minutes, idempotent only.
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

    /// Whether a request with `method` may be retried under this policy.
    public func allowsRetry(of method: HTTPMethod) -> Bool {
        method.isIdempotent || retriesNonIdempotentRequests
    }
}
