import Foundation
import NowQuery
import NowSQLite

extension Seeder {
    /// The sys_id of the `admin` user on every ServiceNow instance.
    public static let adminSysID = "6816f79cc0a8016401c5a33be04be441"

    /// Makes sure a `sys_user` row with `userName` exists and has `roles`; returns its sys_id.
    ///
    /// An existing user is left as it is (only missing roles are granted). Missing roles are created
    /// in `sys_user_role`; grants are `sys_user_has_role` rows. `admin` gets ServiceNow's well-known
    /// sys_id; other users get one derived from the user name, so recreating a database gives the
    /// same ids. Runs in a savepoint, so it works inside or outside a transaction.
    /// - Parameters:
    ///   - connection: A connection to a nowsim database.
    ///   - userName: `sys_user.user_name`.
    ///   - firstName: `first_name`; `name` becomes "first last".
    ///   - lastName: `last_name`.
    ///   - email: `email`; `nil` leaves it empty.
    ///   - roles: Role names to grant, e.g. `["admin"]`.
    ///   - now: The creation time written to the system fields.
    /// - Throws: `SQLiteError` when SQLite fails.
    @discardableResult
    public static func ensureUser(
        connection: SQLiteConnection, userName: String, firstName: String, lastName: String, email: String? = nil,
        roles: [String] = [], now: Date = Date()
    ) throws -> String {
        try connection.execute("SAVEPOINT nowsim_ensure_user")
        do {
            let seconds = Int(now.timeIntervalSince1970)
            let userID: String
            if let existing = try sysID(connection, "SELECT sys_id FROM sys_user WHERE user_name = ?", userName) {
                userID = existing
            } else {
                userID =
                    userName == "admin"
                    ? adminSysID : derivedSysID(seed: 0x7573_6572, name: userName)
                var writer = try RowWriter(
                    connection: connection, table: "sys_user", columns: StandardSchema.storageColumns(root: "sys_user"))
                writeSystemFields(&writer, sysID: userID, className: "sys_user", now: seconds)
                writer.set(column: "user_name", userName)
                writer.set(column: "first_name", firstName)
                writer.set(column: "last_name", lastName)
                writer.set(column: "name", [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " "))
                writer.set(column: "email", email)
                writer.set(column: "active", "true")
                writer.set(column: "locked_out", "false")
                writer.set(column: "vip", "false")
                writer.set(column: "web_service_access_only", "false")
                writer.set(column: "internal_integration_user", "false")
                writer.set(column: "notification", "2")
                try writer.insert()
            }
            for role in roles {
                let roleID = try ensureRole(connection, name: role, now: seconds)
                let granted = try sysID(
                    connection, "SELECT sys_id FROM sys_user_has_role WHERE \"user\" = ? AND role = ?", userID, roleID)
                guard granted == nil else { continue }
                var writer = try RowWriter(
                    connection: connection, table: "sys_user_has_role",
                    columns: StandardSchema.storageColumns(root: "sys_user_has_role"))
                let grantID = derivedSysID(seed: 0x726F_6C65, name: userID + "/" + roleID)
                writeSystemFields(&writer, sysID: grantID, className: "sys_user_has_role", now: seconds)
                writer.set(column: "user", userID)
                writer.set(column: "role", roleID)
                writer.set(column: "state", "active")
                writer.set(column: "inherited", "false")
                try writer.insert()
            }
            try connection.execute("RELEASE nowsim_ensure_user")
            return userID
        } catch {
            try? connection.execute("ROLLBACK TO nowsim_ensure_user")
            try? connection.execute("RELEASE nowsim_ensure_user")
            throw error
        }
    }

    /// The roles granted to `userName` (direct `sys_user_has_role` rows), sorted.
    public static func roles(connection: SQLiteConnection, userName: String) throws -> [String] {
        return try connection.withStatement(
            """
            SELECT DISTINCT r.name FROM sys_user u
            JOIN sys_user_has_role h ON h."user" = u.sys_id
            JOIN sys_user_role r ON r.sys_id = h.role
            WHERE u.user_name = ? AND (h.state IS NULL OR h.state = 'active')
            ORDER BY r.name
            """
        ) { statement in
            try statement.bind(userName, at: 1)
            var names: [String] = []
            while try statement.step() { if let name = statement.text(0) { names.append(name) } }
            return names
        }
    }

    private static func ensureRole(_ connection: SQLiteConnection, name: String, now: Int) throws -> String {
        if let existing = try sysID(connection, "SELECT sys_id FROM sys_user_role WHERE name = ?", name) {
            return existing
        }
        let roleID = derivedSysID(seed: 0x726F_6C65, name: name)
        var writer = try RowWriter(
            connection: connection, table: "sys_user_role",
            columns: StandardSchema.storageColumns(root: "sys_user_role"))
        writeSystemFields(&writer, sysID: roleID, className: "sys_user_role", now: now)
        writer.set(column: "name", name)
        writer.set(column: "elevated_privilege", "false")
        try writer.insert()
        return roleID
    }

    /// A sys_id derived from a name, stable across databases.
    private static func derivedSysID(seed: UInt64, name: String) -> String {
        var random = SeedRandom(seed: seed, stream: name)
        return random.sysID().string
    }

    private static func writeSystemFields(_ writer: inout RowWriter, sysID: String, className: String, now: Int) {
        let timestamp = TableAPIDateFormat.string(fromSeconds: now)
        writer.set(column: "sys_id", sysID)
        writer.set(column: "sys_created_on", timestamp)
        writer.set(column: "sys_created_by", "system")
        writer.set(column: "sys_updated_on", timestamp)
        writer.set(column: "sys_updated_by", "system")
        writer.set(column: "sys_mod_count", "0")
        writer.set(column: "sys_class_name", className)
        writer.set(column: "sys_domain", "global")
        writer.set(column: "sys_domain_path", "/")
    }

    private static func sysID(_ connection: SQLiteConnection, _ sql: String, _ values: String...) throws -> String? {
        return try connection.withStatement(sql) { statement in
            for (offset, value) in values.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
            return try statement.step() ? statement.text(0) : nil
        }
    }
}
