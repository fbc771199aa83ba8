import NowQuery

/// Read ACLs of an instance: which roles may read a table, and which rows of a table a user sees.
///
/// Both follow the table hierarchy as ServiceNow's ACLs do: a rule on `task` covers `incident`
/// unless `incident` has a rule of its own (the most specific table with a rule decides). A read
/// through a parent table (`task`, whose rows include `incident` and `problem` rows) judges each
/// row by its class's rules (`RowVisibility`); 403 is the answer only when the requested table
/// itself is unreadable.
///
/// - A **table rule** (`--table-acl incident=itil+sn_incident_read`) lets only callers holding one
///   of the roles read the table (list, record and Aggregate API); everyone else gets 403
///   `Insufficient rights to query records`. `admin` reads everything. Tables without a rule are
///   readable by every authenticated caller (the Table API ACLs ship inactive, ref §2.1), except
///   the ``adminOnlyTables`` (`sys_audit_delete`), which only `admin` reads unless a rule names them.
/// - A **row rule** (`--row-acl etl:incident:assignment_group=abc^active=true`) hides the rows of
///   the table that do not match the encoded query from that user. Like a real row-level ACL it
///   acts after `sysparm_limit`, so pages come back short (or empty) while more rows follow, and a
///   hidden record reads as 404 `No Record found`; `X-Total-Count` and Aggregate API counts are
///   taken before it, as an instance counts before ACLs (ref §2.1, §3.2), just like the `acl-hide`
///   fault; the Aggregate API's `min`/`max`/`avg`/`sum` and group-by values cover only the rows
///   the user sees.
public struct AccessRules: Sendable, Equatable {
    /// Roles that may read a table.
    public struct TableRule: Sendable, Equatable, CustomStringConvertible {
        /// The table the rule is written on (it covers the table's children too).
        public var table: String
        /// Roles of which a caller needs one.
        public var roles: [String]

        /// Creates a rule.
        public init(table: String, roles: [String]) {
            self.table = table
            self.roles = roles
        }

        /// Parses `TABLE=ROLE[+ROLE…]`, e.g. `incident=itil+sn_incident_read`.
        ///
        /// - Throws: ``AccessRules/ParseError`` for an empty table, no `=`, or an empty role.
        public init(parsing specification: String) throws(ParseError) {
            let parts = specification.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let roles = parts.count == 2 ? parts[1].split(separator: "+", omittingEmptySubsequences: false) : []
            guard parts.count == 2, !parts[0].isEmpty, !roles.isEmpty, !roles.contains(where: \.isEmpty) else {
                throw ParseError(description: "table ACL '\(specification)': expected TABLE=ROLE[+ROLE…]")
            }
            self.init(table: String(parts[0]), roles: roles.map(String.init))
        }

        /// `TABLE=ROLE+ROLE`.
        public var description: String { "\(table)=\(roles.joined(separator: "+"))" }
    }

    /// The rows of a table one user sees.
    public struct RowRule: Sendable, Equatable, CustomStringConvertible {
        /// The user (`sys_user.user_name`) the rule restricts.
        public var userName: String
        /// The table the rule is written on (it covers the table's children too).
        public var table: String
        /// The encoded query the user's rows must match.
        public var query: String

        /// `USER:TABLE:QUERY`.
        public var description: String { "\(userName):\(table):\(query)" }
    }

    /// A rule specification that cannot be used; the description names it and the expected form.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The table rules.
    public var tableRules: [TableRule]
    /// The row rules.
    public var rowRules: [RowRule]

    /// Creates rules (none by default: every caller reads every row).
    public init(tableRules: [TableRule] = [], rowRules: [RowRule] = []) {
        self.tableRules = tableRules
        self.rowRules = rowRules
    }

    /// The tables the rules name that `catalog` does not know, for a start-up check.
    public func unknownTables(in catalog: Catalog) -> [String] {
        (tableRules.map(\.table) + rowRules.map(\.table)).filter { catalog.table($0) == nil }
    }

