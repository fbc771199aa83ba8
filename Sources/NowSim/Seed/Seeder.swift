import NowSQLite

/// Fills a nowsim database with realistic, deterministic data: companies, locations, users, groups,
/// configuration items, problems, changes and incidents.
///
/// Determinism: every table draws from its own xoshiro256** stream derived from the seed value, and
/// all timestamps lie in a fixed window (2021-01-01 to 2026-01-01 UTC), so the same seed value and
/// plan on the same starting database give byte-identical rows.
///
/// Realism: references point at existing rows (callers' companies and locations, assignees that are
/// members of the assignment group), some references are empty, choices use ServiceNow's values,
/// states agree with `active`, `closed_at` and `resolved_at`, priorities follow the impact × urgency
/// matrix, and a deterministic fraction of rows carries awkward text (`AwkwardText`): every 16th
/// incident has one category in rotation, every 1000th a 20–60 KB description, every 2500th
/// characters XML 1.0 forbids.
///
/// Speed: one transaction, prepared inserts fed from a byte arena (`RowWriter`), synchronous off,
/// and a large page cache.
public final class Seeder {
    /// First second of the seeded time window (2021-01-01 00:00:00 UTC).
    static let windowStart = 1_609_459_200
    /// End of the seeded time window (2026-01-01 00:00:00 UTC); "now" for seeded data.
    static let windowEnd = 1_767_225_600

    /// Default row counts for referenced tables the plan does not name and the database lacks.
    public static let defaultCounts: [(table: String, count: Int)] = [
        ("core_company", 30), ("cmn_location", 50), ("sys_user", 200), ("sys_user_group", 20), ("cmdb_ci", 200),
        ("cmdb_ci_server", 100),
    ]

    let connection: SQLiteConnection
    let seedValue: UInt64
    /// Mixed into every seeded sys_id (`--sys-id-salt`, ``SeedRandom/sysIDSalt``).
    let sysIDSalt: SysIDBits?
    let progress: ((String, Int) -> Void)?
    var pools = SeedPools()
    lazy var texts = SeedTexts(seedValue: seedValue)
    var results: [SeedReport.TableResult] = []

    init(connection: SQLiteConnection, seedValue: UInt64, sysIDSalt: SysIDBits?, progress: ((String, Int) -> Void)?) {
        self.connection = connection
        self.seedValue = seedValue
        self.sysIDSalt = sysIDSalt
        self.progress = progress
    }

