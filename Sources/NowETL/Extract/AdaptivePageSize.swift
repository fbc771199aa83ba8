import Foundation
import Synchronization

/// The page size of one table's extraction, lowered when the instance gives up on a page and raised
/// again when pages come back healthy.
///
/// A real instance cancels a transaction that outruns its quota (`Transaction cancelled: maximum
/// execution time exceeded`, ref §3.5), often inside a 200, or a proxy cuts a long body; the same
/// request usually fails again, a smaller one succeeds. So such a page is retried at half the size,
/// down to ``minimum`` (then the error stands), and after ``healthyPagesToGrow`` healthy pages in a row
/// the size doubles again, up to the configured ``maximum``. Shared by the table's partition tasks: a
/// cancellation says something about the instance's load or the rows' weight, not about one range.
///
/// The size shapes requests only: rows are joined in sys_id order, so the outputs' bytes do not
/// depend on it.
final class AdaptivePageSize: Sendable {
    /// The configured page size: never exceeded.
    let maximum: Int
    /// The smallest size a page is retried at: a sixteenth of ``maximum``, at least 1.
    let minimum: Int
    /// Healthy pages in a row before the size doubles.
    static let healthyPagesToGrow = 4

    private struct State {
        var size: Int
        var healthy = 0
        var reductions = 0
    }

    private let state: Mutex<State>

    /// Starts at `maximum`.
    init(maximum: Int) {
        self.maximum = max(1, maximum)
        self.minimum = max(1, self.maximum / 16)
        state = Mutex(State(size: self.maximum))
    }

    /// The size to ask for now.
    var current: Int { state.withLock { $0.size } }

    /// Times a page was retried smaller.
    var reductions: Int { state.withLock { $0.reductions } }

    /// A page of `size` records failed in a way a smaller one may not: returns the size to retry it at,
    /// or `nil` when `size` is already at the floor.
    func reduce(after size: Int) -> Int? {
        guard size > minimum else { return nil }
        let smaller = max(minimum, size / 2)
        state.withLock { state in
            // Another task may have lowered it already; never raise it here.
            state.size = min(state.size, smaller)
            state.healthy = 0
            state.reductions += 1
        }
        return smaller
    }

    /// A page came back healthy.
    func healthy() {
        state.withLock { state in
            guard state.size < maximum else { return }
            state.healthy += 1
            if state.healthy >= Self.healthyPagesToGrow {
                state.size = min(maximum, state.size * 2)
                state.healthy = 0
            }
        }
    }
}
