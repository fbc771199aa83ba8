/// What an ``InstanceSink`` did to one table of the target instance in a run (``Artifact/instanceTable(_:)``).
public struct InstanceTableLoad: Sendable, Hashable, Codable {
    /// The target instance's base URL (no credentials).
    public var instance: String
    /// The table written.
    public var table: String
    /// How rows the target had were treated.
    public var mode: InstanceWriteMode
    /// Rows inserted (POST with their sys_id).
    public var inserted: Int
    /// Rows the target had and that were updated (PUT), in ``InstanceWriteMode/upsert``.
    public var updated: Int
    /// Rows the target had and that were left alone, in ``InstanceWriteMode/insertOnly``.
    public var skippedExisting: Int
    /// Rows an earlier, interrupted attempt of the same load had already confirmed written (the load's
    /// progress record), for which no request was sent.
    public var alreadyWritten: Int
    /// Rows of a coalesced table matched on their key and left as the target had them (`on_match: keep`).
    public var kept: Int = 0
    /// Rows of a coalesced table that matched nothing and were not written (`on_missing: skip`).
    public var skippedUnmatched: Int = 0
    /// Target records deleted for deletion records (`deletes: propagate`).
    public var deleted: Int = 0
    /// Deletion records that deleted nothing: `deletes: ignore`, a record the target no longer had, or
    /// one the migration never wrote (unknown to the map, `kept`, `skipped`).
    public var deletionsIgnored: Int = 0
    /// References the target could not resolve, by field: count and the first one
    /// (``InstanceReferenceResolver``; written as they were, or cleared, per `on_unresolved`).
    public var unresolved: [String: UnresolvedReferences] = [:]
    /// Requests sent to the target: lookups and writes, not counting NowData's retries.
    public var requests: Int
    /// The load's id (``SinkContext/loadID``), the key of its progress record.
    public var loadID: String

    /// Creates a description of a load.
    public init(
        instance: String, table: String, mode: InstanceWriteMode, inserted: Int = 0, updated: Int = 0,
        skippedExisting: Int = 0, alreadyWritten: Int = 0, requests: Int = 0, loadID: String
    ) {
        self.instance = instance
        self.table = table
        self.mode = mode
        self.inserted = inserted
        self.updated = updated
        self.skippedExisting = skippedExisting
        self.alreadyWritten = alreadyWritten
        self.requests = requests
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
