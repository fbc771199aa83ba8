/// Resolves dot-walked field names (`caller_id.company.name`) to SQL column expressions, adding one
/// `LEFT JOIN` per reference hop and reusing it for every field that walks the same hop.
///
/// The base table's alias is `t`; joined tables are `j1`, `j2`, … in the order first needed.
final class JoinPlan {
    /// A field resolved to the column that holds it.
    struct ResolvedField {
        /// `alias."column"`.
        var expression: String
        /// The alias of the table the column lives on (`t` or `jN`).
        var alias: String
        /// The column's dictionary entry.
        var column: ColumnDefinition
        /// The table (as addressed, not the storage root) the column belongs to.
        var table: TableDefinition
    }

    let catalog: Catalog
    let base: TableDefinition
    private(set) var joinClauses: [String] = []
    private var joinedAliases: [String: (alias: String, table: TableDefinition)] = [:]

    init(catalog: Catalog, base: TableDefinition) {
        self.catalog = catalog
        self.base = base
    }

    /// The `FROM … LEFT JOIN …` clause for everything resolved so far.
    var fromClause: String {
        var sql = "FROM \(SQLIdentifier.quote(base.storageTable)) AS t"
        for join in joinClauses {
            sql += " "
            sql += join
        }
        return sql
    }

    /// Resolves `dotted` or returns `nil` when any hop is unknown or not a reference.
    func resolve(_ dotted: String) -> ResolvedField? {
        var table = base
        var alias = "t"
        var prefix = ""
        let parts = dotted.split(separator: ".", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            let name = String(part)
            guard let column = table.column(name) else { return nil }
            if index == parts.count - 1 {
                return ResolvedField(
                    expression: "\(alias).\(SQLIdentifier.quote(name))", alias: alias, column: column, table: table)
            }
            guard let target = referenceTable(of: column) else { return nil }
            prefix = prefix.isEmpty ? name : prefix + "." + name
            (alias, table) = join(path: prefix, from: alias, column: name, to: target)
        }
        return nil
    }

    /// The joined alias and table of the record that the reference `field` (already resolved) points at.
    func referencedRecord(of field: ResolvedField, path: String) -> (alias: String, table: TableDefinition)? {
        guard let target = referenceTable(of: field.column) else { return nil }
        return join(path: path, from: field.alias, column: field.column.element, to: target)
    }

    private func referenceTable(of column: ColumnDefinition) -> TableDefinition? {
        guard column.internalType == "reference", let name = column.reference else { return nil }
        return catalog.table(name)
    }

    private func join(path: String, from alias: String, column: String, to target: TableDefinition)
        -> (alias: String, table: TableDefinition)
    {
        if let existing = joinedAliases[path] { return existing }
        let newAlias = "j\(joinClauses.count + 1)"
        joinClauses.append(
            "LEFT JOIN \(SQLIdentifier.quote(target.storageTable)) AS \(newAlias) ON \(newAlias).\"sys_id\" = \(alias).\(SQLIdentifier.quote(column))"
        )
        joinedAliases[path] = (newAlias, target)
        return (newAlias, target)
    }
}
