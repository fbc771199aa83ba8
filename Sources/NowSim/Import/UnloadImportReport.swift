/// What importing one unload XML document did, per table.
///
/// A table is the class a record went into (`incident`, not `task`); `ignoredFields` counts the
/// values of fields the table does not have (an instance ignores them too), `ignoredFieldNames`
/// names them.
public struct UnloadImportReport: Sendable, Equatable, CustomStringConvertible {
    /// The counts of one table.
    public struct TableCounts: Sendable, Equatable {
        /// Records inserted (their sys_id was new).
        public var inserted = 0
        /// Records updated (their sys_id existed).
        public var updated = 0
        /// Records deleted by a `DELETE` action.
        public var deleted = 0
        /// `DELETE` actions whose sys_id was not there (nothing to delete).
        public var notFound = 0
        /// Field values left out because the table has no such field.
        public var ignoredFields = 0
        /// The names of those fields, sorted.
        public var ignoredFieldNames: [String] = []

        /// No counts yet.
        public init() {}
    }

    /// What the document is called in messages (the path, or `request body`).
    public var document: String
    /// The counts by table name.
    public var tables: [String: TableCounts] = [:]

    /// An empty report for `document`.
    public init(document: String) {
        self.document = document
    }

    /// The number of records the document held.
    public var records: Int {
        tables.values.reduce(0) { $0 + $1.inserted + $1.updated + $1.deleted + $1.notFound }
    }

    /// One line per table, in name order:
    /// `incident: 300 inserted, 0 updated, 0 deleted, 0 not found, 2 ignored field values (u_legacy)`.
    public var description: String {
        tables.keys.sorted().map { name in
            let counts = tables[name] ?? TableCounts()
            var line =
                "\(name): \(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted, "
                + "\(counts.notFound) not found, \(counts.ignoredFields) ignored field values"
            if !counts.ignoredFieldNames.isEmpty { line += " (\(counts.ignoredFieldNames.joined(separator: ", ")))" }
            return line
        }.joined(separator: "\n")
    }
}
