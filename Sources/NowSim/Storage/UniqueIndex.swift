import NowSQLite

/// The unique indexes of an instance's database, as nowsim keeps them: which columns have one, how
/// their values compare, and the check every writer makes before it stores a row.
///
/// Which columns: those the dictionary marks `unique` (`sys_dictionary.unique`); nowsim's schema marks
/// `sys_user.user_name`, which has a unique index on every instance (docs/table-api.md §5.2). The
/// index spans the physical table of the hierarchy, as a database index does.
///
/// How values compare: as MySQL/MariaDB's default collations (`utf8_general_ci`, `utf8mb4_general_ci`)
/// compare them — the database behind the `Duplicate entry … for key …` messages instances log — so
/// case does not matter and trailing spaces do not count (PAD SPACE): `Abel.Tuter` and `abel.tuter `
/// collide. SQLite folds ASCII letters only (`COLLATE NOCASE`), where MySQL's collations also fold
/// other letters and accents; nowsim's seeded names are ASCII. Empty values (stored as NULL) never
/// collide, as NULLs in a unique index do not.
///
/// Each storage table also carries the index itself (`CREATE UNIQUE INDEX … (rtrim(col) COLLATE
/// NOCASE)`), so that no path — the seeder, an import, a hand-made edit — can store a duplicate.
enum UniqueIndex {
    /// The statement creating the unique index of `column` on the storage table `table`.
    static func createStatement(table: String, column: String) -> String {
        "CREATE UNIQUE INDEX \(SQLIdentifier.quote("\(table)_\(column)_unique")) ON \(SQLIdentifier.quote(table)) "
            + "(\(keyExpression(column)))"
    }

    /// The indexed expression: the value without trailing spaces, compared without regard to case.
    private static func keyExpression(_ column: String) -> String {
        "rtrim(\(SQLIdentifier.quote(column))) COLLATE NOCASE"
    }

    /// A value that a write would store twice in a unique column.
    struct Violation: Error, Sendable, Equatable {
        /// The unique column (`user_name`).
        var column: String
        /// The value written.
        var value: String
        /// The sys_id of the record that holds the value already.
        var holder: String
    }

    /// The first unique column of `table` whose value in `values` another record of the storage table
    /// (any class) holds already, or `nil`; `sysId` is the record being written, which may keep its
    /// own value. Only the columns present in `values` with a non-empty value are checked.
    static func violation(
        in table: TableDefinition, values: [String: String?], sysId: String, db: SQLiteConnection
    ) throws -> Violation? {
        for column in table.columns where column.unique {
            guard let given = values[column.element], let value = given, !value.isEmpty else { continue }
            let holder = try db.withStatement(
                "SELECT \"sys_id\" FROM \(SQLIdentifier.quote(table.storageTable)) "
                    + "WHERE \(keyExpression(column.element)) = rtrim(?) AND \"sys_id\" <> ? LIMIT 1"
            ) { statement -> String? in
                try statement.bind([.text(value), .text(sysId)])
                return try statement.step() ? statement.text(0) : nil
            }
            if let holder { return Violation(column: column.element, value: value, holder: holder) }
        }
        return nil
    }
}
