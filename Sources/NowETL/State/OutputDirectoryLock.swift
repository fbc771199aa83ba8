import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The claim of one `nowetl run` on its `output_dir`: an exclusive `flock` on `.nowetl.lock` there,
/// held until the run ends.
///
/// Two runs writing the same files would each rename their own outputs and manifest into place, and
/// the directory would end up holding a mix that no run wrote. So a second run does not start: it
/// fails with exit 75 (temporary failure: the next cron slot may succeed) naming the holder's pid and
/// start time, which the holder writes into the lock file.
///
/// The kernel drops a `flock` when its process dies, however it dies, so a crashed run never blocks
/// the next one. A crash does leave its pid in the file (a clean run empties it on ``release()``): the
/// next run takes the lock over and reports the dead holder in ``previousHolder`` so the caller can warn.
/// Holding the lock is also what makes it safe to remove the temporary files of interrupted runs
/// (``removeStaleTemporaryFiles(excluding:)``): no live run can own them.
///
/// **Ownership.** The lock file also records which pipeline the directory belongs to: its first line,
/// `pipeline: "/etc/nowetl/incident.yaml"` (the pipeline file's resolved absolute path, as a JSON
/// string), written by the first run and kept when the lock is released. A run of another pipeline is
/// refused (``NowETLError/Code/foreignOwner``, exit 78, naming both) before anything in
/// the directory is written or deleted: two pipelines in one `output_dir` would replace each other's
/// manifest and remove each other's journals. Removing the lock file (while no run holds it) hands the
/// directory over to the next pipeline that runs there.
///
/// **No links.** The lock file is opened relative to the directory's descriptor with `O_NOFOLLOW`, and
/// a symbolic link at `.nowetl.lock` or `.nowetl` is refused (exit 73) with its target untouched
/// (``OwnFiles``). The lock file's mode is 0600.
///
/// States: held from a successful ``acquire(directory:runID:started:pipeline:directoryMode:)`` until ``release()`` (or
/// `deinit`), then released; releasing twice does nothing.
public final class OutputDirectoryLock {
    /// The lock file's name inside the output directory.
    public static let fileName = ".nowetl.lock"

    /// The output directory.
    public let directory: String
    /// What the lock file said when it was taken over from a run that did not finish, or `nil`.
    public let previousHolder: String?
    /// The pipeline the directory belongs to (the ownership line), `nil` when none is recorded.
    public let owner: String?
    private var descriptor: Int32

    private init(directory: String, descriptor: Int32, previousHolder: String?, owner: String?) {
        self.directory = directory
        self.descriptor = descriptor
        self.previousHolder = previousHolder
        self.owner = owner
    }

    deinit { release() }

