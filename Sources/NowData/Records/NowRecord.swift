/// A table record as a set of fields, independent of the display mode it was fetched in.
///
/// Built by ``Foundation/Data/convertToRecords(options:)`` from any Table API response: each field keeps
/// whatever the instance sent — the stored value, the display value, the reference link — whether the
/// request used `sysparm_display_value=false`, `true` or `all`.
public struct NowRecord: Sendable, Hashable, Identifiable {
    /// The record's sys_id (empty when the response did not include it).
    public var sysId: SysID
    /// The fields by name (dot-walked fields keep their dotted name).
    public var fields: [FieldName: Field]

    /// The record's identity: its sys_id.
    public var id: SysID { sysId }

    /// Creates a record.
    public init(sysId: SysID, fields: [FieldName: Field]) {
        self.sysId = sysId
        self.fields = fields
    }

    /// The field named `name`, if present.
    public subscript(name: FieldName) -> Field? { fields[name] }

    /// One field of a record.
    public struct Field: Sendable, Hashable {
        /// The field name.
        public var name: FieldName
        /// The stored value (`sys_id` for references, `"4"` for a choice), when the response carried it.
        public var value: String?
        /// The display value (labels, user-formatted dates), when the response carried it.
        public var displayValue: String?
        /// The reference link (`https://<instance>/api/now/table/<table>/<sys_id>`), for references.
        public var link: String?

        /// Creates a field.
        public init(name: FieldName, value: String? = nil, displayValue: String? = nil, link: String? = nil) {
            self.name = name
            self.value = value
            self.displayValue = displayValue
            self.link = link
        }
    }
}