    /// Seeds the database at `path` (creating it when new) according to `plan`.
    ///
    /// Tables the seeded rows refer to but the plan does not name are topped up to `defaultCounts`
    /// (a database with only `admin` gets 199 more users; one with 500 users gets none); configuration
    /// items are seeded only when there are none. Naming a table with 0 keeps it as it is.
    /// - Parameters:
    ///   - path: The database file.
    ///   - plan: Which tables to fill with how many rows.
    ///   - seedValue: The seed of all generated values (`--seed-value`).
    ///   - sysIDSalt: `--sys-id-salt`: a non-empty text gives every seeded record another sys_id and
    ///     changes nothing else (a second instance with the same people under sys_ids of its own);
    ///     empty, the default, seeds the sys_ids of the seed value alone.
    ///   - progress: Called with a table and the rows seeded so far, every 50 000 rows and at the end
    ///     of each table, on the calling thread.
    /// - Returns: The rows added per table and the rates.
    /// - Throws: `DatabaseError` when the file is not a usable nowsim database; `SQLiteError` when an
    ///   insert fails (the whole run is rolled back).
    public static func seed(
        databaseAt path: String, plan: SeedPlan, seedValue: UInt64, sysIDSalt: String = "",
        progress: ((String, Int) -> Void)? = nil
    ) throws -> SeedReport {
        let clock = ContinuousClock()
        let started = clock.now
        try Database.create(at: path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA synchronous=OFF")
        try connection.execute("PRAGMA cache_size=-262144")
        try connection.execute("PRAGMA temp_store=MEMORY")
        defer { try? connection.execute("PRAGMA synchronous=NORMAL") }

        let seeder = Seeder(
            connection: connection, seedValue: seedValue, sysIDSalt: SeedRandom.sysIDSalt(sysIDSalt), progress: progress
        )
        // A rollback journal instead of WAL: a bulk load into new pages journals almost nothing, while
        // WAL would write every page twice (log, then checkpoint). Still atomic and crash-safe. Only
        // possible while no other connection has the file open; otherwise stay in WAL.
        let leftWAL = (try? connection.scalarText("PRAGMA journal_mode=DELETE")) == "delete"
        defer { if leftWAL { _ = try? connection.scalarText("PRAGMA journal_mode=WAL") } }
        try connection.transaction {
            try seeder.loadPools()
            let counts = try seeder.counts(for: plan)
            for (table, count) in counts where count > 0 {
                try seeder.timed(table) { try seeder.seed(table, count: count) }
            }
        }
        if seeder.results.contains(where: { $0.rows > 0 }) {
            // A full ANALYZE (not a sampled one): sampling estimated ~1000 rows per sys_class_name value
            // on a table of a million incidents, which made SQLite page by the class index and sort.
            try connection.execute("ANALYZE")
        }
        let elapsed = clock.now - started
        return SeedReport(
            tables: seeder.results,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    /// The tables to seed, in dependency order, with their counts: the plan's, plus enough rows to
    /// reach the default count for referenced tables the plan does not name.
    func counts(for plan: SeedPlan) throws -> [(String, Int)] {
        var needed: Set<String> = []
        func need(_ table: String) {
            guard needed.insert(table).inserted else { return }
            for dependency in Self.dependencies[table] ?? [] { need(dependency) }
        }
        for entry in plan.entries where entry.count > 0 { need(entry.table) }

        var result: [(String, Int)] = []
        for table in SeedPlan.seedableTables {
            if let count = plan.count(for: table) {
                result.append((table, count))
                continue
            }
            guard needed.contains(table), let fallback = Self.defaultCounts.first(where: { $0.table == table })
            else { continue }
            let namesCI = plan.count(for: "cmdb_ci") != nil || plan.count(for: "cmdb_ci_server") != nil
            if table == "cmdb_ci" || table == "cmdb_ci_server" {
                if !namesCI && pools.cis.isEmpty { result.append((table, fallback.count)) }
            } else if existingRows(of: table) < fallback.count {
                // Top up: a database holding only the `admin` user still gets realistic callers.
                result.append((table, fallback.count - existingRows(of: table)))
            }
        }
        return result
    }

    /// What each seedable table refers to.
    static let dependencies: [String: [String]] = [
        "cmn_location": ["core_company"],
        "sys_user": ["core_company", "cmn_location"],
        "sys_user_group": ["sys_user"],
        "cmdb_ci": ["core_company", "cmn_location", "sys_user", "sys_user_group"],
        "cmdb_ci_server": ["core_company", "cmn_location", "sys_user", "sys_user_group"],
        "problem": ["sys_user", "sys_user_group", "cmdb_ci", "cmdb_ci_server"],
        "change_request": ["sys_user", "sys_user_group", "cmdb_ci", "cmdb_ci_server"],
        "incident": ["sys_user", "sys_user_group", "cmdb_ci", "cmdb_ci_server"],
        "sysapproval_approver": ["sys_user"],
        "sys_journal_field": ["sys_user"],
        "sys_attachment": ["sys_user"],
    ]

    private func existingRows(of table: String) -> Int {
        switch table {
        case "core_company": return pools.companies.count
        case "cmn_location": return pools.locations.count
        case "sys_user": return pools.users.count
        case "sys_user_group": return pools.groups.count
        default: return 0
        }
    }

    private func seed(_ table: String, count: Int) throws {
        switch table {
        case "core_company": try seedCompanies(count)
        case "cmn_location": try seedLocations(count)
        case "sys_user": try seedUsers(count)
        case "sys_user_group": try seedGroups(count)
        case "cmdb_ci": try seedConfigurationItems(count, servers: false)
        case "cmdb_ci_server": try seedConfigurationItems(count, servers: true)
        case "problem": try seedProblems(count)
        case "change_request": try seedChanges(count)
        case "incident": try seedIncidents(count)
        case "sysapproval_approver": try seedApprovals(count)
        case "sys_journal_field": try seedJournalEntries(count)
        case "sys_attachment": try seedAttachments(count)
        case "sys_script": try seedBusinessRules(count)
        case "sysevent_email_action": try seedNotifications(count)
        case "sys_hub_flow": try seedFlows(count)
        default: preconditionFailure("not seedable: \(table)")
        }
    }

    private func timed(_ table: String, _ body: () throws -> Void) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let before = results.count
        try body()
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        // The table's own result is the first one it appended (groups also append their members).
        if results.count > before { results[before].seconds = seconds }
    }

    /// Records the rows added to `table` (the seconds are filled in by `timed`).
    func record(_ table: String, rows: Int) {
        results.append(SeedReport.TableResult(table: table, rows: rows, seconds: 0))
        progress?(table, rows)
    }

    /// The one loop of every seeder: a random stream of `name`'s own after the `existing` rows, a writer
    /// for `root` (the table, or the root table a class is stored in: `task`, `cmdb_ci`), then for each
    /// of `count` rows `fill` sets it (the system fields through `SystemFieldSlots`, the row's index among
    /// this call's) and it is inserted; progress and the report go under `name`.
    func seedRows(
        _ name: String, into root: String? = nil, count: Int, after existing: Int,
        _ fill: (inout RowWriter, inout SeedRandom, SystemFieldSlots, Int) throws -> Void
    ) throws {
        var random = randomStream(name, after: existing)
        var writer = try makeWriter(for: root ?? name)
        let system = SystemFieldSlots(writer)
        for index in 0..<count {
            try fill(&writer, &random, system, index)
            try writer.insert()
            tick(name, index + 1)
        }
        record(name, rows: count)
    }

    /// Reports progress every 50 000 rows.
    func tick(_ table: String, _ done: Int) {
        if done % 50_000 == 0 { progress?(table, done) }
    }

    /// Reads the sys_ids (and what the generators need) of rows already in the database.
    func loadPools() throws {
        func eachRow(_ sql: String, _ body: (SQLiteStatement) -> Void) throws {
            try connection.withStatement(sql, cached: false) { statement in
                while try statement.step() { body(statement) }
            }
        }
        try eachRow("SELECT sys_id, manufacturer FROM core_company ORDER BY rowid") { row in
            guard let id = row.text(0) else { return }
            pools.companies.append(id)
            if row.text(1) == "true" { pools.manufacturers.append(id) }
        }
        try eachRow("SELECT sys_id FROM cmn_location ORDER BY rowid") { row in
            if let id = row.text(0) { pools.locations.append(id) }
        }
        try eachRow("SELECT sys_id, user_name, company, location FROM sys_user ORDER BY rowid") { row in
            guard let id = row.text(0) else { return }
            let name = row.text(1) ?? "unknown"
            pools.addUser(sysID: id, userName: name, company: row.text(2), location: row.text(3))
        }
        try eachRow("SELECT sys_id FROM sys_user_group ORDER BY rowid") { row in
            if let id = row.text(0) { pools.addGroup(id) }
        }
        try eachRow("SELECT \"group\", \"user\" FROM sys_user_grmember ORDER BY rowid") { row in
            guard let group = row.text(0).flatMap({ pools.groupIndex[$0] }),
                let user = row.text(1).flatMap({ pools.userIndex[$0] })
            else { return }
            pools.groupMembers[group].append(user)
        }
        try eachRow("SELECT sys_id FROM cmdb_ci ORDER BY rowid") { row in
            if let id = row.text(0) { pools.cis.append(id) }
        }
        try eachRow(
            "SELECT sys_id, sys_class_name FROM task WHERE sys_class_name IN ('problem', 'change_request') ORDER BY rowid"
        ) { row in
            guard let id = row.text(0) else { return }
            if row.text(1) == "problem" { pools.problems.append(id) } else { pools.changes.append(id) }
        }
    }

    /// The number format of `className` and the first value to hand out: one past the highest number
    /// with its prefix in the database (a full scan, correct beyond 7 digits; once per table and run).
    func numbering(for className: String) throws -> (format: Database.NumberFormat, first: Int) {
        guard let format = Database.numberFormat(for: className) else {
            preconditionFailure("\(className) has no number format")
        }
        return try connection.withStatement(
            """
            SELECT max(CAST(substr(number, \(format.prefix.utf8.count + 1)) AS INTEGER)) FROM task
            WHERE number GLOB ? AND sys_class_name = ?
            """, cached: false
        ) { statement in
            try statement.bind(format.prefix + "[0-9]*", at: 1)
            try statement.bind(className, at: 2)
            guard try statement.step(), !statement.isNull(0) else { return (format, format.first) }
            return (format, max(format.first, statement.integer(0) + 1))
        }
    }

    /// The generator for rows of `table` when `existing` marks what the database already holds (a
    /// row count or the first new number): a second run with the same seed value continues with
    /// fresh sys_ids instead of repeating the first run's.
    func randomStream(_ table: String, after existing: Int) -> SeedRandom {
        var random = SeedRandom(seed: seedValue, stream: existing == 0 ? table : "\(table)@\(existing)")
        random.sysIDSalt = sysIDSalt
        return random
    }

    /// A writer for all physical columns of `root`.
    func makeWriter(for root: String) throws -> RowWriter {
        try RowWriter(connection: connection, table: root, columns: StandardSchema.storageColumns(root: root))
    }
}
