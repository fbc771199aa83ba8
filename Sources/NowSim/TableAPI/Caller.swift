/// The authenticated user a request runs as, with the roles that decide what it may do.
public struct Caller: Sendable, Hashable {
    /// `sys_user.user_name`; written to `sys_created_by` / `sys_updated_by`.
    public var userName: String
    /// Role names (`admin`, `itil`, `snc_read_only`, …).
    public var roles: [String]

    /// Creates a caller.
    public init(userName: String, roles: [String]) {
        self.userName = userName
        self.roles = roles
    }

    /// Admins may do everything.
    public var isAdmin: Bool { roles.contains("admin") }

    /// Whether the caller may insert, update or delete records of `table`.
    ///
    /// nowsim's ACL model is deliberately small: `admin` writes everything, `itil` writes task
    /// tables, and everyone else (including `snc_read_only`) reads only. Reads are open to every
    /// authenticated caller, as the Table API ACLs ship inactive (ref §2.1), unless ``AccessRules``
    /// (`--table-acl`, `--row-acl`) restrict them.
    public func mayWrite(_ table: TableDefinition, catalog: Catalog) -> Bool {
        if isAdmin { return true }
        if roles.contains("snc_read_only") { return false }
        if roles.contains("itil") { return table.storageTable == "task" }
        return false
    }
}