    /// What is wrong with the row rules' field names, one message per unknown name naming its rule,
    /// for a start-up check: every field a rule's query names (condition, compared and sort fields)
    /// must be a column of the rule's table, its own or inherited, dot-walked through references.
    ///
    /// The query compiler drops a condition on an unknown field, as an instance does with
    /// `sysparm_query`, so a misspelt rule would show every row. Rules on unknown tables are left
    /// to ``unknownTables(in:)``.
    public func unknownFields(in catalog: Catalog) -> [String] {
        var problems: [String] = []
        for rule in rowRules {
            guard let table = catalog.table(rule.table) else { continue }
            let references: [EncodedQuery.FieldReference]
            do {
                references = try EncodedQuery.fieldReferences(in: rule.query)
            } catch {
                problems.append("row ACL '\(rule)': the query does not parse: \(error)")
                continue
            }
            let joins = JoinPlan(catalog: catalog, base: table)
            for reference in references where joins.resolve(reference.field) == nil {
                problems.append("row ACL '\(rule)': unknown field '\(reference.field)' on table '\(table.name)'")
            }
        }
        return problems
    }

    /// Tables that only `admin` reads when no table rule names them, as on an instance:
    /// `sys_audit_delete` (the deleted records) and `sys_audit` (field history). A rule such as `--table-acl sys_audit_delete=itil`
    /// replaces the default, like any rule on a more specific table.
    public static let adminOnlyTables: Set<String> = ["sys_audit_delete", "sys_audit"]

    /// Whether `caller` may read `table`.
    ///
    /// `admin` reads everything; otherwise the most specific table of `table`'s lineage with a
    /// table rule (or, without one, in ``adminOnlyTables``) decides; no rule at all means readable.
    public func mayRead(_ table: TableDefinition, caller: Caller, catalog: Catalog) -> Bool {
        if caller.isAdmin { return true }
        for name in Self.lineage(of: table, catalog: catalog) {
            let rules = tableRules.filter { $0.table == name }
            if rules.isEmpty {
                if Self.adminOnlyTables.contains(name) { return false }
                continue
            }
            return rules.contains { rule in rule.roles.contains { caller.roles.contains($0) } }
        }
        return true
    }

    /// The encoded query `caller`'s rows of `table` must match, or `nil` when all rows are visible.
    public func rowCondition(for caller: Caller, on table: TableDefinition, catalog: Catalog) -> String? {
        if rowRules.isEmpty { return nil }
        for name in Self.lineage(of: table, catalog: catalog) {
            let rules = rowRules.filter { $0.userName == caller.userName && $0.table == name }
            if rules.isEmpty { continue }
            // Several rules on one table: a row visible under any of them is visible.
            return rules.map(\.query).joined(separator: "^NQ")
        }
        return nil
    }

    /// `table`'s name and its ancestors', most specific first.
    private static func lineage(of table: TableDefinition, catalog: Catalog) -> [String] {
        var names = [table.name]
        var current = table
        while let parent = current.superClass.flatMap({ catalog.table($0) }), !names.contains(parent.name) {
            names.append(parent.name)
            current = parent
        }
        return names
    }
}

extension AccessRules.RowRule {
    /// Parses `USER:TABLE:ENCODED_QUERY`; the query is everything after the second `:` (it may
    /// contain `:` itself, as in `javascript:gs.daysAgoStart(7)`).
    ///
    /// - Throws: ``AccessRules/ParseError`` for an empty user, table or query, or a query that
    ///   does not parse.
    public init(parsing specification: String) throws(AccessRules.ParseError) {
        let parts = specification.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw AccessRules.ParseError(description: "row ACL '\(specification)': expected USER:TABLE:ENCODED_QUERY")
        }
        do {
            _ = try EncodedQuery(parsing: String(parts[2]))
        } catch {
            throw AccessRules.ParseError(description: "row ACL '\(specification)': the query does not parse: \(error)")
        }
        self.init(userName: String(parts[0]), table: String(parts[1]), query: String(parts[2]))
    }
}
