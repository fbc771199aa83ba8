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
/// The swap (`DROP TABLE old; ALTER TABLE staging RENAME TO name`, only when a `replace` changes the
/// table's columns) is transactional in PostgreSQL: a reader sees the old table until the COMMIT, one
/// blocked on the lock then reads the new one.
///
/// Names are at most 63 bytes (PostgreSQL cuts longer ones): ``DatabaseLoad`` refuses longer table and
/// column names; the names nowetl makes up itself (the staging table, the primary key) are shortened
/// with a hash of the whole name (``fitted(_:)``), the same every run.
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

    var maxIdentifierBytes: Int? { Self.identifierLimit }

    /// PostgreSQL's `NAMEDATALEN - 1`.
    static let identifierLimit = 63

    func stagingName(for table: String) -> String { Self.fitted(table + DatabaseLoad.stagingSuffix) }

    func primaryKeyName(of table: String) -> String? { Self.fitted(table + "_pkey") }

    /// `name` when it fits ``identifierLimit``; otherwise its first bytes (whole characters), `_` and 8 hex
    /// digits of the FNV-1a hash of the whole name — different for names that share a long prefix.
    static func fitted(_ name: String) -> String {
        guard name.utf8.count > identifierLimit else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        var prefix = ""
        for character in name.unicodeScalars {
            guard prefix.utf8.count + String(character).utf8.count <= identifierLimit - 9 else { break }
            prefix.unicodeScalars.append(character)
        }
        let digits = String(UInt32(truncatingIfNeeded: hash ^ (hash >> 32)), radix: 16)
        return prefix + "_" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    func swap(staging: String, into table: String) -> [String] {
        // The primary key's index keeps the staging name through the rename; give it the table's, so that
        // the next replace can create its staging table (index names are unique per schema).
        [
            "DROP TABLE IF EXISTS \(self.table(table))",
            "ALTER TABLE \(self.table(staging)) RENAME TO \(quote(table))",
            "ALTER INDEX IF EXISTS \(self.table(Self.fitted(staging + "_pkey"))) RENAME TO "
                + quote(Self.fitted(table + "_pkey")),
        ]
    }
}
