/// The SQL text that differs between the databases a ``DatabaseSession`` talks to: quoting, column
/// types, the upsert, the table swap, the catalog query.
///
/// ``SQLiteDialect`` is SQLite's; a PostgreSQL dialect gives `"…"` quoting too, `timestamptz`,
/// `interval`, `numeric`, `boolean`, the same `ON CONFLICT` upsert and `ALTER TABLE … RENAME`.
protocol SQLDialect: Sendable {
    /// `name` as a quoted identifier.
    func quote(_ name: String) -> String
    /// The declared column type for `type` (also what the catalog reports back for it, upper-cased).
    func columnType(_ type: ColumnType) -> String
    /// Statements that replace `table` with `staging` (already loaded) inside the open transaction.
    func swap(staging: String, into table: String) -> [String]
    /// The placeholder of parameter `index` (1-based): `?` in SQLite, `$1` in PostgreSQL.
    func parameter(_ index: Int) -> String
    /// The table `name` as SQL names it: quoted, and qualified by the schema where the database has one.
    func table(_ name: String) -> String
    /// The longest name (in UTF-8 bytes) the database keeps whole; `nil` for no limit.
    var maxIdentifierBytes: Int? { get }
    /// The staging table of `replace` for `table`.
    func stagingName(for table: String) -> String
    /// The name of `table`'s primary key constraint when the dialect names it; `nil` for the database's own.
    func primaryKeyName(of table: String) -> String?
    /// The declared type of a primary key column (and of `_nowetl_loads`' key) of `type`: ``columnType(_:)``
    /// unless the database cannot index that type whole (MySQL's `TEXT`).
    func keyColumnType(_ type: ColumnType) -> String
    /// Whether DDL (`CREATE`, `ALTER`, `DROP`, `RENAME`) runs inside a transaction (SQLite, PostgreSQL);
    /// `false` where each commits implicitly (MySQL): its session runs DDL outside the run's transaction,
    /// and ``DatabaseLoad`` stages what would otherwise change a live table before the COMMIT, swapped in
    /// after it (``DatabaseSession/commitTransaction(generation:table:)``).
    var transactionalDDL: Bool { get }
    /// `CREATE TABLE` of a prune's key set (defaults in the extension, as the next two).
    func createKeyTable(_ name: String) -> String
    /// The index of a filled key table; `nil` when ``createKeyTable(_:)`` made it already.
    func indexKeyTable(_ name: String) -> String?
    /// `DROP TABLE` of a key table.
    func dropKeyTable(_ name: String) -> String
}

extension SQLDialect {
    var maxIdentifierBytes: Int? { nil }

    func stagingName(for table: String) -> String { table + DatabaseLoad.stagingSuffix }

    func primaryKeyName(of table: String) -> String? { nil }

    func keyColumnType(_ type: ColumnType) -> String { columnType(type) }

    var transactionalDDL: Bool { true }

