/// A field of a table as its `sys_dictionary` row describes it (own or inherited).
public struct DictionaryField: Sendable, Hashable {
    /// The column name (`element`).
    public var name: String
    /// The field type (`internal_type`): `string`, `integer`, `reference`, `glide_date_time`, …
    public var internalType: String
    /// The referenced table of a reference field.
    public var reference: String?
    /// The table in the hierarchy whose dictionary row defines the field.
    public var definedOn: String
    /// Whether the field has a choice list (`choice` set): its stored value is the choice's value, its
    /// display value the label.
    public var isChoice: Bool = false
    /// The field this one depends on (`dependent_on_field`, or the older `dependent`): for a
    /// `document_id` field, the field that names the referenced record's table.
    public var dependentOnField: String? = nil

    /// The column type a database output gives the field's stored value: `integer`/`longint` → int,
    /// `decimal`/`float`/`currency`/`price` → decimal, `boolean` → bool, `glide_date_time`/`due_date`
    /// → datetime, `glide_date` → date, `glide_duration`/`timer` → duration, anything else (references
    /// included: they hold the sys_id) → string.
    public var columnType: ColumnType {
        switch internalType {
        case "integer", "longint": .int
        case "decimal", "float", "currency", "price": .decimal
        case "boolean": .bool
        case "glide_date_time", "due_date": .dateTime
        case "glide_date": .date
        case "glide_duration", "timer": .duration
        default: .string
        }
    }

    /// Whether the field holds a sys_id of another record (`reference`, `document_id`, and `domain_id`,
    /// the reference to `sys_domain` domain-separated tables carry).
    public var isReference: Bool {
        internalType == "reference" || internalType == "document_id" || internalType == "domain_id"
    }

    /// What the field's stored value points at, for the sys_id maps of a migration: a `reference` or
    /// `glide_list` with a referenced table, a `document_id` with the field naming its table; `nil`
    /// otherwise.
    public var target: FieldTarget? {
        switch internalType {
        case "reference": reference.map { .record(table: $0) }
        case "glide_list": reference.map { .records(table: $0) }
        case "document_id": dependentOnField.map { .document(tableField: $0) }
        default: nil
        }
    }
}
