/// The settings of an `instance:` output: the target instance and how hard it may be pushed.
public struct InstanceSinkOptions: Sendable, Hashable {
    /// The allowed ``concurrency`` values.
    public static let concurrencyRange = 1...32

    /// How to reach the target instance.
    public var connection: InstanceConnection
    /// What happens to rows the target already has (default ``InstanceWriteMode/upsert``).
    public var mode: InstanceWriteMode
    /// Requests in flight against the target (default 4), independent of the source's.
    public var concurrency: Int
    /// The most requests per second sent to the target, `nil` for no ceiling.
    public var ratePerSecond: Double?
    /// Rows whose existence one GET asks for (`sys_idIN…`, default 100).
    public var lookupBatchSize: Int
    /// Writes per Batch API call (`/api/now/v1/batch`, default 25); 1 sends single requests.
    public var batchSize: Int
    /// Which tables are matched on business keys, and what happens to matches, misses and unresolved
    /// references (``InstanceMatching``; by default records match by sys_id only).
    public var matching: InstanceMatching
    /// What the pre-flight may find on the target and the run still go on (``TargetPreflightPolicy``).
    public var preflight = TargetPreflightPolicy()
    /// Where the load's progress record goes: the pipeline's `output_dir` (its run journal directory).
    public var outputDirectory: String

    /// Creates options.
    public init(
        connection: InstanceConnection, mode: InstanceWriteMode = .upsert, concurrency: Int = 4,
        ratePerSecond: Double? = nil, lookupBatchSize: Int = 100, batchSize: Int = 25,
        outputDirectory: String = "out", matching: InstanceMatching = InstanceMatching()
    ) {
        self.connection = connection
        self.mode = mode
        self.concurrency = concurrency
        self.ratePerSecond = ratePerSecond
        self.lookupBatchSize = max(1, lookupBatchSize)
        self.batchSize = max(1, batchSize)
        self.outputDirectory = outputDirectory
        self.matching = matching
    }

    /// These options with the progress record under `outputDirectory`.
    func keepingProgress(in outputDirectory: String) -> InstanceSinkOptions {
        var options = self
        options.outputDirectory = outputDirectory
        return options
    }
}
