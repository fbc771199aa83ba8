import Foundation

/// What keeps a merged copy equal to the source over time (`prune:`, `deletes:`, backfill), decided at
/// `open` and done inside the table's savepoint, so it commits with the rows or not at all:
///
/// - **Prune** (``DatabasePrunePolicy``; `run --prune` forces it): the sys_ids the filter matches now
///   go into a key table (``SQLDialect/createKeyTable(_:)``, in the run's transaction); at `prepare` the
///   rows not in it are deleted, or with `deletes: soft` get `_deleted_at` (the run's start, UTC). A full
///   table's key set is its own rows and rejected records; an incremental table's comes from a scan
///   of the filter (``SourceScan``), which the engine runs when ``scanRequest`` asks. A table created by
///   this run has nothing to prune: the prune is only recorded. Each prune is recorded in
///   `_nowetl_prunes` (table, time, run, rows), which `weekly` reads.
/// - **Backfill**: columns added to an existing table of an incremental table's copy would stay NULL
///   on every row this run does not read, so the same scan brings sys_id and the new columns, and
///   each row is updated (a full table's run rewrites every row anyway).
/// - **Soft deletes**: a `_deleted_at` column (date-time), NULL on every loaded row; deletion records
///   and prunes set it instead of deleting.
extension DatabaseLoad {
    /// The table where each prune is recorded.
    static let pruneTable = "_nowetl_prunes"
    /// Keys collected before they are loaded into the key table (a `COPY` chunk in PostgreSQL).
    static let keyChunk = 5_000

    /// Where a prune's key set comes from.
    enum KeySource {
        /// The rows this run loads and the records it rejected (a full table).
        case rows
        /// A scan of the filter's sys_ids (an incremental table).
        case scan
    }

    /// The state of prune, soft deletes and backfill for one load.
    struct Convergence {
        /// `prune:` of the output (`nil`: the table's default).
        let prune: DatabasePrunePolicy?
        /// `deletes:` of the output.
        let deletes: DatabaseDeletePolicy
        /// Where this run's key set comes from; `nil` when it does not prune.
        var keySource: KeySource?
        /// Whether the table is new: the prune is recorded, nothing is compared.
        var recordOnly = false
        /// The key table, once created.
        var keyTable: String?
        var keyWriter: (any DatabaseRowWriter)?
        var keys: [String] = []
        /// The schema columns whose database columns were added to an existing table, to fill from a scan.
        var backfill: [String] = []
        var backfillWriter: (any DatabaseRowWriter)?
        /// The parameter of `_deleted_at` in the row statement (`deletes: soft`).
        var softDeletedAtParameter: Int?
        /// Rows removed (or marked deleted) by the prune.
        var pruned = 0
        /// Rows whose new columns the backfill filled.
        var backfilled = 0

        init(prune: DatabasePrunePolicy?, deletes: DatabaseDeletePolicy) {
            self.prune = prune
            self.deletes = deletes
        }

        /// Lets go of the prepared statements (the load is prepared, aborted or abandoned).
        mutating func endWriters() {
            keyWriter = nil
            backfillWriter = nil
            keys = []
        }
    }

    /// What this load needs from a scan of the table's filter, `nil` for nothing (``SourceScan``).
    var scanRequest: SourceScan.Request? {
        guard convergence.keySource == .scan || !convergence.backfill.isEmpty else { return nil }
        return SourceScan.Request(columns: convergence.backfill)
    }

    /// Decides at `open` whether this run prunes and what it backfills, for a merge into a table that is
    /// `created` by this run or had columns `added`.
    func planConvergence(schema: RowSchema, created: Bool, added: [String]) throws(NowETLError) {
        if !created, context.readsChangesOnly, !added.isEmpty {
            // `_deleted_at` (deletes: soft) is the load's own column, NULL on every row it adds it to.
            let added = Set(added).subtracting([TablePlan.deletedAtColumn])
            convergence.backfill = schema.columns.filter { column in
                added.contains(column.name)
                    || (column.hasDisplayColumn && added.contains(column.name + TablePlan.displayColumnSuffix))
            }.map(\.name)
        }
        guard try pruneIsDue() else { return }
        guard !created else {
            convergence.recordOnly = true
            return
        }
        convergence.keySource = context.readsChangesOnly ? .scan : .rows
        let name = "_nowetl_keys_" + String(UInt32.random(in: .min ... .max), radix: 16)
        try session.execute(dialect.createKeyTable(name))
        convergence.keyTable = name
        convergence.keyWriter = try session.prepareLoadWriter(into: name, columns: ["sys_id"], upsertKey: nil)
    }

    /// Whether the output's policy (or `run --prune`, or a soft full refresh) makes this run prune.
    private func pruneIsDue() throws(NowETLError) -> Bool {
        if context.forcePrune || (context.fullRefresh && convergence.deletes == .soft) { return true }
        switch convergence.prune ?? .defaultPolicy(incremental: context.readsChangesOnly) {
        case .everyRun: return true
        case .never: return false
        case .weekly:
            try createPruneTable()
            let recent = context.runStartedSeconds - DatabasePrunePolicy.weeklyInterval
            return try session.count(
                "SELECT count(*) FROM \(dialect.table(Self.pruneTable)) WHERE table_name = \(dialect.parameter(1)) "
                    + "AND pruned_at > \(recent)", parameter: table) == 0
        }
    }

