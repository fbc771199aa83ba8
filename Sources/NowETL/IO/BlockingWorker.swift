import Dispatch

/// A serial queue for blocking calls, off the Swift concurrency pool: a ``DatabaseSession``'s (SQLite
/// waits for another writer's lock, libpq for the server), and ``detached(_:)`` for one-off blocking
/// work such as the instance sink's `fsync`ed progress record.
///
/// Those calls block the calling thread, which must never be one of the pool's few threads. Every
/// call of a session's connection goes through its worker's ``perform(_:)``, one after another.
final class BlockingWorker: Sendable {
    private let queue: DispatchQueue

    /// Creates a worker whose queue has `label` (seen in a debugger).
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the worker's queue and waits for it without blocking a concurrency thread.
    func perform<T>(_ body: @escaping () throws -> T) async throws -> T {
        try await Self.run(on: queue, body)
    }

    /// Runs `body` on a global queue (opening a connection, before its session and worker exist).
    static func detached<T>(_ body: @escaping () throws -> T) async throws -> T {
        try await run(on: .global(), body)
    }

    private static func run<T>(on queue: DispatchQueue, _ body: @escaping () throws -> T) async throws -> T {
        let work = UncheckedBox(body)
        let result: UncheckedBox<Result<T, any Error>> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: UncheckedBox(Result { try work.value() })) }
        }
        return try result.value.get()
    }
}

/// A value handed across a worker's queue: the caller hands it over and waits for the call to end,
/// so one thread uses it at a time.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
