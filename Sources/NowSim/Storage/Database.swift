import Foundation
import NowSQLite

/// A nowsim database file: its physical layout and how it comes into being.
///
/// Layout (a contract the Table API, query and seed code rely on):
/// - one physical SQLite table per hierarchy root, named like the root (`task` holds `incident`,
///   `problem` and `change_request` rows; `cmdb_ci` holds `cmdb_ci_server` rows);
/// - its columns are the union of all columns of the hierarchy, every one `TEXT`, identifiers
///   double-quoted; an empty value is stored as NULL (the Table API renders it as `""`);
/// - `sys_id TEXT NOT NULL UNIQUE` in an ordinary rowid table (rowid order is insertion order, not
///   sys_id order) and `sys_class_name` holding each row's concrete table;
/// - indexes on `sys_id` (unique), `sys_updated_on`, `sys_created_on`, `(sys_class_name, sys_id)` and `number`,
///   and a unique index per column the dictionary marks unique (``UniqueIndex``);
/// - `sys_db_object`, `sys_dictionary` and `sys_choice` rows describe every table, themselves included
///   (ref §7.4), so schema discovery works as on an instance and `Catalog.load(from:)` reads them.
public enum Database {
    /// The layout version in `PRAGMA user_version`; a file with another version is refused.
    ///
    /// 2 added `sys_audit_delete`, which every DELETE writes to: a version-1 file lacks it.
    /// 3 added the unique index on `sys_user.user_name` (``UniqueIndex``), `task.watch_list`,
    /// `sys_dictionary.dependent_on_field`, `sysapproval_approver` and the tables of side effects
    /// (`sys_script`, `sysevent_email_action`, `sys_email`, `sys_hub_flow`, `sys_flow_trigger`,
    /// `sys_flow_record_trigger`): a version-2 file lacks them.
    /// 4 added `sys_attachment`, `sys_attachment_doc`, `sys_journal_field` and `sys_audit`.
    public static let schemaVersion: Int32 = 4

    /// `PRAGMA application_id` of nowsim files ("NoWS").
    static let applicationID: Int32 = 0x4E6F_5753

    /// When the built-in schema rows were "created" (fixed, so that two databases are byte-identical).
    static let schemaTimestamp = "2020-01-01 00:00:00"

    /// Creates the physical tables and the schema rows when the file is new or empty; does nothing on
    /// a file that already is a nowsim database of this layout version.
    ///
    /// - Throws: `DatabaseError` when the file holds other tables (not a nowsim database) or a nowsim
    ///   database of another layout version; `SQLiteError` when SQLite fails.
    public static func create(at path: String) throws {
        let connection = try SQLiteConnection(path: path)
        if try isCurrentNowsimDatabase(connection, path: path) { return }
        try connection.transaction {
            // Re-check under the write lock: another process may have created it meanwhile.
            if try isCurrentNowsimDatabase(connection, path: path) { return }
            try createStorageTables(on: connection)
            try insertSchemaRows(on: connection)
            try connection.execute("PRAGMA application_id=\(applicationID)")
            try connection.execute("PRAGMA user_version=\(schemaVersion)")
        }
    }

    /// A path for a new database file in the temporary directory (nowsim's default `--db`).
    public static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("nowsim-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).sqlite")
            .path
    }

    /// Removes a database file together with its `-wal` and `-shm` companions; missing files are fine.
    public static func remove(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// The names of the physical tables (the hierarchy roots).
    public static var storageTables: [String] { StandardSchema.roots }

    /// Whether `connection` is a nowsim database of this version; `false` when it is empty.
    private static func isCurrentNowsimDatabase(_ connection: SQLiteConnection, path: String) throws -> Bool {
        let applicationID = try connection.scalarInteger("PRAGMA application_id")
        let version = try connection.scalarInteger("PRAGMA user_version")
        if applicationID == Int(Self.applicationID) {
            if version == Int(schemaVersion) { return true }
            throw DatabaseError(
                path: path,
                message: "it is a nowsim database of layout version \(version), this nowsim uses \(schemaVersion)",
                hint: "delete the file or choose another --db")
        }
        let tables = try connection.scalarInteger("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        if tables > 0 {
            throw DatabaseError(
                path: path, message: "the file holds \(tables) tables but is not a nowsim database",
                hint: "choose a new or empty file for --db")
        }
        return false
    }

    private static func createStorageTables(on connection: SQLiteConnection) throws {
        for root in StandardSchema.roots {
            let columns = StandardSchema.storageColumns(root: root)
            let table = SQLIdentifier.quote(root)
            let definitions = columns.map { column in
                column == "sys_id" ? "\"sys_id\" TEXT NOT NULL UNIQUE" : "\(SQLIdentifier.quote(column)) TEXT"
            }
            try connection.execute("CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))")
            for column in indexedColumns(of: columns) {
                // The class index carries sys_id too, so that keyset pages of one class
                // (`sys_class_name = ? AND sys_id > ? ORDER BY sys_id`) read the index in order.
                let key = column == "sys_class_name" ? "\"sys_class_name\", \"sys_id\"" : SQLIdentifier.quote(column)
                try connection.execute("CREATE INDEX \(SQLIdentifier.quote("\(root)_\(column)")) ON \(table) (\(key))")
            }
            for index in StandardSchema.extraIndexes where index.table == root {
                let name = SQLIdentifier.quote("\(root)_" + index.columns.joined(separator: "_"))
                let key = index.columns.map(SQLIdentifier.quote).joined(separator: ", ")
                try connection.execute("CREATE INDEX \(name) ON \(table) (\(key))")
            }
            for column in StandardSchema.uniqueColumns(root: root) {
                try connection.execute(UniqueIndex.createStatement(table: root, column: column))
            }
        }
    }

    /// The columns that get a secondary index (the unique `sys_id` index comes with the constraint).
    static func indexedColumns(of columns: [String]) -> [String] {
        ["sys_updated_on", "sys_created_on", "sys_class_name", "number"].filter(columns.contains)
    }
}
