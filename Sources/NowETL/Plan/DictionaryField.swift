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
}
