extension SQLiteConnection {
    /// The first column of the first row of `sql` as an integer (0 when there is no row).
    func scalarInteger(_ sql: String) throws -> Int {
        let statement = try prepare(sql, cached: false)
        return try statement.step() ? statement.integer(0) : 0
    }
}
