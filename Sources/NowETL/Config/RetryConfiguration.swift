import Foundation
import NowData

/// How long nowetl keeps trying a request the instance does not answer well: `source.retry`.
///
/// ```yaml
/// source:
///   retry:
///     attempts: 50          # 1…1000 attempts of one request, the first included
///     max_wait_seconds: 30  # 0.1…3600: the longest backoff between two attempts
///     total_seconds: 300    # 1…86400: the time budget of one request, attempts and waits together
/// ```
///
/// Retried are 429, 502, 503 and 504, connection errors, timeouts and cut bodies. The wait before
/// retry N is a uniform draw from `0 … min(max_wait_seconds, 0.5 × 2^(N-1))` — unless the instance
/// sends `Retry-After`, which is waited out exactly when it ends within the budget. The retries of
/// a request end when `attempts` are made or when the next wait would end more than `total_seconds`
/// after the first attempt began; the request then fails with its last error (exit 75 or 69). So a
/// request that never gets an answer fails after at most `total_seconds + timeout_seconds`, and a
/// maintenance window (503s) shorter than about `total_seconds - max_wait_seconds` is waited out.
/// An instance that cannot be reached at all (connection refused, unknown host) is tried at most
/// ``unreachableAttempts`` times: that is a wrong URL or a host that is down, not a maintenance window.
public struct RetryConfiguration: Sendable, Hashable, Decodable {
    /// The allowed `attempts` values.
    public static let attemptsRange = 1...1000
    /// The allowed `max_wait_seconds` values.
    public static let maximumWaitRange = 0.1...3600.0
    /// The allowed `total_seconds` values.
    public static let totalRange = 1.0...86_400.0
    /// The first backoff ceiling, in seconds (doubling per retry up to ``maximumWaitSeconds``).
    public static let initialBackoff = 0.5
    /// Attempts of a request whose instance cannot be reached at all (then exit 69).
    public static let unreachableAttempts = 4

    /// Attempts of one request, the first included (default 50: the time budget, not the count, ends
    /// the retries of a request that keeps failing).
    public var attempts: Int
    /// The longest backoff between two attempts, in seconds (default 30).
    public var maximumWaitSeconds: Double
    /// The time budget of one request, in seconds: attempts and waits together (default 300).
    public var totalSeconds: Double

    /// The defaults: a maintenance window of about four and a half minutes is waited out; a request
    /// that is never answered fails after at most five minutes plus one `timeout_seconds`.
    public static let `default` = RetryConfiguration()

    /// Creates a retry configuration with the file format's defaults.
    public init(attempts: Int = 50, maximumWaitSeconds: Double = 30, totalSeconds: Double = 300) {
        self.attempts = attempts
        self.maximumWaitSeconds = maximumWaitSeconds
        self.totalSeconds = totalSeconds
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case attempts
        case maximumWaitSeconds = "max_wait_seconds"
        case totalSeconds = "total_seconds"
    }

    /// Decodes and checks `source.retry` (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let defaults = Self.default
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attempts =
            try container.decodeInteger(.attempts, default: defaults.attempts, in: Self.attemptsRange)
            ?? defaults.attempts
        maximumWaitSeconds = try container.decode(.maximumWaitSeconds, default: defaults.maximumWaitSeconds)
        guard Self.maximumWaitRange.contains(maximumWaitSeconds) else {
            throw container.issue(
                .maximumWaitSeconds, "\(container.path(.maximumWaitSeconds)) must be between 0.1 and 3600")
        }
        totalSeconds = try container.decode(.totalSeconds, default: defaults.totalSeconds)
        guard Self.totalRange.contains(totalSeconds) else {
            throw container.issue(.totalSeconds, "\(container.path(.totalSeconds)) must be between 1 and 86400")
        }
    }

    /// NowData's policy for these settings: the backoff capped at ``maximumWaitSeconds``, a
    /// `Retry-After` honoured up to the whole budget (the budget then decides), an unreachable instance
    /// tried ``unreachableAttempts`` times, idempotent requests only.
    public var policy: RetryPolicy {
        RetryPolicy(
            maximumAttempts: attempts, initialBackoff: Self.initialBackoff, maximumBackoff: maximumWaitSeconds,
            maximumRetryAfter: totalSeconds, totalTimeBudget: totalSeconds,
            maximumUnreachableAttempts: Self.unreachableAttempts)
    }
}
