extension TableOrder {
    /// The order of `tables` computed from the instance's dictionary (``computed(_:ancestors:)``).
    ///
    /// Reads each table's dictionary through `cache` (the run's name check has usually read them
    /// already), then the `super_class` chain of every table their reference fields point to that is not
    /// one of `tables`, to find references into a run's parent class (a reference to `incident` when the
    /// run reads `task`).
    ///
    /// - Throws: ``NowETLError`` naming the table when the dictionary cannot be read or a table is not in
    ///   `sys_db_object`; ``NowETLError`` (``NowETLError/Code/tableCycle``, exit 78) for a cycle.
    public static func read(_ tables: [String], cache: DictionaryCache, discovery: FieldDiscovery) async throws
        -> TableOrder
    {
        var dictionaries: [TableDictionary] = []
        for table in tables {
            guard let dictionary = try await cache.dictionary(of: table, using: discovery) else {
                throw NowETLError(
                    .failed, table: table,
                    "cannot order the tables: '\(table)' is not in sys_db_object (no such table?)")
            }
            dictionaries.append(dictionary)
        }
        let targets = Set(
            dictionaries.flatMap { $0.fields.filter { $0.internalType == "reference" }.compactMap(\.reference) }
        ).subtracting(tables)
        var ancestors: [String: [String]] = [:]
        for target in targets.sorted() {
            let chain = try await discovery.chain(of: target)
            if !chain.isEmpty { ancestors[target] = chain }
        }
        return try computed(dictionaries, ancestors: ancestors)
    }
}
