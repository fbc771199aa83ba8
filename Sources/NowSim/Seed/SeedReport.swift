/// What a seeding run added and how fast.
public struct SeedReport: Sendable, CustomStringConvertible {
    /// The rows added to one table (by class: `incident`, not `task`).
    public struct TableResult: Sendable, Hashable {
        /// The table (the rows' `sys_class_name`).
        public var table: String
        /// Rows added.
        public var rows: Int
        /// Seconds spent generating and inserting them (0 for rows made alongside another table's,
        /// such as `sys_user_grmember` with `sys_user_group`).
        public var seconds: Double

        /// Rows per second for this table (0 when nothing was timed).
        public var rowsPerSecond: Double { seconds > 0 ? Double(rows) / seconds : 0 }
    }

    /// Per table, in seeding order (includes defaults the plan implied, and `sys_user_grmember`).
    public var tables: [TableResult]
    /// Wall time of the whole run: schema creation, generation, index builds and commit.
    public var seconds: Double

    /// All rows added.
    public var totalRows: Int { tables.reduce(0) { $0 + $1.rows } }

    /// All rows added per second of the whole run.
    public var rowsPerSecond: Double { seconds > 0 ? Double(totalRows) / seconds : 0 }

    /// The rows added to `table` (0 when none).
    public func rows(for table: String) -> Int { tables.first { $0.table == table }?.rows ?? 0 }

    /// One line per table and a total line, e.g. `incident  1000000 rows  12.3 s  81234 rows/s`.
    public var description: String {
        let width = max(5, tables.map(\.table.count).max() ?? 0)
        var lines = tables.map { result in
            let rate = result.seconds > 0 ? "\(Int(result.rowsPerSecond)) rows/s" : "(with the table above)"
            return "\(result.table.padding(width))  \(result.rows) rows  \(format(result.seconds)) s  \(rate)"
        }
        lines.append("\("total".padding(width))  \(totalRows) rows  \(format(seconds)) s  \(Int(rowsPerSecond)) rows/s")
        return lines.joined(separator: "\n")
    }

    private func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
