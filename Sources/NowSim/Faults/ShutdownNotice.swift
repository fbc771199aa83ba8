import Foundation

/// Tells requests that wait on purpose (an injected `delay` fault) that nowsim is shutting down, so
/// that they end at once instead of holding up the exit.
///
/// `@unchecked Sendable`: `announced` is only touched under `condition`'s lock.
final class ShutdownNotice: @unchecked Sendable {
    private let condition = NSCondition()
    private var announced = false

    /// Whether shutdown has begun.
    var isAnnounced: Bool {
        condition.lock()
        defer { condition.unlock() }
        return announced
    }

    /// Begins shutdown: every current and later ``sleep(milliseconds:)`` returns at once.
    func announce() {
        condition.lock()
        announced = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits `milliseconds`, or less when shutdown begins; `true` when the whole time passed.
    func sleep(milliseconds: Int) -> Bool {
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        condition.lock()
        defer { condition.unlock() }
        while !announced {
            if !condition.wait(until: deadline) { return true }
        }
        return false
    }
}
