import Synchronization

/// The reject stage of a table's pipeline: what happens to records whose values will not convert, whose
/// text is not valid UTF-8 (unless `invalid_utf8: replace` repaired them), or holds NUL where a PostgreSQL
/// output cannot store it.
///
/// `fail` fails the table at the first one; `skip` and `dead_letter` count them (the dead letters
/// themselves travel with the page to the sinks' side, written in sys_id order by the join), and more
/// than `max` fails the table with ``NowETLError/Code/rejectsOverThreshold`` (exit 2). Partition
/// tasks call it concurrently: the count is atomic.
public final class RejectCollector: Sendable {
    /// The table.
    public let table: String
    /// The table's policy.
    public let policy: RejectPolicy
    private let count: Atomic<Int>

    /// A collector for `table` starting from `alreadyRejected` (a resumed run's journaled rejects).
    public init(table: String, policy: RejectPolicy, alreadyRejected: Int = 0) {
        self.table = table
        self.policy = policy
        count = Atomic(alreadyRejected)
    }

    /// Records rejected so far.
    public var rejected: Int { count.load(ordering: .relaxed) }

    /// Takes the rejections of one page.
    ///
    /// - Throws: ``NowETLError`` naming the table when the policy fails the table.
    public func collect(_ rejections: [Rejection], partition: Int, page: Int) throws(NowETLError) {
        guard let first = rejections.first else { return }
        switch policy.mode {
        case .fail:
            let repair =
                switch first.problem {
                case .invalidUTF8: ", or invalid_utf8: replace to export them with U+FFFD"
                case .nulCharacter: ", or leave the column out of the table's columns:"
                case .unconvertible, .invalidSysID: ""
                }
            throw NowETLError(
                .failed, table: table,
                "\(first) (reject: fail; use reject: { mode: skip } or dead_letter to leave such records out\(repair))",
                partition: partition, page: page)
        case .skip, .deadLetter:
            let total = count.add(rejections.count, ordering: .relaxed).newValue
            if let maximum = policy.maximum, total > maximum, let last = rejections.last {
                throw NowETLError(
                    .rejectsOverThreshold, table: table,
                    "more than \(maximum) records rejected (reject max); the last: \(last)",
                    partition: partition, page: page)
            }
        }
    }
}
