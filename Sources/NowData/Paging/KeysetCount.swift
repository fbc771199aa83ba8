import Foundation

/// How many records of a keyset window the instance counts, read by
/// ``NowTableService/keysetCount(from:configuration:range:after:)``.
///
/// The instance counts before row ACLs (ref §3.2), so the count includes records the caller cannot
/// read: 0 means nothing is left after the cursor, anything else that records are left, visible or not.
public struct KeysetCount: Sendable, Hashable {
    /// Records matching the filter in the range after the cursor, hidden ones included.
    public var count: Int
    /// HTTP attempts the count needed, retries included.
    public var attempts: Int

    /// Creates a count (for tests and for callers that fake the transport).
    public init(count: Int, attempts: Int) {
        self.count = count
        self.attempts = attempts
    }
}
