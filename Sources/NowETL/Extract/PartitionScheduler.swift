import Foundation
import NowQuery

/// Hands sys_id ranges of one table to the partition tasks, and splits a range that still has much
/// left when a task runs out of work (work stealing), so one dense range cannot serialise a table.
///
/// Rules:
/// * A task first gets a range nobody fetches yet (the plan's partitions, or a resumed journal's
///   unfinished parts), in sys_id order.
/// * When none is left, it takes the upper end of the active range that has the most pages left;
///   when no range can be split yet, it waits for the next full page or finished range and tries
///   again, so a resumed run with fewer unfinished ranges than tasks still uses every task. It is
///   done when no range is left and none is active.
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
    private var stealCount = 0
    private let stealing: Bool
    /// Counts every change a waiting task may act on (a full page, a finished or new range).
    private var generation = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    /// What ``claim()`` hands out.
    enum Claim: Equatable {
        /// Fetch this part.
        case part(Int)
        /// Nothing to hand out now, but ranges are still active: ``waitForChange(after:)`` this generation.
        case wait(generation: Int)
        /// No range is left and none is active.
        case done
    }

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

    /// Ranges split so far.
    var steals: Int { lock.withLock { stealCount } }

    /// The next part to fetch, or whether to wait or stop.
    func claim() throws(NowETLError) -> Claim {
        // The generation is read with the check that ranges are still active: a range finishing right
        // after it moves the generation on, so the wait below returns at once instead of forever.
        let (claimed, observed): (Claim?, Int) = lock.withLock {
            if !pending.isEmpty {
                let id = pending.removeFirst()
                active[id] = Activity()
                return (.part(id), generation)
            }
            return (active.isEmpty ? .done : nil, generation)
        }
        if let claimed { return claimed }
        if stealing, let id = try steal() { return .part(id) }
        return .wait(generation: observed)
    }

    /// Returns once something changed after `generation` (at once if it already did), or the task is
    /// cancelled.
    func waitForChange(after generation: Int) async {
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if self.generation != generation || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Wakes every waiting task; the caller holds `lock` and resumes the returned continuations after it.
    private func changedLocked() -> [CheckedContinuation<Void, Never>] {
        generation += 1
        defer { waiters.removeAll() }
        return Array(waiters.values)
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
        let woken = lock.withLock {
            active[id]?.pageWidth = high - low
            return changedLocked()
        }
        for waiter in woken { waiter.resume() }
    }

    /// Part `id` is exhausted.
    func finished(_ id: Int) {
        let woken = lock.withLock {
            active.removeValue(forKey: id)
            return changedLocked()
        }
        for waiter in woken { waiter.resume() }
    }

    private func steal() throws(NowETLError) -> Int? {
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
            stealCount += 1
        }
        return new.id
    }
}
