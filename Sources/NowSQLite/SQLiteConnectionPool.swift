import Foundation

/// A fixed set of connections to one database file, each handed out to one thread at a time.
///
/// Connections open on demand, up to the capacity; a caller that finds all of them busy waits.
///
/// `@unchecked Sendable`: `idle` and `opened` are only touched under `lock`, and a connection is in
/// `idle` or with exactly one caller of ``withConnection(_:)``, never both.
public final class SQLiteConnectionPool: @unchecked Sendable {
    /// The database file.
    public let path: String
    private let lock = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private let capacity: Int

    /// Creates a pool of at most `capacity` (at least 1) connections to `path`.
    public init(path: String, capacity: Int) {
        self.path = path
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with a connection of its own, waiting while all are in use.
    ///
    /// `body` must not keep the connection (or its statements) beyond its return. When it returns,
    /// every statement still part-way through is reset and an open transaction rolled back
    /// (``SQLiteConnection/releaseSnapshot()``), so the next caller reads the latest commit.
    /// - Throws: ``SQLiteError`` when a new connection cannot be opened; what `body` throws.
    public func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> SQLiteConnection {
        lock.lock()
        while idle.isEmpty && opened >= capacity { lock.wait() }
        if let connection = idle.popLast() {
            lock.unlock()
            return connection
        }
        opened += 1
        lock.unlock()
        do {
            return try SQLiteConnection(path: path)
        } catch {
            lock.lock()
            opened -= 1
            lock.signal()
            lock.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        // Whatever `body` did, the connection goes back without a read snapshot or an open
        // transaction: the next caller must see every commit made so far.
        connection.releaseSnapshot()
        lock.lock()
        idle.append(connection)
        lock.signal()
        lock.unlock()
    }
}
