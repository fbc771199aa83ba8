import NowSQLite

extension Database {
    /// How a numbered table's `number` values look: ServiceNow's default prefixes and first values.
    public struct NumberFormat: Sendable, Hashable {
        /// The prefix, e.g. `INC`.
        public var prefix: String
        /// The first number handed out, e.g. 10001 for `INC0010001`.
        public var first: Int
        /// The minimum number of digits (zero-padded), 7 on ServiceNow.
        public var digits: Int

        /// `prefix` followed by `value` zero-padded to `digits`.
        public func format(_ value: Int) -> String {
            var bytes = Array(prefix.utf8)
            DecimalText.appendPadded(value, width: digits, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The number format of `table`, or `nil` when its rows have no generated number.
    public static func numberFormat(for table: String) -> NumberFormat? {
        switch table {
        case "task": return NumberFormat(prefix: "TASK", first: 10_001, digits: 7)
        case "incident": return NumberFormat(prefix: "INC", first: 10_001, digits: 7)
        case "problem": return NumberFormat(prefix: "PRB", first: 40_001, digits: 7)
        case "change_request": return NumberFormat(prefix: "CHG", first: 30_001, digits: 7)
        default: return nil
        }
    }

    /// The `number` for a new row of `table` (`INC0010001` in an empty database), or `nil` when the
    /// table has no number format.
    ///
    /// Finds the highest existing number with the table's prefix through the `number` index (two
    /// index probes, fast on any table size), so call it inside the write transaction that inserts
    /// the row. Numbers are compared as text, which orders them numerically while they have the
    /// standard 7 digits (below 10 million); past that the probe skips forward until it finds a free
    /// number, which is correct but slower.
    /// - Throws: `SQLiteError` when SQLite fails.
    public static func nextNumber(for table: String, connection: SQLiteConnection) throws -> String? {
        guard let format = numberFormat(for: table) else { return nil }
        let storage = SQLIdentifier.quote(StandardSchema.root(of: table))
        var candidate = format.first
        let highest = try connection.withStatement(
            "SELECT number FROM \(storage) WHERE number >= ? AND number < ? ORDER BY number DESC LIMIT 1"
        ) { highest -> Int? in
            try highest.bind(format.prefix + "0", at: 1)
            try highest.bind(format.prefix + ":", at: 2)
            guard try highest.step(), let number = highest.text(0) else { return nil }
            return Int(number.dropFirst(format.prefix.count))
        }
        if let highest { candidate = max(candidate, highest + 1) }
        return try connection.withStatement("SELECT 1 FROM \(storage) WHERE number = ? LIMIT 1") { exists in
            while true {
                let number = format.format(candidate)
                exists.reset()
                try exists.bind(number, at: 1)
                if try !exists.step() { return number }
                candidate += 1
            }
        }
    }
}
