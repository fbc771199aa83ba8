import Foundation

/// Runs blocking `work` (process waits, socket reads, polling) on a thread of its own.
///
/// Swift's cooperative pool has one thread per core, two on our machines; a test that blocks one
/// of them stalls every other async test in the run, which turns timing checks flaky.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
