import Foundation
import Testing

/// The operation did not finish within the test's own deadline (a hang).
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var seconds: Double
    public var description: String { "did not finish within \(seconds) s" }
}

/// Runs `operation` but gives up after `seconds`, recording an issue, so a hang fails the test instead of
/// blocking the run. The operation runs in its own task (cancelled on expiry), because a hung
/// continuation would keep a task group waiting forever.
///
/// It guards against hangs only: give it a wide margin (a minute or more) over the normal run time,
/// never use it to assert that something is fast.
public func withDeadline<Value: Sendable>(
    _ seconds: Double, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let gate = ResumeOnce<Value>()
    return try await withCheckedThrowingContinuation { continuation in
        gate.set(continuation)
        let work = Task {
            do {
                gate.resume(.success(try await operation()))
            } catch {
                gate.resume(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            if gate.resume(.failure(DeadlineExceeded(seconds: seconds))) {
                Issue.record("operation did not finish within \(seconds) s", sourceLocation: sourceLocation)
                work.cancel()
            }
        }
    }
}

/// Resumes a continuation once, whoever comes first.
private final class ResumeOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var done = false

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Resumes with `result` unless already resumed; returns whether this call resumed.
    @discardableResult
    func resume(_ result: Result<Value, any Error>) -> Bool {
        let continuation: CheckedContinuation<Value, any Error>? = lock.withLock {
            guard !done else { return nil }
            done = true
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(with: result)
        return continuation != nil
    }
}
