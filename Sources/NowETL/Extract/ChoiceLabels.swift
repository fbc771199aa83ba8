/// The choice labels of one table, as `choice_labels: true` loads them into `<table>__choices`: the
/// active `sys_choice` rows of the table's hierarchy that apply to it (``applying(_:chain:)``).
public struct ChoiceLabels: Sendable, Hashable {
    /// One choice: a stored value of a field and its label in one language.
    public struct Row: Sendable, Hashable {
        /// The field (`sys_choice.element`).
        public var element: String
        /// The stored value (`sys_choice.value`).
        public var value: String
        /// The label people see (`sys_choice.label`): any text.
        public var label: String
        /// The label's language (`sys_choice.language`; `en` where the instance left it empty, as it reads it).
        public var language: String
        /// The position in the field's list (`sys_choice.sequence`), `nil` when unset.
        public var sequence: Int?
        /// The value of the field this choice depends on (`sys_choice.dependent_value`: a subcategory's
        /// category), `nil` for none.
        public var dependentValue: String?
    }

    /// The pipeline table.
    public var table: String
    /// The rows, ordered by element, language, sequence (unset last), value and label.
    public var rows: [Row]

    /// Creates the labels of `table`; `rows` are kept in the order given.
    public init(table: String, rows: [Row]) {
        self.table = table
        self.rows = rows
    }

    /// The rows that apply to the table whose hierarchy is `chain` (the table first, then its ancestors),
    /// from its active `sys_choice` rows by the table (`sys_choice.name`) that defines them — as the
    /// instance builds a field's choice list: a table's own choices for a field replace the inherited
    /// ones (`incident.state` over `task.state`), and a field with none of its own inherits the nearest
    /// ancestor's (`incident.priority` is `task.priority`'s). Per field, every row of the nearest table
    /// in `chain` that has active rows for it, in all its languages; ordered as ``rows``.
    static func applying(_ rowsByTable: [(table: String, row: Row)], chain: [String]) -> [Row] {
        var nearest: [String: Int] = [:]
        for (table, row) in rowsByTable {
            guard let depth = chain.firstIndex(of: table) else { continue }
            nearest[row.element] = min(nearest[row.element] ?? depth, depth)
        }
        let applying = rowsByTable.filter { nearest[$0.row.element] == chain.firstIndex(of: $0.table) }.map(\.row)
        return applying.sorted { left, right in
            if left.element != right.element { return left.element < right.element }
            if left.language != right.language { return left.language < right.language }
            if left.sequence != right.sequence {
                return (left.sequence ?? Int.max) < (right.sequence ?? Int.max)
            }
            if left.value != right.value { return left.value < right.value }
            return left.label < right.label
        }
    }
}
