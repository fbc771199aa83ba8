import Foundation
import NowQuery

/// Hands sys_id ranges of one table to the partition tasks, and splits a range that still has much
/// left when a task runs out of work (work stealing), so one dense range cannot serialise a table.
///
/// Rules:
/// * A task first gets a range nobody fetches yet (the plan's partitions, or a resumed journal's
///   unfinished parts), in sys_id order.
/// * When none is left, it takes the upper end of the active range that has the most pages left.
///   Pages left are estimated from the range's last full page: how many key positions it spanned
///   against the positions still ahead of its cursor. A range is split only when it has at least
///   ``minimumPagesLeft`` left and its last page was full (no estimate without one).
/// * The victim keeps about half of what is estimated, at most ``maximumPagesKept`` pages' width,
///   so a dense cluster is cut in pieces that idle tasks can share. The split is journaled first;
///   the victim drops rows at or after its new upper bound from the page it is fetching and is then
///   done — the thief fetches them.
///
/// Thread safety: partition tasks call it concurrently; all state is under `lock`, so
/// `@unchecked Sendable` holds.
final class PartitionScheduler: @unchecked Sendable {
    /// A range must have this many pages left (estimated) to be split.
    static let minimumPagesLeft = 4
    /// A split leaves the victim at most this many pages' width.
    static let maximumPagesKept = 8

    private let journal: TableJournal
    private let lock = NSLock()
    private var pending: [Int]
    private var active: [Int: Activity] = [:]
    private(set) var steals = 0
    private let stealing: Bool

    private struct Activity {
        /// Key positions the last full page spanned.
        var pageWidth: UInt128?
    }

    /// Schedules the unfinished parts of `journal`; `stealing: false` keeps the ranges as planned.
    init(journal: TableJournal, stealing: Bool = true) {
        self.journal = journal
        self.stealing = stealing
        pending = journal.allParts.filter { !$0.done }.map(\.id)
    }

    /// The next part to fetch, or `nil` when there is nothing left to give.
    func claim() throws(SinkError) -> Int? {
        let claimed: Int? = lock.withLock {
            guard !pending.isEmpty else { return nil }
            let id = pending.removeFirst()
            active[id] = Activity()
            return id
        }
        if let claimed { return claimed }
        guard stealing else { return nil }
        return try steal()
    }

    /// The current upper bound of part `id` (it shrinks when the part is split).
    func upperBound(of id: Int) -> SysID? {
        journal.part(id)?.range.upperBound
    }

    /// Part `id` fetched a full page spanning `first`…`last`.
    func observeFullPage(_ id: Int, first: SysID?, last: SysID?) {
        guard let first, let last, let low = KeySpace.position(first), let high = KeySpace.position(last),
            high > low
        else { return }
        lock.withLock { active[id]?.pageWidth = high - low }
    }

    /// Part `id` is exhausted.
    func finished(_ id: Int) {
        _ = lock.withLock { active.removeValue(forKey: id) }
    }

    private func steal() throws(SinkError) -> Int? {
        // Choose under the lock, split through the journal (which journals before it answers).
        let choice: (id: Int, at: SysID)? = lock.withLock {
            var best: (id: Int, pages: UInt128, at: SysID)?
            for (id, activity) in active {
                guard let width = activity.pageWidth, width > 0, let part = journal.part(id), !part.done,
                    let cursor = part.cursor,
                    let left = KeySpace.width(after: cursor, upper: part.range.upperBound)
                else { continue }
                let pages = left / width
                guard pages >= UInt128(Self.minimumPagesLeft), pages > (best?.pages ?? 0) else { continue }
                let kept = Int(min(pages / 2, UInt128(Self.maximumPagesKept)))
                guard
                    let at = KeySpace.splitPoint(
                        after: cursor, upper: part.range.upperBound, pageWidth: width, keepPages: kept)
                else { continue }
                best = (id, pages, at)
            }
            return best.map { ($0.id, $0.at) }
        }
        guard let choice, let new = try journal.split(choice.id, at: choice.at) else { return nil }
        lock.withLock {
            active[new.id] = Activity()
            steals += 1
        }
        return new.id
    }
}
