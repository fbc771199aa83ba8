import Foundation
import Synchronization

/// Loads one pipeline table into one table of a ``DatabaseSession`` — the part of a database sink that
/// every database shares: the modes, schema evolution, the load marker, savepoints.
///
/// - `open`: joins the session's transaction, opens a savepoint, creates `_nowetl_loads` when missing
///   and looks the load up there (a load already recorded is skipped); checks every name against the
///   database's identifier limit; then per mode:
///   - `replace` of a table whose columns are exactly the load's (names and types): `DELETE`s its rows
///     and loads into it, in place. Readers never wait and see the old rows until the COMMIT (MVCC in
///     PostgreSQL, WAL in SQLite), and the table keeps what users added to it: indexes, views, grants.
///   - `replace` of a new table, or one whose columns differ: loads `<table>__nowetl_new`, swapped in
///     at `prepare`.
///   Beside each column marked ``ColumnSchema/hasDisplayColumn`` goes a text column
///   `<name>_display` (its display value); for schema evolution it is a column like any other.
///   - `merge` and `append` create the table or add its missing columns (a changed type fails, or with
///     ``DatabaseTypeChangePolicy/recreate`` drops and recreates it).
/// - `merge` keeps the copy equal to the source: prune, soft deletes and backfill
///   (`DatabaseLoad+Convergence.swift`); `--full-refresh` of an incremental table makes it a `replace`
///   (``init(session:table:settings:context:)``).
/// - `write`: one statement per row inside the transaction (nothing buffered beyond the batch).
/// - `prepare`: a staged `replace` registers its swap, run just before the COMMIT; the load is recorded in
///   `_nowetl_loads`; the savepoint stays open inside the run's transaction, so that `abort` can still
///   undo this table alone (another output of the table failed) while earlier tables keep their work.
/// - The run COMMITs (``TransactionalSink/commitTransaction()``, through
///   ``DatabaseSession/commitTransaction(generation:table:)``, which refuses a transaction that ended
///   without a COMMIT); `abort` rolls back.
final class DatabaseLoad {
    /// The marker table: one row per load, inserted in the transaction of its rows.
    static let markerTable = "_nowetl_loads"
    /// The suffix of `replace`'s staging table.
    static let stagingSuffix = "__nowetl_new"

    let session: any DatabaseSession
    let table: String
    /// How this run loads: the output's mode, or `replace` for a full refresh (``init(session:table:settings:context:)``).
    let mode: DatabaseLoadMode
    /// The output's `mode:`.
    let configuredMode: DatabaseLoadMode
    let onTypeChange: DatabaseTypeChangePolicy
    let context: SinkContext
    private(set) var skipped = false
    private(set) var recreated = false
    /// The table `replace` loads into a staging table swapped in at the COMMIT; `nil` when it loads in place.
    private var staging: String?
    /// The session's transaction this load works in (``TransactionBooks/generation``).
    private(set) var generation = 0
    private(set) var rows = 0
    private(set) var deleted = 0
    private var savepoint: String?
    /// Whether this load counts in the session's ``DatabaseSession/loads``.
    private var counted = false
    private var writer: (any DatabaseRowWriter)?
    private var deleter: (any DatabaseRowWriter)?
    /// Per schema column: its parameter position in the row statement, `nil` when it is not a database column.
    private var parameters: [Int?] = []
    /// Per schema column: the parameter position of its `<name>_display` column, `nil` when it has none.
    private var displayParameters: [Int?] = []
    private var deletedAtIndex: Int?
    private(set) var sysIDIndex: Int?
    /// Prune, soft deletes and backfill (`DatabaseLoad+Convergence.swift`).
    var convergence: Convergence
    private static let savepoints = Mutex<Int>(0)

    /// The load's key in `_nowetl_loads`: the load id and the database table.
    var loadKey: String { context.loadID + ":" + table }

    /// A load of `context`'s pipeline table into `table` as `settings` say. `--full-refresh` of an
    /// incremental table (``SinkContext/fullRefresh``) turns `mode: merge` into `replace` — unless deletes
    /// are soft, which keeps deleted rows: it then merges and prunes.
    init(session: any DatabaseSession, table: String, settings: any DatabaseLoadSettings, context: SinkContext) {
        self.session = session
        self.table = table
        self.configuredMode = settings.mode
        self.mode =
            settings.mode == .merge && context.fullRefresh && settings.deletes == .hard ? .replace : settings.mode
        self.onTypeChange = settings.onTypeChange
        self.context = context
        convergence = Convergence(prune: settings.prune, deletes: settings.deletes)
    }

