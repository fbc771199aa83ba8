#if canImport(Glibc)
    import Glibc
#endif

/// The run's commit could not be written, applied or recovered; names the file and, for system
/// errors, the `errno`.
///
/// `description` reads as one log line: `out/.nowetl/commit.json: cannot rename … (errno 28)`. Every
/// kind is a failure of the run (exit 1): a commit record that could not be applied stays in place,
/// and the next run rolls it forward before it writes anything (``RunCommit/recover(outputDirectory:)``).
public struct RunCommitError: Error, ExitCodeProviding, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A system call failed (see ``RunCommitError/errno``).
        case io
        /// A staged file is neither under its temporary name nor under its target name: something
        /// removed it after the run decided to commit.
        case missingStagedFile
        /// The commit record exists but cannot be read or decoded, or has a version this program does
        /// not know; it is left in place.
        case unreadableRecord
        /// The record names a path outside the output directory (or, for a directory to clear, outside
        /// its `.nowetl` state directory); nothing was changed.
        case pathRefused
        /// A commit record of an earlier commit is still in place, so a new one is not written over it.
        case pendingRecord
    }

    /// What went wrong.
    public var kind: Kind
    /// The file or directory concerned (absolute, or as the output directory was given).
    public var path: String
    /// What failed and what the user can do, for people.
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

    /// An ``Kind/io`` error for `errno` while doing `action` (`rename … to`, `remove`).
    static func io(_ action: String, path: String, errno number: Int32 = Glibc.errno) -> RunCommitError {
        let reason = String(cString: strerror(number))
        return RunCommitError(.io, path: path, "cannot \(action) \(path): \(reason) (errno \(number))", errno: number)
    }

    /// Every commit error fails the run: 1.
    public var exitCode: Int32 { NowETLExitCode.failed }

    /// The message (it names the path).
    public var description: String { message }
}
