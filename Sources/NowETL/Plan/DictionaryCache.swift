import Synchronization

/// The dictionaries read during one run, by table, so each table's `sys_db_object` and
/// `sys_dictionary` rows are read once however many names, checks and plans ask for them.
///
/// Reads go through the ``FieldDiscovery`` the caller passes (each table run has its own service);
/// the cache only keeps what came back. Two tasks asking for an uncached table at once may both read
/// it; the answers are the same.
public final class DictionaryCache: Sendable {
    private let entries = Mutex<[String: TableDictionary?]>([:])

    /// Creates an empty cache.
    public init() {}

    /// The dictionary of `table` (`nil`: not in `sys_db_object`), read through `discovery` when not cached.
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails (nothing is cached then).
    public func dictionary(of table: String, using discovery: FieldDiscovery) async throws(NowETLError)
        -> TableDictionary?
    {
        if let cached = entries.withLock({ $0[table] }) { return cached }
        let read = try await discovery.dictionary(of: table)
        entries.withLock { $0[table] = .some(read) }
        return read
    }

    /// The fields of `table`, as ``FieldDiscovery/fields(of:)`` returns them, through the cache.
    ///
    /// - Throws: ``NowETLError`` naming the table when a request fails or the table is not in `sys_db_object`.
    public func fields(of table: String, using discovery: FieldDiscovery) async throws(NowETLError)
        -> [DictionaryField]
    {
        guard let dictionary = try await dictionary(of: table, using: discovery) else {
            throw NowETLError(.failed, table: table, "table '\(table)' is not in sys_db_object (no such table?)")
        }
        return dictionary.fields
    }
}