    /// Takes the lock of `directory` (created with `directoryMode` if missing) for the run `runID` of
    /// `pipeline` (``pipelineIdentity(of:)``; `nil`: no ownership check or record), started at `started`.
    ///
    /// - Throws: ``NowETLError`` — ``NowETLError/Code/outputDirectoryBusy`` (exit 75) while
    ///   another run of the same pipeline holds it, ``NowETLError/Code/foreignOwner`` (exit
    ///   78) when the directory belongs to another pipeline, ``NowETLError/Code/symbolicLink``
    ///   (exit 73) for a link at `.nowetl.lock` or `.nowetl`, ``NowETLError/Code/io``
    ///   (exit 1) when the directory or the lock file cannot be created, read or written.
    public static func acquire(
        directory: String, runID: String, started: Date, pipeline: String? = nil, directoryMode: mode_t = 0o755
    ) throws(NowETLError) -> OutputDirectoryLock {
        let path = directory + "/" + fileName
        do {
            try OwnFiles.makeDirectories(directory, mode: directoryMode)
        } catch {
            throw .lock(
                error.code == .symbolicLink ? .symbolicLink : .io, path: directory,
                "cannot create the output directory",
                cause: error)
        }
        var directoryDescriptor: Int32
        repeat {
            directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        } while directoryDescriptor < 0 && errno == EINTR
        guard directoryDescriptor >= 0 else {
            throw .lockIO(directory, "cannot open the output directory", errno: errno)
        }
        defer { close(directoryDescriptor) }
        // The state directory is reached by name later on: a link there would take every state file
        // (and the commit's renames) wherever it points.
        var info = stat()
        if fstatat(directoryDescriptor, RunCommit.stateDirectoryName, &info, AT_SYMLINK_NOFOLLOW) == 0,
            info.st_mode & S_IFMT != S_IFDIR
        {
            let state = directory + "/" + RunCommit.stateDirectoryName
            throw info.st_mode & S_IFMT == S_IFLNK
                ? .lock(.symbolicLink, path: state, cause: OwnFiles.symlinkRefused(state))
                : .lock(.io, path: state, "nowetl's state directory is not a directory")
        }
        let fd: Int32
        do {
            fd = try OwnFiles.open(
                in: directoryDescriptor, fileName, O_RDWR | O_CREAT, displayPath: path, action: "open the lock file")
        } catch {
            throw .lock(error.code == .symbolicLink ? .symbolicLink : .io, path: path, cause: error)
        }
        var locked: Int32
        repeat { locked = flock(fd, LOCK_EX | LOCK_NB) } while locked != 0 && errno == EINTR
        if locked != 0 {
            let number = errno
            let contents = Contents(readAll(fd))
            close(fd)
            if let refusal = refusal(pipeline: pipeline, contents: contents, directory: directory, path: path) {
                throw refusal
            }
            if number == EWOULDBLOCK {
                throw .lock(
                    .outputDirectoryBusy, path: path,
                    "another nowetl run is writing to this output_dir ("
                        + (contents.holder ?? "holder unknown") + "); try again when it has finished")
            }
            throw .lockIO(path, "cannot lock", errno: number)
        }
        let contents = Contents(readAll(fd))
        // Refused before anything is written: the lock file stays as the owner left it.
        if let refusal = refusal(pipeline: pipeline, contents: contents, directory: directory, path: path) {
            _ = flock(fd, LOCK_UN)
            close(fd)
            throw refusal
        }
        let owner = contents.owner ?? pipeline
        let lock = OutputDirectoryLock(
            directory: directory, descriptor: fd, previousHolder: contents.holder, owner: owner)
        let holder = "pid \(getpid()), run \(runID), started \(RunLogger.timestamp(started))"
        guard replaceContents(fd, Contents.text(owner: owner, holder: holder)), fsync(fd) == 0 else {
            throw .lockIO(path, "cannot write the lock file", errno: errno)
        }
        return lock
    }

