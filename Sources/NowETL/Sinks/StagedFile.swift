#if canImport(Glibc)
    import Glibc
#endif

/// A finished file waiting under its hidden temporary name beside its target, for the run's commit to
/// rename into place.
///
/// A sink's ``RecordSink/prepare()`` returns these; ``RunCommit`` records them in the commit record
/// and renames them. The temporary file is complete and synced (`fsync`), and lies in the target's
/// directory (the same file system, so the rename is atomic). Its name has the form of
/// ``AtomicFile``'s temporary files (`.<name>.tmp-<16 hex digits>`), so a run that dies before its
/// commit record is written leaves nothing that `OutputDirectoryLock.removeStaleTemporaryFiles()`
/// will not find.
public struct StagedFile: Sendable, Hashable, Codable {
    /// The absolute path of the finished temporary file.
    public var temporaryPath: String
    /// The absolute path the file gets on commit (an existing file there is replaced).
    public var targetPath: String
    /// The path shown in logs and errors (relative to the output directory).
    public var displayPath: String

    enum CodingKeys: String, CodingKey {
        case temporaryPath = "temporary_path"
        case targetPath = "target_path"
        case displayPath = "display_path"
    }

    /// Removes the temporary file (for a staged file the run will not commit, such as the manifest of
    /// a run whose commit record could not be written); a missing file is no error.
    public func removeTemporaryFile() {
        _ = unlink(temporaryPath)
    }
}