    var dialect: any SQLDialect { session.dialect }

    func open(schema: RowSchema) throws(NowETLError) {
        try session.beginTransaction()
        generation = session.books.generation
        session.books.loads += 1
        counted = true
        let name =
            "nowetl_load_"
            + String(
                Self.savepoints.withLock {
                    $0 += 1
                    return $0
                })
        try session.openSavepoint(name, table: context.table)
        savepoint = name
        let marker = dialect.table(Self.markerTable)
        try session.execute(
            "CREATE TABLE IF NOT EXISTS \(marker) (load_id \(dialect.keyColumnType(.string)) PRIMARY KEY, "
                + "table_name TEXT NOT NULL, "
                + "run_id TEXT NOT NULL, mode TEXT NOT NULL, \(dialect.quote("rows")) INTEGER NOT NULL, "
                + "loaded_at TEXT NOT NULL)")
        if try session.count(
            "SELECT count(*) FROM \(marker) WHERE load_id = \(dialect.parameter(1))", parameter: loadKey)
            > 0
        {
            skipped = true
            if !dialect.transactionalDDL { try finishCommittedSwap() }
            return
        }
        var columns: [(name: String, type: ColumnType)] = []
        parameters = []
        displayParameters = []
        for (index, column) in schema.columns.enumerated() {
            // Deletion records: a merge applies them; a full refresh's replace has no row to apply them to.
            if column.name == TablePlan.deletedAtColumn, configuredMode == .merge {
                deletedAtIndex = index
                parameters.append(nil)
                displayParameters.append(nil)
                continue
            }
            if column.name == "sys_id" { sysIDIndex = index }
            parameters.append(columns.count + 1)
            columns.append((column.name, column.type))
            if column.hasDisplayColumn {
                displayParameters.append(columns.count + 1)
                columns.append((column.name + TablePlan.displayColumnSuffix, .string))
            } else {
                displayParameters.append(nil)
            }
        }
        parameters += Array(repeating: nil, count: schema.unloadColumns.count)
        if mode == .merge, convergence.deletes == .soft {
            columns.append((TablePlan.deletedAtColumn, .dateTime))
            convergence.softDeletedAtParameter = columns.count
        }
        try checkIdentifiers(columns.map(\.name))
        if Set(columns.map(\.name)).count != columns.count {
            throw NowETLError(.invalidSchema, path: session.name, "table \(table): two columns have the same name")
        }
        if mode == .merge, sysIDIndex == nil {
            throw NowETLError(
                .invalidSchema, path: session.name,
                "table \(table) in \(session.name): mode: merge needs a sys_id column to upsert by, and the table's "
                    + "columns have none; add one (name sys_id, path sys_id) or use mode: replace or append")
        }
        let key = mode == .append || sysIDIndex == nil ? nil : "sys_id"
        var target = table
        switch mode {
        case .replace:
            if let existing = try session.columns(of: table), Self.matches(existing, columns, dialect: dialect),
                try session.primaryKey(of: table) == (key.map { [$0] } ?? [])
            {
                try session.execute("DELETE FROM \(dialect.table(table))")
            } else {
                try stage(columns: columns, key: key)
                target = staging ?? table
            }
        case .merge, .append:
            let evolved = try evolve(columns: columns, key: key)
            if mode == .merge { try planConvergence(schema: schema, created: evolved.created, added: evolved.added) }
        }
        if !dialect.transactionalDDL {
            if let staging { target = staging } else { try dropStaleStaging() }
        }
        writer = try session.prepareLoadWriter(
            into: target, columns: columns.map(\.name), upsertKey: mode == .merge ? "sys_id" : nil)
        if deletedAtIndex != nil, mode == .merge {
            deleter = try session.prepareRowWriter(
                convergence.deletes == .soft
                    ? dialect.update(table, columns: [TablePlan.deletedAtColumn], key: "sys_id")
                    : dialect.delete(from: table, key: "sys_id"))
        }
    }

