import NowSQLite

/// Rows the platform writes on its own account (audit rows, journal entries, attachments): their
/// system fields and the insert.
enum PlatformRows {
    /// The system fields of a row of `table` written by `user` at `now` (`yyyy-MM-dd HH:mm:ss` UTC).
    static func systemFields(table: String, user: String, now: String) -> [(String, String)] {
        [
            ("sys_created_on", now), ("sys_created_by", user), ("sys_updated_on", now), ("sys_updated_by", user),
            ("sys_mod_count", "0"), ("sys_class_name", table), ("sys_domain", "global"), ("sys_domain_path", "/"),
        ]
    }

    /// Inserts one row of `values` into `table`; an empty value is stored as NULL, as the Table API
    /// stores it (the storage layout of ``Database``).
    static func insert(into table: String, _ values: [(String, String)], db: SQLiteConnection) throws {
        let names = values.map { SQLIdentifier.quote($0.0) }.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.withStatement(
            "INSERT INTO \(SQLIdentifier.quote(table)) (\(names)) VALUES (\(placeholders))"
        ) { statement in
            try statement.bind(values.map { $0.1.isEmpty ? .null : .text($0.1) })
            try statement.step()
        }
    }
}
