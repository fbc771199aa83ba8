import NowData

extension RequestLimiter {
    /// Runs `body` — one request — holding a slot, and releases the slot by how it ended; a NowData
    /// failure becomes a ``NowETLError`` naming `table` and `step` (`reading sys_journal_field`).
    ///
    /// - Throws: what `body` throws (a NowData failure as ``NowETLError``); `CancellationError` when the
    ///   task is cancelled before it gets a slot.
    func withSlot<T>(table: String, during step: String, _ body: () async throws -> T) async throws -> T {
        try await acquire()
        do {
            let value = try await body()
            release(.healthy)
            return value
        } catch let error as NowDataError {
            let failure = NowETLError(table: table, during: step, error)
            release(failure.limiterOutcome)
            throw failure
        } catch {
            release((error as? NowETLError)?.limiterOutcome ?? .failed)
            throw error
        }
    }
}
