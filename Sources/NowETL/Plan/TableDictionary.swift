/// What `sys_db_object` and `sys_dictionary` say about one table: its chain of ancestors and its fields,
/// inherited ones included.
public struct TableDictionary: Sendable, Hashable {
    /// The table.
    public var table: String
    /// The table and its ancestors, child first (`incident`, `task`).
    public var chain: [String]
    /// The fields, own and inherited, sorted by name.
    public var fields: [DictionaryField]

    /// Creates a dictionary.
    public init(table: String, chain: [String], fields: [DictionaryField]) {
        self.table = table
        self.chain = chain
        self.fields = fields
    }

    /// The field named `name`, if the table or an ancestor defines it.
    public func field(named name: String) -> DictionaryField? {
        fields.first { $0.name == name }
    }

    /// `incident`, or `incident (or task, which it extends)`, for messages.
    var describedWithAncestors: String {
        guard chain.count > 1 else { return table }
        return "\(table) (or \(chain.dropFirst().joined(separator: ", ")), which it extends)"
    }
}
