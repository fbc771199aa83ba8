/// A built-in table as nowsim defines it; `Database.create(at:)` turns these into the physical SQLite
/// tables and the `sys_db_object` / `sys_dictionary` / `sys_choice` rows that describe them.
struct TableSpec: Sendable {
    /// The table name.
    var name: String
    /// The table label.
    var label: String
    /// The parent table, or `nil` for a hierarchy root.
    var superClass: String?
    /// Whether other tables may extend it (`sys_db_object.is_extendable`).
    var extendable: Bool
    /// Columns defined on this table (not the inherited ones).
    var columns: [ColumnSpec]
    /// Choice lists this table defines for inherited columns (`incident` redefines `task.state`).
    var choiceOverrides: [ChoiceOverride] = []
}

/// Choices a child table defines for an inherited column.
struct ChoiceOverride: Sendable {
    /// The inherited column.
    var element: String
    /// The child's choice list, which replaces the ancestor's.
    var choices: [ChoiceSpec]
}

/// One column as its `sys_dictionary` row describes it.
struct ColumnSpec: Sendable {
    var element: String
    var label: String
    var internalType: String
    var maxLength: Int
    var reference: String?
    var display = false
    var mandatory = false
    var readOnly = false
    var primary = false
    /// Whether the instance's database has a unique index on the column (`sys_dictionary.unique`);
    /// see ``UniqueIndex`` for how values compare.
    var unique = false
    var defaultValue: String?
    /// The column whose value selects the dependent choices (`subcategory` depends on `category`).
    var dependent: String?
    /// Of a `document_id` column: the column holding the table its sys_id belongs to
    /// (`sys_dictionary.dependent_on_field`, `source_table` for `sysapproval_approver.document_id`).
    var dependentOnField: String?
    /// `sys_dictionary.choice`: 1 "Dropdown with -- None --", 3 "Dropdown without -- None --".
    var choiceMode = 1
    var choices: [ChoiceSpec] = []

    init(
        _ element: String, _ label: String, _ internalType: String, _ maxLength: Int, reference: String? = nil
    ) {
        self.element = element
        self.label = label
        self.internalType = internalType
        self.maxLength = maxLength
        self.reference = reference
    }

    static func string(_ element: String, _ label: String, _ maxLength: Int = 40) -> ColumnSpec {
        ColumnSpec(element, label, "string", maxLength)
    }

    static func text(_ element: String, _ label: String, _ maxLength: Int = 4000) -> ColumnSpec {
        ColumnSpec(element, label, "string", maxLength)
    }

    static func integer(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "integer", 40)
    }

    static func decimal(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "decimal", 15)
    }

    static func boolean(_ element: String, _ label: String, default value: Bool? = nil) -> ColumnSpec {
        var column = ColumnSpec(element, label, "boolean", 40)
        column.defaultValue = value.map { $0 ? "true" : "false" }
        return column
    }

    static func dateTime(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "glide_date_time", 40)
    }

    static func date(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "glide_date", 40)
    }

    static func duration(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "glide_duration", 40)
    }

    static func reference(_ element: String, _ label: String, _ table: String) -> ColumnSpec {
        ColumnSpec(element, label, "reference", 32, reference: table)
    }

    static func journal(_ element: String, _ label: String) -> ColumnSpec {
        ColumnSpec(element, label, "journal_input", 4000)
    }

    /// The same column shown as the table's display value.
    func asDisplay() -> ColumnSpec { with { $0.display = true } }

    /// The same column, mandatory.
    func asMandatory() -> ColumnSpec { with { $0.mandatory = true } }

    /// The same column, read-only.
    func asReadOnly() -> ColumnSpec { with { $0.readOnly = true } }

    /// The same column with a unique index, as the instance's database has on `sys_user.user_name`.
    func asUnique() -> ColumnSpec { with { $0.unique = true } }

    /// The same column with a dictionary default value.
    func withDefault(_ value: String) -> ColumnSpec { with { $0.defaultValue = value } }

    /// The same column with a choice list.
    func withChoices(_ choices: [ChoiceSpec], mode: Int = 1) -> ColumnSpec {
        with {
            $0.choices = choices
            $0.choiceMode = mode
        }
    }

    /// The same column with choices that depend on another column's value.
    func dependent(on element: String) -> ColumnSpec { with { $0.dependent = element } }

    /// The same `document_id` column, its table named by the column `element`.
    func tableIn(_ element: String) -> ColumnSpec { with { $0.dependentOnField = element } }

    /// A copy of the column with `change` made to it: what every modifier above returns.
    private func with(_ change: (inout ColumnSpec) -> Void) -> ColumnSpec {
        var copy = self
        change(&copy)
        return copy
    }
}

/// One `sys_choice` row: a stored value and its label.
struct ChoiceSpec: Sendable {
    var value: String
    var label: String
    var dependentValue: String?

    init(_ value: String, _ label: String, dependentValue: String? = nil) {
        self.value = value
        self.label = label
        self.dependentValue = dependentValue
    }

    /// Choices whose stored value is the label itself (`close_code`, `os`).
    static func same(_ labels: String...) -> [ChoiceSpec] { labels.map { ChoiceSpec($0, $0) } }
}
