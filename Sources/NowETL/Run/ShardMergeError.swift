/// Why `nowetl merge` (or `nowetl run --shard`) refused to go on; nothing was published.
///
/// Exit codes: 1 when a shard is missing, failed or its files do not match its manifest (run that
/// shard again, then merge); 78 when the shards do not belong together or the pipeline cannot be
/// sharded (another pipeline file, another shard count, other tables, an incremental table, an
/// instance output); 75 while a shard (or another run) still holds its lock.
public struct ShardMergeError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// What is wrong and what to do, naming the shard and the file.
    public var description: String
    /// The exit code (see the type's summary).
    public var exitCode: Int32

    /// Creates an error.
    public init(_ description: String, exitCode: Int32) {
        self.description = description
        self.exitCode = exitCode
    }

    /// A shard to run again (exit 1).
    static func rerun(_ description: String) -> ShardMergeError {
        ShardMergeError(description, exitCode: NowETLExitCode.failed)
    }

    /// Shards or a pipeline that cannot be merged (exit 78).
    static func configuration(_ description: String) -> ShardMergeError {
        ShardMergeError(description, exitCode: NowETLExitCode.configuration)
    }
}