    /// The identity a pipeline file gives its `output_dir`: its absolute path with links resolved (the
    /// path as given, made absolute, when it cannot be resolved).
    public static func pipelineIdentity(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return RunCommit.absolute(path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The refusal of `pipeline` in a directory whose lock file says `contents`, if it belongs to another.
    private static func refusal(pipeline: String?, contents: Contents, directory: String, path: String)
        -> NowETLError?
    {
        guard let pipeline, let owner = contents.owner, owner != pipeline else { return nil }
        return .lock(
            .foreignOwner, path: RunCommit.absolute(directory),
            "this output_dir belongs to the pipeline \(owner), not to \(pipeline): two pipelines in one "
                + "output_dir would replace each other's manifest and remove each other's journals. Give \(pipeline) "
                + "an output_dir of its own; to hand this one over, remove \(path) while no run holds it")
    }

    /// Removes the temporary files (``AtomicFile``'s `.<name>.tmp-<16 hex digits>`) that interrupted runs
    /// left anywhere below the output directory; returns their paths relative to it.
    ///
    /// Only a lock holder may call this: any such file then belongs to a run that is gone.
    ///
    /// **Call it only after `RunCommit.recover(outputDirectory:)`**: a run that died after writing its
    /// commit record still needs its staged temporary files to finish the commit; removing them first
    /// loses that run's outputs (and a target that already existed would silently keep its old bytes).
    /// What is left once recovery has run belongs to runs that never decided to commit.
    ///
    /// `excluding`: directories (relative to the output directory) left alone, whose files belong to
    /// processes this lock does not stop — the shards under `.nowetl/shards`, which hold locks of their own.
    public func removeStaleTemporaryFiles(excluding: [String] = []) -> [String] {
        guard descriptor >= 0 else { return [] }
        var removed: [String] = []
        // A walk of real directories only: a symbolic link to a directory is not descended into, so no file
        // outside output_dir is ever unlinked (FileManager's enumerator may follow such links).
        var pending = [""]
        while let relativeDirectory = pending.popLast() {
            let path = relativeDirectory.isEmpty ? directory : directory + "/" + relativeDirectory
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let relative = relativeDirectory.isEmpty ? name : relativeDirectory + "/" + name
                if excluding.contains(where: { relative == $0 || relative.hasPrefix($0 + "/") }) { continue }
                var info = stat()
                guard lstat(directory + "/" + relative, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: pending.append(relative)
                case S_IFREG:
                    if AtomicFile.isTemporaryName(name), unlink(directory + "/" + relative) == 0 {
                        removed.append(relative)
                    }
                default: continue
                }
            }
        }
        return removed.sorted()
    }

    /// Leaves only the ownership line in the lock file (so the next run sees a clean hand-over) and drops
    /// the lock.
    public func release() {
        guard descriptor >= 0 else { return }
        _ = Self.replaceContents(descriptor, Contents.text(owner: owner, holder: nil))
        // Unlocked explicitly, not by the close: a child process forked by another thread and not yet
        // exec'd shares the open file description, and would otherwise hold the lock until its exec.
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    /// What a lock file says: the owning pipeline (first line `pipeline: "<path>"`) and the holder (any
    /// other text: `pid …, run …, started …`, present while a run holds the lock or after one crashed).
    private struct Contents {
        static let ownerPrefix = "pipeline: "
        var owner: String?
        var holder: String?

        init(_ text: String) {
            var rest: [Substring] = []
            for line in text.split(separator: "\n") {
                if owner == nil, line.hasPrefix(Self.ownerPrefix),
                    let value = try? JSONDecoder().decode(
                        String.self, from: Data(line.dropFirst(Self.ownerPrefix.count).utf8))
                {
                    owner = value
                } else {
                    rest.append(line)
                }
            }
            let holder = rest.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            self.holder = holder.isEmpty ? nil : holder
        }

        static func text(owner: String?, holder: String?) -> String {
            var lines: [String] = []
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            if let owner, let data = try? encoder.encode(owner) {
                lines.append(ownerPrefix + String(decoding: data, as: UTF8.self))
            }
            if let holder { lines.append(holder) }
            return lines.map { $0 + "\n" }.joined()
        }
    }

    private static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        var offset: off_t = 0
        while bytes.count < 4096 {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            offset += off_t(count)
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `text` over the file's start, then cuts the file to it: the ownership line, always first,
    /// is never missing from the file, even for a moment.
    private static func replaceContents(_ fd: Int32, _ text: String) -> Bool {
        guard writeAll(fd, text) else { return false }
        return ftruncate(fd, off_t(text.utf8.count)) == 0
    }

    private static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(written)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}

extension NowETLError {
    /// An error claiming the output directory: `<path>: <detail>` (the detail alone when it starts with
    /// the path); with a `cause`, the detail is the cause's.
    fileprivate static func lock(
        _ code: Code, path: String, _ detail: String = "", cause: NowETLError? = nil, file: String = #fileID,
        line: Int = #line
    ) -> NowETLError {
        let shown = [detail, cause?.description ?? ""].filter { !$0.isEmpty }.joined(separator: ": ")
        return NowETLError(
            code, path: path, shown.hasPrefix(path) ? detail : path + (detail.isEmpty ? "" : ": " + detail),
            cause: cause, errno: cause?.errno, file: file, line: line)
    }

    /// A ``Code/io`` error claiming the output directory: `<path>: <what>: <strerror>`.
    fileprivate static func lockIO(_ path: String, _ what: String, errno number: Int32) -> NowETLError {
        lock(.io, path: path, "\(what): \(String(cString: strerror(number)))")
    }
}