    /// `CREATE TABLE` with `columns` (name, type), `sys_id` the primary key when `key` names it.
    func createTable(_ table: String, columns: [(name: String, type: ColumnType)], key: String?) -> String {
        let constraint = primaryKeyName(of: table)
        var definitions = columns.map { column in
            "\(quote(column.name)) \(column.name == key ? keyColumnType(column.type) : columnType(column.type))"
                + (column.name == key && constraint == nil ? " PRIMARY KEY" : "")
        }
        if let key, let constraint { definitions.append("CONSTRAINT \(quote(constraint)) PRIMARY KEY (\(quote(key)))") }
        return "CREATE TABLE \(self.table(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// `INSERT` of `columns`, one row of parameters; with `upsertKey`, `ON CONFLICT(key) DO UPDATE` of
    /// every other column.
    func insert(into table: String, columns: [String], upsertKey: String?) -> String {
        let names = columns.map(quote).joined(separator: ", ")
        let parameters = (0..<columns.count).map { parameter($0 + 1) }.joined(separator: ", ")
        var sql = "INSERT INTO \(self.table(table)) (\(names)) VALUES (\(parameters))"
        if let key = upsertKey {
            let updates = columns.filter { $0 != key }.map { "\(quote($0)) = excluded.\(quote($0))" }
            sql +=
                " ON CONFLICT(\(quote(key))) DO "
                + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
        }
        return sql
    }

    /// `DELETE` of the row whose `key` is the one parameter.
    func delete(from table: String, key: String) -> String {
        "DELETE FROM \(self.table(table)) WHERE \(quote(key)) = \(parameter(1))"
    }

    /// A table holding a prune's key set (``DatabaseLoad``): one `sys_id` column, no key, indexed by
    /// ``indexKeyTable(_:)`` once filled; created and dropped inside the run's transaction.
    func createKeyTable(_ name: String) -> String {
        "CREATE TABLE \(table(name)) (\(quote("sys_id")) TEXT NOT NULL)"
    }

    /// The index a filled key table gets before the prune's anti-join reads it.
    func indexKeyTable(_ name: String) -> String? {
        "CREATE INDEX \(quote(name + "_key")) ON \(table(name)) (\(quote("sys_id")))"
    }

    func dropKeyTable(_ name: String) -> String { "DROP TABLE \(table(name))" }

    /// The condition on the rows of `table` whose `sys_id` is not in key table `keys` (and, with
    /// `liveOnly`, whose `_deleted_at` is NULL): an anti-join, which every database plans as one.
    func missing(from table: String, keys: String, liveOnly: Bool) -> String {
        let key = quote("sys_id")
        let live = liveOnly ? "\(self.table(table)).\(quote(TablePlan.deletedAtColumn)) IS NULL AND " : ""
        return live + "NOT EXISTS (SELECT 1 FROM \(self.table(keys)) WHERE \(self.table(keys)).\(key) = "
            + "\(self.table(table)).\(key))"
    }

    /// `UPDATE` of `columns` (parameters 1…n) of the row whose `key` is parameter n + 1.
    func update(_ table: String, columns: [String], key: String) -> String {
        let assignments = columns.enumerated().map { "\(quote($1)) = \(parameter($0 + 1))" }
        return "UPDATE \(self.table(table)) SET \(assignments.joined(separator: ", ")) WHERE \(quote(key)) = "
            + parameter(columns.count + 1)
    }

    /// `ALTER TABLE … ADD COLUMN` (nullable).
    func addColumn(_ column: String, type: ColumnType, to table: String) -> String {
        "ALTER TABLE \(self.table(table)) ADD COLUMN \(quote(column)) \(columnType(type))"
    }
}

/// SQLite's SQL. Column types (their affinity in brackets):
///
/// | column type | declared | stored |
/// |---|---|---|
/// | string | `TEXT` | text |
/// | int | `INTEGER` | integer |
/// | decimal | `NUMERIC` (numeric) | integer or real (SQLite's numeric conversion of the exact text) |
/// | bool | `BOOLEAN` (numeric) | integer 0 / 1 |
/// | datetime | `DATETIME` (numeric) | text `YYYY-MM-DD HH:MM:SS` UTC (sorts as time; SQLite's date functions read it) |
/// | date | `DATE` (numeric) | text `YYYY-MM-DD` |
/// | duration | `INTERVAL` (integer) | integer seconds |
///
/// The declared names differ per column type so that the catalog tells a type change apart
/// (a `TEXT` column that becomes a date-time is one).
struct SQLiteDialect: SQLDialect {
    func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func columnType(_ type: ColumnType) -> String {
        switch type {
        case .string: "TEXT"
        case .int: "INTEGER"
        case .decimal: "NUMERIC"
        case .bool: "BOOLEAN"
        case .dateTime: "DATETIME"
        case .date: "DATE"
        case .duration: "INTERVAL"
        }
    }

    func parameter(_ index: Int) -> String { "?" }

    func table(_ name: String) -> String { quote(name) }

    /// In the connection's own `temp` schema: the main file never holds a prune's keys.
    func createKeyTable(_ name: String) -> String {
        "CREATE TEMP TABLE \(quote(name)) (\(quote("sys_id")) TEXT NOT NULL)"
    }

    func swap(staging: String, into table: String) -> [String] {
        // legacy_alter_table: a reader's view on the table must not make the rename fail (modern
        // SQLite checks every view and trigger, and the view names a table that is gone for a moment).
        [
            "DROP TABLE IF EXISTS \(quote(table))", "PRAGMA legacy_alter_table=ON",
            "ALTER TABLE \(quote(staging)) RENAME TO \(quote(table))", "PRAGMA legacy_alter_table=OFF",
        ]
    }
}
