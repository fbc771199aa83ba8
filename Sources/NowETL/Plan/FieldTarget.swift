/// What a field's stored value points at, per the dictionary: the sys_ids an instance output maps to
/// the target's when records were matched on keys (``InstanceMatching``).
public enum FieldTarget: Sendable, Hashable {
    /// A `reference` field: one sys_id of a record of `table`.
    case record(table: String)
    /// A `glide_list` field: sys_ids of records of `table`, separated by commas.
    case records(table: String)
    /// A `document_id` field: one sys_id of a record of the table named by the row's `tableField`
    /// (the dictionary's `dependent_on_field`, `source_table` for `sysapproval_approver.document_id`).
    case document(tableField: String)
}
