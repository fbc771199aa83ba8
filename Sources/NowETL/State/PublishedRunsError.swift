#if canImport(Glibc)
    import Glibc
#endif

/// A run directory or the `current` link of publish mode `directories` could not be made, read,
/// switched or pruned; names the path and, for system errors, the `errno`. Always a failure (exit 1).
public struct PublishedRunsError: Error, ExitCodeProviding, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The run id cannot name a directory (empty, a dot name, a `/`, a hidden name).
        case invalidRunID
        /// The run directory to publish does not exist.
        case missingRunDirectory
        /// `<output_dir>/current` exists but is not a symbolic link to `runs/<run_id>`.
        case notARunLink
        /// A system call failed (see ``PublishedRunsError/errno``).
        case io
    }

    /// What went wrong.
    public var kind: Kind
    /// The path concerned.
    public var path: String
    /// What failed and what the user can do.
    public var message: String
    /// The system error number for ``Kind/io``.
    public var errno: Int32?

    /// Creates an error.
    public init(_ kind: Kind, path: String, _ message: String, errno: Int32? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.errno = errno
    }

    /// An ``Kind/io`` error for `errno` while doing `action`.
    static func io(_ action: String, path: String, errno number: Int32 = Glibc.errno) -> PublishedRunsError {
        let reason = String(cString: strerror(number))
        return PublishedRunsError(
            .io, path: path, "cannot \(action) \(path): \(reason) (errno \(number))", errno: number)
    }

    /// 1: the run failed.
    public var exitCode: Int32 { NowETLExitCode.failed }

    /// The message (it names the path).
    public var description: String { message }
}
