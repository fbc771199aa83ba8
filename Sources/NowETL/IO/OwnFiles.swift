import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How nowetl creates the files and directories of its own in `output_dir`: never through a symbolic
/// link, and with modes that do not depend on the umask.
///
/// Whoever can write into `output_dir` could otherwise plant a link at one of nowetl's fixed names
/// (`.nowetl.lock`, `.nowetl/`, a journal) and have the next run truncate or write the link's target
/// with the run's privileges. So every fixed name is opened with `O_NOFOLLOW` (a link is refused with
/// ``symlinkRefused(_:)``, exit 73, its target untouched), every temporary name is new (`O_EXCL`), and
/// the state directory `.nowetl/` and everything below it must be real directories.
///
/// Modes: the state (``privateFileMode``, ``privateDirectoryMode``) is the owner's alone — it holds the
/// same rows as the outputs; outputs get the pipeline's `file_mode` (default ``defaultFileMode``).
/// A mode is set with `fchmod`/`chmod` after creation, so the umask cannot widen or narrow it.
/// Directories that exist already keep their mode.
enum OwnFiles {
    /// Files of nowetl's state: the lock, `state.json`, journals, spills, dead letters, commit records.
    static let privateFileMode: mode_t = 0o600
    /// `.nowetl/` and every directory below it.
    static let privateDirectoryMode: mode_t = 0o700
    /// The outputs' mode when the pipeline sets no `file_mode`.
    static let defaultFileMode: mode_t = 0o640

    /// The mode of a directory nowetl creates for outputs of `fileMode`: each class that may read the
    /// files may also enter the directory (0640 → 0750, 0644 → 0755).
    static func directoryMode(forFileMode fileMode: mode_t) -> mode_t {
        (fileMode & 0o777) | ((fileMode & 0o444) >> 2)
    }

    /// The error for a symbolic link found where nowetl writes one of its own files (exit 73).
    static func symlinkRefused(_ path: String) -> NowETLError {
        NowETLError(
            .symbolicLink, path: path,
            "\(path) is a symbolic link; nowetl does not follow links where it writes its own files in output_dir "
                + "(someone may have planted it to make nowetl overwrite the file it points to). "
                + "Nothing was written through it; remove the link and run again")
    }

    /// `open(2)` of `path` with `O_NOFOLLOW | O_CLOEXEC` added; with `O_CREAT`, the file gets `mode`
    /// (`fchmod`, whatever the umask).
    ///
    /// - Throws: ``symlinkRefused(_:)`` when `path` is a symbolic link, otherwise ``NowETLError`` (`io`)
    ///   naming `action` and the path.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = privateFileMode, action: String) throws(NowETLError)
        -> Int32
    {
        var fd: Int32
        repeat { fd = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode) } while fd < 0 && errno == EINTR
        return try checked(fd, path: path, flags: flags, mode: mode, action: action)
    }

    /// `openat(2)` of `name` in the directory `directory`, like ``open(_:_:mode:action:)``;
    /// `displayPath` names the file in errors.
    static func open(
        in directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = privateFileMode, displayPath: String,
        action: String
    ) throws(NowETLError) -> Int32 {
        var fd: Int32
        repeat { fd = openat(directory, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) } while fd < 0 && errno == EINTR
        return try checked(fd, path: displayPath, flags: flags, mode: mode, action: action)
    }

    private static func checked(_ fd: Int32, path: String, flags: Int32, mode: mode_t, action: String)
        throws(NowETLError) -> Int32
    {
        guard fd >= 0 else {
            let number = errno
            // O_NOFOLLOW reports a link as ELOOP; O_EXCL reports it as EEXIST, which the caller handles.
            if number == ELOOP { throw symlinkRefused(path) }
            throw NowETLError.io(action, path: path, errno: number)
        }
        if flags & O_CREAT != 0, fchmod(fd, mode) != 0, errno != EPERM {
            let number = errno
            _ = Glibc.close(fd)
            throw NowETLError.io("set the mode of", path: path, errno: number)
        }
        return fd
    }

    /// Creates the missing directories of `path`, the deepest last. Those from `.nowetl` down get
    /// ``privateDirectoryMode`` and must not be symbolic links; those above (`output_dir` and its
    /// parents, or an output's own folders) get `mode` and are followed like any path the operator
    /// wrote. Existing directories keep their mode.
    ///
    /// - Throws: ``symlinkRefused(_:)`` for a link at or below `.nowetl`; ``NowETLError`` (`io`) when a
    ///   directory cannot be created or something else has its name.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(NowETLError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var current = path.hasPrefix("/") ? "" : "."
        var privateFrom = components.count
        if let state = components.lastIndex(of: Substring(RunCommit.stateDirectoryName)) { privateFrom = state }
        for (index, component) in components.enumerated() {
            current += "/" + component
            let isPrivate = index >= privateFrom
            let wanted = isPrivate ? privateDirectoryMode : mode
            if mkdir(current, wanted) == 0 {
                // The umask narrowed mkdir's mode: set it as asked.
                _ = chmod(current, wanted)
                continue
            }
            let number = errno
            guard number == EEXIST else {
                throw NowETLError.io("create the directory", path: current, errno: number)
            }
            var info = stat()
            guard (isPrivate ? lstat(current, &info) : stat(current, &info)) == 0 else {
                throw NowETLError.io("look at", path: current)
            }
            if info.st_mode & S_IFMT == S_IFLNK { throw symlinkRefused(current) }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw NowETLError(.io, path: current, "cannot create the directory \(current): a file has its name")
            }
        }
    }
}
