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

    /// Rows of the table the load accounts for: written, skipped and already written before.
    public var rows: Int { inserted + updated + skippedExisting + alreadyWritten }
}
