/// MySQL's and MariaDB's SQL: backtick identifiers (the connection's database is the schema), `?`
/// parameters, the multi-row upsert `INSERT … ON DUPLICATE KEY UPDATE`, and the table swap as
/// `RENAME TABLE` after the COMMIT (see ``MySQLSession`` for why DDL stays out of the transaction).
///
/// | column type | declared | value sent (text, converted by the server in strict mode) |
/// |---|---|---|
/// | string | `LONGTEXT` (`sys_id`, the primary key: `VARCHAR(255)`) | the text, any character, NUL included |
/// | int | `BIGINT` | decimal digits |
/// | decimal | `DECIMAL(65,30)` | the exact text; a value with more than 35 integer or 30 fraction digits is refused, never rounded |
/// | bool | `TINYINT(1)` | `1` / `0` |
/// | datetime | `DATETIME(6)` | `YYYY-MM-DD HH:MM:SS`, UTC (the session's `time_zone` is `+00:00`) |
/// | date | `DATE` | `YYYY-MM-DD` |
/// | duration | `BIGINT` | whole seconds |
///
/// Every text column is `utf8mb4` with the binary collation `utf8mb4_bin`: four-byte characters (emoji)
/// are kept, and two values that differ only in case or accent (two sys_ids, `Open` and `open`) stay two
/// values — also for the primary key. MySQL cannot index a `TEXT` column without a prefix, so the key is
/// a `VARCHAR(255)` (a sys_id is 32 characters; a longer key value is an error in strict mode, never cut).
/// `int` and `duration` are both `BIGINT`: the catalog cannot tell a change between the two.
///
/// Names are at most 64 characters: ``DatabaseLoad`` refuses longer table and column names; the staging
/// and old tables of a swap are shortened with a hash like PostgreSQL's (``PostgresDialect/fitted(_:)``).
struct MySQLDialect: SQLDialect {
    /// The character set and collation of every text column.
    static let textCollation = "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
    /// The largest exact decimal MySQL stores, and the digits it keeps after the point.
    static let decimalPrecision = 65
    /// The digits after the point of ``decimalPrecision``.
    static let decimalScale = 30

    func quote(_ name: String) -> String { "`" + name.replacingOccurrences(of: "`", with: "``") + "`" }

    func table(_ name: String) -> String { quote(name) }

    func columnType(_ type: ColumnType) -> String {
        switch type {
        case .string: "LONGTEXT \(Self.textCollation)"
        case .int, .duration: "BIGINT"
        case .decimal: "DECIMAL(\(Self.decimalPrecision),\(Self.decimalScale))"
        case .bool: "TINYINT(1)"
        case .dateTime: "DATETIME(6)"
        case .date: "DATE"
        }
    }

    func keyColumnType(_ type: ColumnType) -> String {
        type == .string ? "VARCHAR(255) \(Self.textCollation)" : columnType(type)
    }

    /// The dialect's type name (upper-cased, as ``columnType(_:)`` compares) for a column of
    /// `information_schema.columns`: any binary-collated `utf8mb4` text (the key's `VARCHAR` too) is the
    /// string type; text of another collation keeps it in the name, so a table made elsewhere shows as a
    /// type change instead of comparing case-blind.
    func catalogType(dataType: String, columnType: String, collation: String?) -> String {
        let type = dataType.lowercased()
        if ["varchar", "char", "text", "tinytext", "mediumtext", "longtext"].contains(type) {
            guard collation?.lowercased() == "utf8mb4_bin" else {
                return (type + " COLLATE " + (collation ?? "none")).uppercased()
            }
            return self.columnType(.string).uppercased()
        }
        // MariaDB shows a display width (`bigint(20)`) that is not part of the type.
        if type == "bigint" { return "BIGINT" }
        return columnType.uppercased()
    }

    func parameter(_ index: Int) -> String { "?" }

    var maxIdentifierBytes: Int? { 64 }

    var transactionalDDL: Bool { false }

    func stagingName(for table: String) -> String { PostgresDialect.fitted(table + DatabaseLoad.stagingSuffix) }

    /// The name the replaced table has between the swap and its `DROP`.
    func oldName(for table: String) -> String { PostgresDialect.fitted(table + "__nowetl_old") }

    /// Run after the COMMIT (``SQLDialect/transactionalDDL``): `RENAME TABLE` of two tables is atomic, so a
    /// reader sees the old table or the new one, never none; the first load gets an empty table first
    /// (`CREATE … LIKE`), which the rename then replaces. A leftover old table of a swap that was killed
    /// before its `DROP` goes first.
    func swap(staging: String, into table: String) -> [String] {
        let old = oldName(for: table)
        return [
            "DROP TABLE IF EXISTS \(quote(old))",
            "CREATE TABLE IF NOT EXISTS \(quote(table)) LIKE \(quote(staging))",
            "RENAME TABLE \(quote(table)) TO \(quote(old)), \(quote(staging)) TO \(quote(table))",
            "DROP TABLE \(quote(old))",
        ]
    }

    /// A `TEMPORARY` table (of the data connection: neither its `CREATE` nor its `DROP TEMPORARY` commits
    /// the transaction), indexed at its creation, since `CREATE INDEX` would commit.
    func createKeyTable(_ name: String) -> String {
        "CREATE TEMPORARY TABLE \(quote(name)) (\(quote("sys_id")) \(keyColumnType(.string)) NOT NULL, "
            + "KEY (\(quote("sys_id"))))"
    }

    func indexKeyTable(_ name: String) -> String? { nil }

    func dropKeyTable(_ name: String) -> String { "DROP TEMPORARY TABLE \(quote(name))" }

    /// `INSERT` of `rows` rows of `columns` (parameters row after row); with `upsertKey`, `ON DUPLICATE KEY
    /// UPDATE` of every other column from the row inserted (`VALUES(col)`), so that of two rows with one
    /// key in a statement the later wins, as one statement per row would have it.
    func insert(into table: String, columns: [String], upsertKey: String?, rows: Int) -> String {
        let names = columns.map(quote).joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        var sql =
            "INSERT INTO \(self.table(table)) (\(names)) VALUES "
            + Array(repeating: row, count: rows).joined(
                separator: ", ")
        if let key = upsertKey {
            let others = columns.filter { $0 != key }
            let updates = (others.isEmpty ? [key] : others).map { "\(quote($0)) = VALUES(\(quote($0)))" }
            sql += " ON DUPLICATE KEY UPDATE " + updates.joined(separator: ", ")
        }
        return sql
    }
}
