/// How an `instance:` output writes a row whose sys_id the target already has (`mode:`).
public enum InstanceWriteMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Insert the rows the target lacks and update the ones it has, by sys_id (the default): a rerun
    /// rewrites the same values, so the target ends equal to the source.
    case upsert
    /// Insert the rows the target lacks; rows it has are left as they are and counted as skipped.
    case insertOnly = "insert_only"
}
