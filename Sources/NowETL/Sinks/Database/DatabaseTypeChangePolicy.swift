/// What a database output does when a column of the table it loads has another type than the
/// database's column of that name (`on_type_change:`).
public enum DatabaseTypeChangePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fail the table, naming table, column, old and new type; the database is left as it was.
    case fail
    /// Drop the table and create it anew with the new types: this run's rows only (for a full table a
    /// full reload; for an incremental one, only what changed — run it with `--full-refresh`).
    case recreate
}
