/// Loads a table's choice labels (``ChoiceLabels``, `choice_labels: true`) into the table
/// `<table>__choices` of a database, beside the table's rows: in the same transaction and inside the
/// table's savepoint (``DatabaseSink`` runs it at `prepare`, just before the table's ``DatabaseLoad``
/// prepares), through the ``DatabaseSession`` and ``SQLDialect`` protocols only, so every database
/// session loads it the same way.
///
/// The choices table is always replaced whole, as `replace` replaces a table (``DatabaseLoad``): when it
/// exists with these columns and no primary key its rows are `DELETE`d and loaded again in place
/// (readers see the old rows until the COMMIT, never none); a new table is created; one of another shape
/// (an older nowetl's, or a user's) is replaced by a staging table swapped in just before the COMMIT.
///
/// Columns: `element`, `value`, `label`, `language` (text), `sequence` (integer, NULL when unset) and
/// `dependent_value` (text, NULL for none). There is no primary key: an instance may hold several rows for
/// one element, value and language — the same subcategory under two categories (`dependent_value`), or
/// duplicates an upgrade left — and a key would refuse a list the instance itself shows.
struct ChoiceLabelLoad {
    /// The suffix of the choices table's name.
    static let suffix = "__choices"
    /// The columns, in order.
    static let columns: [(name: String, type: ColumnType)] = [
        ("element", .string), ("value", .string), ("label", .string), ("language", .string), ("sequence", .int),
        ("dependent_value", .string),
    ]

    /// The choices table of the database table `table` (the output's name for the pipeline table).
    static func tableName(for table: String) -> String { table + suffix }

    let session: any DatabaseSession
    /// The choices table.
    let table: String
    /// The pipeline table whose load this belongs to (its savepoint keeps a staged swap).
    let pipelineTable: String

    private var dialect: any SQLDialect { session.dialect }

    /// Replaces the choices table's rows with `labels`' rows; returns how many were loaded.
    ///
    /// - Throws: ``NowETLError`` naming the database: a name longer than the database keeps, a failed
    ///   statement.
    func load(_ labels: ChoiceLabels) throws(NowETLError) -> Int {
        if let limit = dialect.maxIdentifierBytes, table.utf8.count > limit {
            throw NowETLError(
                .configuration, path: session.name,
                "table \(table) in \(session.name): the choice labels' table name is \(table.utf8.count) bytes long, "
                    + "and names in this database have at most \(limit); give the output a shorter table_name:")
        }
        var target = table
        if let existing = try session.columns(of: table) {
            let same =
                existing.count == Self.columns.count
                && Self.columns.allSatisfy { existing[$0.name] == dialect.columnType($0.type).uppercased() }
            if same, try session.primaryKey(of: table).isEmpty {
                try session.execute("DELETE FROM \(dialect.table(table))")
            } else {
                target = dialect.stagingName(for: table)
                try session.execute("DROP TABLE IF EXISTS \(dialect.table(target))")
                try session.execute(dialect.createTable(target, columns: Self.columns, key: nil))
                session.books.pendingSwaps.append(
                    PendingSwap(
                        savepoint: session.books.savepoints.last { $0.table == pipelineTable }?.name, table: table,
                        statements: dialect.swap(staging: target, into: table)))
            }
        } else {
            try session.execute(dialect.createTable(table, columns: Self.columns, key: nil))
        }
        let writer = try session.prepareLoadWriter(into: target, columns: Self.columns.map(\.name), upsertKey: nil)
        for row in labels.rows {
            try writer.bind(text: row.element, at: 1)
            try writer.bind(text: row.value, at: 2)
            try writer.bind(text: row.label, at: 3)
            try writer.bind(text: row.language, at: 4)
            try writer.bind(row.sequence.map(ColumnValue.int), at: 5)
            try writer.bind(row.dependentValue.map(ColumnValue.string), at: 6)
            try writer.run()
        }
        return labels.rows.count
    }
}

extension DatabaseLoad {
    /// Loads `labels` into the choices table of this load's table (``ChoiceLabelLoad``), unless there are
    /// none or the load is skipped (the database has it already, its choices with it); returns the rows
    /// loaded, `nil` when nothing was.
    func loadChoiceLabels(_ labels: ChoiceLabels?) throws(NowETLError) -> Int? {
        guard let labels, !skipped else { return nil }
        return try ChoiceLabelLoad(
            session: session, table: ChoiceLabelLoad.tableName(for: table), pipelineTable: context.table
        ).load(labels)
    }
}
