import NowSQLite

/// Which rows of a requested table one caller sees under the read ACLs, class by class.
///
/// A list or record read of `task` returns rows of its child classes too, so each class of the
/// table's class set is judged by its own rules (the most specific table with a rule decides, see
/// ``AccessRules``): rows of a class the caller may not read are hidden, rows of a class with a row
/// rule must match it. Whether the requested table itself is readable (403) is decided before.
struct RowVisibility {
    /// What the rules say about one class.
    struct Access: Equatable {
        /// Whether the caller may read the class.
        var readable: Bool
        /// The encoded query the class's rows must match, `nil` for all rows.
        var condition: String?
    }

    /// The requested table.
    let table: TableDefinition
    /// The requested table's own access.
    let own: Access
    /// The child classes whose access differs from ``own``, with their definitions.
    let exceptions: [(table: TableDefinition, access: Access)]

    /// The visibility of `table`'s rows to `caller`, or `nil` when every row is visible.
    init?(rules: AccessRules, caller: Caller, table: TableDefinition, catalog: Catalog) {
        // Without rules (most servers) no class needs looking at.
        if rules.tableRules.isEmpty && rules.rowRules.isEmpty { return nil }
        func access(_ definition: TableDefinition) -> Access {
            Access(
                readable: rules.mayRead(definition, caller: caller, catalog: catalog),
                condition: rules.rowCondition(for: caller, on: definition, catalog: catalog))
        }
        let own = access(table)
        var exceptions: [(table: TableDefinition, access: Access)] = []
        for name in table.classNames where name != table.name {
            guard let child = catalog.table(name) else { continue }
            let childAccess = access(child)
            if childAccess != own { exceptions.append((child, childAccess)) }
        }
        if exceptions.isEmpty && own.readable && own.condition == nil { return nil }
        self.table = table
        self.own = own
        self.exceptions = exceptions
    }

    /// The SQL condition (true = visible) on the rows behind `joins` (whose base is ``table``).
    ///
    /// `compile` turns a row rule into SQL on a plan; the requested table's rule is compiled on
    /// `joins` (adding the joins it dot-walks), a child class's own rule on a plan of its own inside
    /// a subquery, since its fields may be the child's only.
    func sql(
        joins: JoinPlan, catalog: Catalog, compile: (String, JoinPlan) -> (sql: String, parameters: [SQLiteValue])
    ) -> (sql: String, parameters: [SQLiteValue]) {
        func expression(_ access: Access, on definition: TableDefinition) -> (String, [SQLiteValue]) {
            guard access.readable else { return ("0", []) }
            guard let condition = access.condition else { return ("1", []) }
            if condition == own.condition || definition.name == table.name {
                let compiled = compile(condition, joins)
                return ("(\(compiled.sql))", compiled.parameters)
            }
            let plan = JoinPlan(catalog: catalog, base: definition)
            let compiled = compile(condition, plan)
            return (
                "t.\"sys_id\" IN (SELECT t.\"sys_id\" \(plan.fromClause) WHERE \(compiled.sql))", compiled.parameters
            )
        }
        let (ownSQL, ownParameters) = expression(own, on: table)
        if exceptions.isEmpty { return (ownSQL, ownParameters) }
        var sql = "CASE t.\"sys_class_name\""
        var parameters: [SQLiteValue] = []
        for exception in exceptions {
            let (childSQL, childParameters) = expression(exception.access, on: exception.table)
            sql += " WHEN ? THEN \(childSQL)"
            parameters.append(.text(exception.table.name))
            parameters += childParameters
        }
        sql += " ELSE \(ownSQL) END"
        return (sql, parameters + ownParameters)
    }
}
