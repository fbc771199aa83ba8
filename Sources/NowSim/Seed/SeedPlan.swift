/// How many rows of which tables to seed, as given by `--seed TABLE=N[,TABLE=N…]`.
///
/// Tables the plan does not name but the named ones refer to (users, groups, companies, locations,
/// configuration items for incidents) are topped up to default counts (`Seeder.defaultCounts`);
/// naming a table with 0 adds no rows to it.
public struct SeedPlan: Sendable, Hashable, CustomStringConvertible {
    /// One table and its row count.
    public struct Entry: Sendable, Hashable {
        /// The table (one of `SeedPlan.seedableTables`).
        public var table: String
        /// The number of rows to add.
        public var count: Int
    }

    /// The tables that can be seeded, in the order they are seeded (referenced tables first).
    public static let seedableTables = [
        "core_company", "cmn_location", "sys_user", "sys_user_group", "cmdb_ci", "cmdb_ci_server", "problem",
        "change_request", "incident", "sys_journal_field", "sys_attachment", "sysapproval_approver", "sys_script",
        "sysevent_email_action", "sys_hub_flow",
    ]

    /// The largest count accepted for one table.
    public static let maximumCount = 100_000_000

    /// The entries in the order given.
    public private(set) var entries: [Entry]

    /// A plan with the given entries.
    ///
    /// - Throws: `SeedPlanError` for an unknown table, a count out of range or a table named twice.
    public init(_ entries: [Entry]) throws {
        self.entries = []
        for entry in entries {
            let text = "\(entry.table)=\(entry.count)"
            try Self.validate(table: entry.table, in: text)
            guard entry.count >= 0, entry.count <= Self.maximumCount else {
                throw SeedPlanError(entry: text, message: "the count must be between 0 and \(Self.maximumCount)")
            }
            guard !self.entries.contains(where: { $0.table == entry.table }) else {
                throw SeedPlanError(entry: text, message: "\(entry.table) is named twice")
            }
            self.entries.append(entry)
        }
    }

    /// Parses `TABLE=N[,TABLE=N…]`, e.g. `incident=1000000,sys_user=500`.
    ///
    /// Spaces around names and counts are ignored; counts may group digits with `_`.
    /// - Throws: `SeedPlanError` naming the offending entry.
    public init(parsing text: String) throws {
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.trimmingSpaces.isEmpty else {
            throw SeedPlanError(entry: text, message: "the plan is empty; expected TABLE=N[,TABLE=N…]")
        }
        var entries: [Entry] = []
        for piece in pieces {
            let entry = String(piece).trimmingSpaces
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw SeedPlanError(entry: entry, message: "expected TABLE=N, e.g. incident=1000")
            }
            let table = String(parts[0]).trimmingSpaces
            let countText = String(parts[1]).trimmingSpaces
            try Self.validate(table: table, in: entry)
            let digits = countText.filter { $0 != "_" }
            guard !digits.isEmpty, !countText.hasPrefix("_"), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw SeedPlanError(entry: entry, message: "\"\(countText)\" is not a whole number of rows")
            }
            guard digits.count <= 9, let count = Int(digits), count <= Self.maximumCount else {
                throw SeedPlanError(entry: entry, message: "the count must be between 0 and \(Self.maximumCount)")
            }
            entries.append(Entry(table: table, count: count))
        }
        try self.init(entries)
    }

    /// The count the plan gives `table`, or `nil` when it does not name it.
    public func count(for table: String) -> Int? { entries.first { $0.table == table }?.count }

    /// The plan as `TABLE=N,…`.
    public var description: String { entries.map { "\($0.table)=\($0.count)" }.joined(separator: ",") }

    private static func validate(table: String, in entry: String) throws {
        guard !table.isEmpty else { throw SeedPlanError(entry: entry, message: "the table name is missing") }
        guard seedableTables.contains(table) else {
            let hint =
                table == "task"
                ? "task rows are seeded as incident, problem or change_request"
                : "seedable tables: \(seedableTables.joined(separator: ", "))"
            throw SeedPlanError(entry: entry, message: "\(table) cannot be seeded (\(hint))")
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
