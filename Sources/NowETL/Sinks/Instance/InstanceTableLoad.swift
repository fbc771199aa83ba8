/// What an ``InstanceSink`` did to one table of the target instance in a run (``Artifact/instanceTable(_:)``).
public struct InstanceTableLoad: Sendable, Hashable, Codable {
    /// The target instance's base URL (no credentials).
    public var instance: String
    /// The table written.
    public var table: String
    /// How rows the target had were treated.
    public var mode: InstanceWriteMode
    /// Rows inserted (POST with their sys_id).
    public var inserted = 0
    /// Rows the target had and that were updated (PUT), in ``InstanceWriteMode/upsert``.
    public var updated = 0
    /// Rows the target had and that were left alone, in ``InstanceWriteMode/insertOnly``.
    public var skippedExisting = 0
    /// Rows an earlier, interrupted attempt of the same load had already confirmed written (the load's
    /// progress record), for which no request was sent.
    public var alreadyWritten = 0
    /// Rows of a coalesced table matched on their key and left as the target had them (`on_match: keep`).
    public var kept = 0
    /// Rows of a coalesced table that matched nothing and were not written (`on_missing: skip`).
    public var skippedUnmatched = 0
    /// Target records deleted for deletion records (`deletes: propagate`).
    public var deleted = 0
    /// Deletion records that deleted nothing: `deletes: ignore`, a record the target no longer had, or
    /// one the migration never wrote (unknown to the map, `kept`, `skipped`).
    public var deletionsIgnored = 0
    /// References the target could not resolve, by field: count and the first one
    /// (``InstanceReferenceResolver``; written as they were, or cleared, per `on_unresolved`).
    public var unresolved: [String: UnresolvedReferences] = [:]
    /// Requests sent to the target: lookups and writes, not counting NowData's retries.
    public var requests = 0
    /// The load's id (``SinkContext/loadID``), the key of its progress record.
    public var loadID: String

    /// The keys of the run report's `instance_tables` entries (``RunReport/Table/instanceTables``).
    enum CodingKeys: String, CodingKey {
        case instance, table, mode, inserted, updated
        case skippedExisting = "skipped_existing"
        case kept
        case skippedUnmatched = "skipped_unmatched"
        case deleted
        case deletionsIgnored = "deletions_ignored"
        case unresolved
        case alreadyWritten = "already_written"
        case requests
        case loadID = "load_id"
    }

    /// A load of `table` into `instance` that has written nothing yet.
    public init(instance: String, table: String, mode: InstanceWriteMode, loadID: String) {
        self.instance = instance
        self.table = table
        self.mode = mode
        self.loadID = loadID
    }

    /// Rows of the table the load accounts for: written, skipped, kept and already written before.
    public var rows: Int {
        inserted + updated + skippedExisting + alreadyWritten + kept + skippedUnmatched + deleted + deletionsIgnored
    }
}

/// The references of one field a target could not resolve.
public struct UnresolvedReferences: Sendable, Hashable, Codable {
    /// How many.
    public var count: Int
    /// The first: `<record sys_id> → <table>:'<value>'`.
    public var sample: String
}
