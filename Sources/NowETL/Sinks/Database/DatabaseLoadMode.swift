/// How a database output loads a table's rows (`mode:`).
public enum DatabaseLoadMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Upsert by `sys_id`; deletion records (``TablePlan/deletedAtColumn`` set) delete by `sys_id`. The
    /// default: right for full and incremental tables alike.
    case merge
    /// Load into a staging table and swap it in for the old one, in one transaction.
    case replace
    /// Insert every row (an event log: deletion records are rows too, with their `_deleted_at`).
    case append
}