    private func createPruneTable() throws(NowETLError) {
        try session.execute(
            "CREATE TABLE IF NOT EXISTS \(dialect.table(Self.pruneTable)) (table_name "
                + "\(dialect.keyColumnType(.string)) PRIMARY KEY, pruned_at BIGINT NOT NULL, run_id TEXT NOT NULL, "
                + "\(dialect.quote("rows")) BIGINT NOT NULL)")
    }

    /// Adds `sysID` to the key set when this run's rows are the key set.
    func collectKey(_ sysID: String) throws(NowETLError) {
        guard convergence.keySource == .rows else { return }
        try addKey(sysID)
    }

    /// Keeps the rows of records the run rejected: they are still in the source.
    func keep(rejected sysIDs: [String]) throws(NowETLError) {
        guard !skipped else { return }
        for sysID in sysIDs { try collectKey(sysID) }
    }

    private func addKey(_ sysID: String) throws(NowETLError) {
        convergence.keys.append(sysID)
        if convergence.keys.count >= Self.keyChunk { try flushKeys() }
    }

    private func flushKeys() throws(NowETLError) {
        guard let writer = convergence.keyWriter, !convergence.keys.isEmpty else { return }
        for key in convergence.keys {
            try writer.bind(text: key, at: 1)
            try writer.run()
        }
        convergence.keys.removeAll(keepingCapacity: true)
    }

    /// Takes one page of the scan (``scanRequest``): its sys_ids into the key set, its new columns into
    /// the rows of the table that have that sys_id. `schema` is the scan's (``SourceScan``): sys_id
    /// first, then the requested columns.
    func scanned(_ batch: RowBatch, schema: RowSchema) throws(NowETLError) {
        guard !skipped else { return }
        let backfill = convergence.backfill.compactMap { name in schema.index(of: name).map { (name, $0) } }
        if !backfill.isEmpty, convergence.backfillWriter == nil {
            var names: [String] = []
            for (name, index) in backfill {
                names.append(name)
                if schema.columns[index].hasDisplayColumn { names.append(name + TablePlan.displayColumnSuffix) }
            }
            convergence.backfillWriter = try session.prepareRowWriter(
                dialect.update(table, columns: names, key: "sys_id"))
        }
        for row in 0..<batch.count {
            guard case .string(let sysID)? = batch[row, 0] else { continue }
            if convergence.keySource == .scan { try addKey(sysID) }
            guard let writer = convergence.backfillWriter else { continue }
            var parameter = 1
            for (_, index) in backfill {
                try writer.bind(batch, row: row, column: index, at: parameter)
                parameter += 1
                if schema.columns[index].hasDisplayColumn {
                    try writer.bind(batch.displayValue(row: row, column: index).map(ColumnValue.string), at: parameter)
                    parameter += 1
                }
            }
            try writer.bind(text: sysID, at: parameter)
            try writer.run()
            convergence.backfilled += 1
        }
    }

    /// At `prepare`: prunes against the key set and records the prune.
    func converge() throws(NowETLError) {
        guard convergence.recordOnly || convergence.keySource != nil else { return }
        if let keyTable = convergence.keyTable {
            try flushKeys()
            convergence.keyWriter = nil
            if let index = dialect.indexKeyTable(keyTable) { try session.execute(index) }
            let soft = convergence.deletes == .soft
            let missing = dialect.missing(from: table, keys: keyTable, liveOnly: soft)
            convergence.pruned = try session.count(
                "SELECT count(*) FROM \(dialect.table(table)) WHERE \(missing)", parameters: [])
            if convergence.pruned > 0 {
                if soft {
                    let update = try session.prepareRowWriter(
                        "UPDATE \(dialect.table(table)) SET \(dialect.quote(TablePlan.deletedAtColumn)) = "
                            + "\(dialect.parameter(1)) WHERE \(missing)")
                    try update.bind(.dateTime(secondsSinceEpoch: context.runStartedSeconds), at: 1)
                    try update.run()
                } else {
                    try session.execute("DELETE FROM \(dialect.table(table)) WHERE \(missing)")
                }
            }
            try session.execute(dialect.dropKeyTable(keyTable))
            convergence.keyTable = nil
        }
        try createPruneTable()
        let forget = try session.prepareRowWriter(dialect.delete(from: Self.pruneTable, key: "table_name"))
        try forget.bind(text: table, at: 1)
        try forget.run()
        let record = try session.prepareRowWriter(
            dialect.insert(
                into: Self.pruneTable, columns: ["table_name", "pruned_at", "run_id", "rows"], upsertKey: nil))
        try record.bind(text: table, at: 1)
        try record.bind(.int(context.runStartedSeconds), at: 2)
        try record.bind(text: context.runID, at: 3)
        try record.bind(.int(convergence.pruned), at: 4)
        try record.run()
    }
}
