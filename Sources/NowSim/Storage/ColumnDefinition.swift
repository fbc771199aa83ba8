/// How the values of a column compare in queries and sorts.
///
/// Every value is stored as text (ref §5: the Table API renders everything as strings), so the kind
/// decides how a comparison is compiled: numbers must not compare as text (`"10" < "9"`), while
/// date-times in `yyyy-MM-dd HH:mm:ss` already sort chronologically as text.
public enum ComparisonKind: Sendable, Hashable {
    /// Compared as text (SQLite's binary collation on UTF-8).
    case text
    /// Compared as numbers: `integer`, `decimal`, `float` and the other numeric internal types.
    case number
    /// Compared as date-times: `glide_date_time`, `glide_date`, `glide_duration` and relatives.
    case dateTime
    /// `true` / `false`.
    case boolean

    /// The comparison kind for a `sys_dictionary.internal_type` value.
    public init(internalType: String) {
        switch internalType {
        case "integer", "decimal", "float", "longint", "currency", "price", "numeric", "percent_complete",
            "order_index":
            self = .number
        case "glide_date_time", "glide_date", "glide_duration", "glide_time", "due_date", "timer",
            "glide_utc_time", "calendar_date_time", "date", "datetime":
            self = .dateTime
        case "boolean":
            self = .boolean
        default:
            self = .text
        }
    }
}

/// One column of a table as described by its `sys_dictionary` row.
///
/// The column may be inherited: `definedOn` names the table whose dictionary row defines it (for
/// `incident.number` that is `task`, ref §7.4).
public struct ColumnDefinition: Sendable, Hashable {
    /// The column name (`sys_dictionary.element`).
    public var element: String
    /// The column label (`sys_dictionary.column_label`).
    public var label: String
    /// The field type (`sys_dictionary.internal_type`): `string`, `integer`, `boolean`, `reference`,
    /// `glide_date_time`, `GUID`, `journal_input`, …
    public var internalType: String {
        didSet { comparison = ComparisonKind(internalType: internalType) }
    }
    /// The logical maximum length (`sys_dictionary.max_length`); 0 when the row has none.
    public var maxLength: Int
    /// The referenced table of a `reference` column (`sys_dictionary.reference`).
    ///
    /// Also set for `domain_id` columns (`sys_domain` references `sys_user_group`, whose value is
    /// `global`, ref §5), so they render with a link like a reference; `nil` for other types.
    public var reference: String?
    /// The table whose `sys_dictionary` row defines this column (an ancestor for inherited columns).
    public var definedOn: String
    /// Whether the column has a choice list (`sys_dictionary.choice` is set and not 0); the labels
    /// live in `sys_choice` and are looked up with `Catalog.choiceLabel(table:element:value:)`.
    public var hasChoices: Bool
    /// How values compare, derived from `internalType`.
    public private(set) var comparison: ComparisonKind
    /// The dictionary default (`sys_dictionary.default_value`) an insert applies when no value is given.
    public var defaultValue: String?
    /// Whether the dictionary marks the column mandatory.
    public var mandatory: Bool
    /// Whether the dictionary marks the column read-only.
    public var readOnly: Bool
    /// Whether the dictionary marks the column unique (`sys_dictionary.unique`): writes that would
    /// give two rows of the storage table the same value are refused (``UniqueIndex``). Always
    /// `false` for `sys_id`, whose uniqueness the writers check on their own.
    public var unique: Bool

    /// Creates a column definition; `comparison` is derived from `internalType`.
    public init(
        element: String, label: String, internalType: String, maxLength: Int, reference: String?,
        definedOn: String, hasChoices: Bool, defaultValue: String? = nil, mandatory: Bool = false,
        readOnly: Bool = false, unique: Bool = false
    ) {
        self.element = element
        self.label = label
        self.internalType = internalType
        self.maxLength = maxLength
        self.reference = reference
        self.definedOn = definedOn
        self.hasChoices = hasChoices
        self.comparison = ComparisonKind(internalType: internalType)
        self.defaultValue = defaultValue
        self.mandatory = mandatory
        self.readOnly = readOnly
        self.unique = unique
    }

    /// Whether values are sys_ids of rows in `reference` (internal type `reference`).
    public var isReference: Bool { internalType == "reference" && reference != nil }
}
