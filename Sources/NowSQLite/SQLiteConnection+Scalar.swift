extension SQLiteConnection {
    /// The first column of the first row of `sql` as an integer (0 when there is no row).
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile or fails.
    public func scalarInteger(_ sql: String) throws -> Int {
        try withStatement(sql, cached: false) { statement in try statement.step() ? statement.integer(0) : 0 }
    }

    /// The first column of the first row of `sql` as text (`nil` when there is no row or it is NULL).
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile or fails.
    public func scalarText(_ sql: String) throws -> String? {
        try withStatement(sql, cached: false) { statement in try statement.step() ? statement.text(0) : nil }
    }
}
