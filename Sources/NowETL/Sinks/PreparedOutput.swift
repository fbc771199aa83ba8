/// What a sink's ``RecordSink/prepare()`` leaves ready for the run's commit: the staged files to
/// rename, the stale files to remove, and what the sink will report once committed.
///
/// Nothing of it is visible yet: the run gathers the prepared outputs of every sink into one commit
/// record (`RunCommit`), so the files of all tables and the manifest appear together or not at all.
/// A sink that writes nothing to the output directory (a database, ``MemorySink``) prepares an output
/// without staged files.
public struct PreparedOutput: Sendable, Hashable, Codable {
    /// The finished temporary files, in commit order.
    public var staged: [StagedFile]
    /// Absolute paths to unlink after the renames: the parts numbered beyond this run's last part that
    /// an earlier, longer run of a split output left (so the directory holds only this run's parts).
    public var removals: [String]
    /// What ``RecordSink/commit()`` will return: for files, an ``OutputFile`` with the rows, bytes and
    /// SHA-256 of the staged file and its target as `absolutePath`.
    public var artifacts: [Artifact]

    /// Creates a prepared output; the default is one with nothing to commit.
    public init(staged: [StagedFile] = [], removals: [String] = [], artifacts: [Artifact] = []) {
        self.staged = staged
        self.removals = removals
        self.artifacts = artifacts
    }
}