    /// Loads into a fresh staging table, swapped in for the table at the COMMIT.
    private func stage(columns: [(name: String, type: ColumnType)], key: String?) throws(NowETLError) {
        let name = dialect.stagingName(for: table)
        staging = name
        try session.execute("DROP TABLE IF EXISTS \(dialect.table(name))")
        try session.execute(dialect.createTable(name, columns: columns, key: key))
    }

    /// Whether a table with the catalog's `existing` columns holds exactly `columns` (names and types;
    /// the caller compares the primary key).
    private static func matches(
        _ existing: [String: String], _ columns: [(name: String, type: ColumnType)], dialect: any SQLDialect
    ) -> Bool {
        existing.count == columns.count
            && columns.allSatisfy { existing[$0.name] == dialect.columnType($0.type).uppercased() }
    }

    /// Refuses a table or column name longer than the database's identifier limit (PostgreSQL would cut
    /// it silently, so two long names could become one, and the catalog would not know it by its name).
    private func checkIdentifiers(_ columns: [String]) throws(NowETLError) {
        guard let limit = dialect.maxIdentifierBytes else { return }
        if table.utf8.count > limit {
            throw NowETLError(
                .configuration, path: session.name,
                "table \(table) in \(session.name): the name is \(table.utf8.count) bytes long, and names in this "
                    + "database have at most \(limit); give the output a shorter table_name:")
        }
        for column in columns where column.utf8.count > limit {
            throw NowETLError(
                .configuration, path: session.name,
                "table \(table) in \(session.name): column \(column) is \(column.utf8.count) bytes long, and names "
                    + "in this database have at most \(limit); list it under the table's columns: with a shorter "
                    + "name:")
        }
    }

    /// Creates the table, or adds the columns it lacks; a column of another type fails or recreates it.
    ///
    /// - Returns: whether the table is new (created, or recreated), and the columns added to it.
    private func evolve(columns: [(name: String, type: ColumnType)], key: String?) throws(NowETLError) -> (
        created: Bool, added: [String]
    ) {
        guard let existing = try session.columns(of: table) else {
            try session.execute(dialect.createTable(table, columns: columns, key: key))
            return (true, [])
        }
        for column in columns {
            let wanted = dialect.columnType(column.type)
            guard let have = existing[column.name] else { continue }
            if have != wanted.uppercased() {
                guard onTypeChange == .recreate else {
                    throw NowETLError(
                        .database, path: session.name,
                        "table \(table) in \(session.name): column \(column.name) is \(have) in the database, the "
                            + "pipeline now gives it \(wanted) (\(column.type.rawValue)); change the column's type: "
                            + "back, or set on_type_change: recreate to drop and reload the table")
                }
                recreated = true
                if !dialect.transactionalDDL {
                    try stage(columns: columns, key: key)
                    return (true, [])
                }
                try session.execute("DROP TABLE \(dialect.table(table))")
                try session.execute(dialect.createTable(table, columns: columns, key: key))
                return (true, [])
            }
        }
        var added: [String] = []
        for column in columns where existing[column.name] == nil {
            try session.execute(dialect.addColumn(column.name, type: column.type, to: table))
            added.append(column.name)
        }
        return (false, added)
    }

    func write(_ batch: RowBatch) throws(NowETLError) {
        guard !skipped else { return }
        guard let writer else {
            throw NowETLError(.misuse, path: session.name, "write to a database sink that is not open")
        }
        for row in 0..<batch.count {
            do {
                if let deletedAtIndex, let deletedAt = batch[row, deletedAtIndex], let sysIDIndex {
                    // A replace's new copy never held the record.
                    guard let deleter else { continue }
                    if convergence.deletes == .soft {
                        try deleter.bind(deletedAt, at: 1)
                        try deleter.bind(batch[row, sysIDIndex], at: 2)
                    } else {
                        try deleter.bind(batch[row, sysIDIndex], at: 1)
                    }
                    try deleter.run()
                    deleted += 1
                    continue
                }
                for (column, parameter) in parameters.enumerated() {
                    if let parameter { try writer.bind(batch, row: row, column: column, at: parameter) }
                }
                for (column, parameter) in displayParameters.enumerated() {
                    if let parameter {
                        try writer.bind(
                            batch.displayValue(row: row, column: column).map(ColumnValue.string), at: parameter)
                    }
                }
            } catch {
                var named = error
                let record =
                    if let sysIDIndex, case .string(let sysID)? = batch[row, sysIDIndex] {
                        "record \(sysID)"
                    } else {
                        "row \(rows + deleted + 1)"
                    }
                named.message = "table \(table), \(record): " + error.message
                throw named
            }
            if let parameter = convergence.softDeletedAtParameter { try writer.bind(nil, at: parameter) }
            try writer.run()
            rows += 1
            if let sysIDIndex, case .string(let sysID)? = batch[row, sysIDIndex] { try collectKey(sysID) }
        }
    }

