/// PostgreSQL's SQL: `"…"` identifiers qualified by the output's schema, real column types, `$n`
/// parameters, and the table swap as DDL inside the run's transaction.
///
/// | column type | declared | value sent (text format) |
/// |---|---|---|
/// | string | `text` | the text |
/// | int | `bigint` | decimal digits |
/// | decimal | `numeric` | the exact text |
/// | bool | `boolean` | `true` / `false` |
/// | datetime | `timestamptz` | `YYYY-MM-DD HH:MM:SS+00` (UTC) |
/// | date | `date` | `YYYY-MM-DD` |
/// | duration | `interval` | `N seconds` |
///
/// The swap (`DROP TABLE old; ALTER TABLE staging RENAME TO name`) is transactional in PostgreSQL: a
/// reader sees the old table until the COMMIT, one blocked on the lock then reads the new one.
struct PostgresDialect: SQLDialect {
    /// The schema every table lives in.
    let schema: String

    func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func table(_ name: String) -> String { quote(schema) + "." + quote(name) }

    func columnType(_ type: ColumnType) -> String {
        switch type {
        case .string: "text"
        case .int: "bigint"
        case .decimal: "numeric"
        case .bool: "boolean"
        case .dateTime: "timestamptz"
        case .date: "date"
        case .duration: "interval"
        }
    }

    /// The dialect's type name (upper-cased, as ``columnType(_:)`` compares) for a `data_type` of
    /// `information_schema.columns`.
    func catalogType(_ dataType: String) -> String {
        switch dataType.lowercased() {
        case "timestamp with time zone": "TIMESTAMPTZ"
        case "timestamp without time zone": "TIMESTAMP"
        case "character varying": "VARCHAR"
        case "integer": "INTEGER"
        default: dataType.uppercased()
        }
    }

    func parameter(_ index: Int) -> String { "$\(index)" }

    func swap(staging: String, into table: String) -> [String] {
        // The primary key's index keeps the staging name through the rename; give it the table's, so that
        // the next replace can create its staging table (index names are unique per schema).
        [
            "DROP TABLE IF EXISTS \(self.table(table))",
            "ALTER TABLE \(self.table(staging)) RENAME TO \(quote(table))",
            "ALTER INDEX IF EXISTS \(self.table(staging + "_pkey")) RENAME TO \(quote(table + "_pkey"))",
        ]
    }
}