    func prepare() throws(NowETLError) {
        if !skipped {
            try converge()
            if let staging, let savepoint {
                session.books.pendingSwaps.append(
                    PendingSwap(
                        savepoint: savepoint, table: table, statements: dialect.swap(staging: staging, into: table)))
            }
            let marker = try session.prepareRowWriter(
                "INSERT INTO \(dialect.table(Self.markerTable)) (load_id, table_name, run_id, mode, \(dialect.quote("rows")), "
                    + "loaded_at) "
                    + "VALUES (" + (1...6).map(dialect.parameter).joined(separator: ", ") + ")")
            try marker.bind(text: loadKey, at: 1)
            try marker.bind(text: table, at: 2)
            try marker.bind(text: context.runID, at: 3)
            try marker.bind(text: mode.rawValue, at: 4)
            try marker.bind(.int(rows + deleted), at: 5)
            try marker.bind(.dateTime(secondsSinceEpoch: Int(Date().timeIntervalSince1970)), at: 6)
            try marker.run()
        }
        writer = nil
        deleter = nil
        convergence.endWriters()
        if let savepoint { session.prepared(savepoint: savepoint) }
    }

    // MARK: - Where DDL commits implicitly (MySQL: ``SQLDialect/transactionalDDL`` is false)

    /// Finishes the swap of a load that COMMITted its staging table and marker but was killed before the
    /// swap that follows the COMMIT: the staging table is there only then (``dropStaleStaging()`` removes
    /// any other), so its rows are this load's, complete.
    private func finishCommittedSwap() throws(NowETLError) {
        let staging = dialect.stagingName(for: table)
        guard try session.columns(of: staging) != nil else { return }
        do {
            for sql in dialect.swap(staging: staging, into: table) { try session.execute(sql) }
        } catch {
            throw Self.swapFailed(error, table: table, database: session.name)
        }
    }

    /// Drops a staging table an interrupted run left (empty: its rows were never committed), so that a
    /// staging table beside a recorded load always is that load's (``finishCommittedSwap()``).
    private func dropStaleStaging() throws(NowETLError) {
        try session.execute("DROP TABLE IF EXISTS \(dialect.table(dialect.stagingName(for: table)))")
    }

    /// The error of a staged swap that failed at the COMMIT.
    static func swapFailed(_ error: NowETLError, table: String, database: String) -> NowETLError {
        var named = error
        named.message =
            "table \(table) in \(database): replace loads a new table when the columns change (or on the first "
            + "load) and swaps it in for the old one at the COMMIT, and the swap failed — when a view or another "
            + "object depends on the table, drop it and create it again after the run, or use mode: merge; "
            + error.message
        return named
    }

    /// Undoes this table's work, prepared or not: back to its savepoint (which the table's later
    /// outputs in the same database are inside of; they abort too, as the table failed). The tables
    /// before it keep theirs. When the rollback fails, the whole transaction is rolled back.
    func abort() {
        writer = nil
        deleter = nil
        convergence.endWriters()
        // A transaction that ended since (rolled back, or another one begun) is not this load's to touch.
        let current = session.inTransaction && session.books.generation == generation
        if let savepoint, current {
            do {
                try session.rollback(toSavepoint: savepoint)
            } catch {
                session.rollbackTransaction()
            }
        }
        savepoint = nil
        if counted {
            counted = false
            if current {
                session.books.loads -= 1
                // No other table of the run works in the transaction: end it, releasing the write lock.
                if session.books.loads <= 0 { session.rollbackTransaction() }
            }
        }
    }

    /// The load's sink went away without `abort` (a bug or a cancelled task): its savepoint may have
    /// later tables' work inside it by now, so the whole transaction is rolled back, and every other
    /// table of the run then fails at its COMMIT rather than be taken for loaded.
    func abandon() {
        writer = nil
        deleter = nil
        convergence.endWriters()
        if session.inTransaction, session.books.generation == generation { session.rollbackTransaction() }
    }
}
