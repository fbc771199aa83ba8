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
/// (``removeStaleTemporaryFiles()``): no live run can own them.
///
/// States: held from a successful ``acquire(directory:runID:started:)`` until ``release()`` (or
/// `deinit`), then released; releasing twice does nothing.
public final class OutputDirectoryLock {
    /// The lock file's name inside the output directory.
    public static let fileName = ".nowetl.lock"

    /// The output directory.
    public let directory: String
    /// What the lock file said when it was taken over from a run that did not finish, or `nil`.
    public let previousHolder: String?
    private var descriptor: Int32

    private init(directory: String, descriptor: Int32, previousHolder: String?) {
        self.directory = directory
        self.descriptor = descriptor
        self.previousHolder = previousHolder
    }

    deinit { release() }

    /// Takes the lock of `directory` (created if missing) for the run `runID`, started at `started`.
    ///
    /// - Throws: ``OutputDirectoryLockError`` — ``OutputDirectoryLockError/Kind/busy`` (exit 75) while
    ///   another process holds it, ``OutputDirectoryLockError/Kind/io`` (exit 1) when the directory or
    ///   the lock file cannot be created, read or written.
    public static func acquire(directory: String, runID: String, started: Date) throws(OutputDirectoryLockError)
        -> OutputDirectoryLock
    {
        let path = directory + "/" + fileName
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw OutputDirectoryLockError(kind: .io, path: directory, detail: "cannot create the output directory")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path, "cannot open the lock file", errno: errno) }
        var locked: Int32
        repeat { locked = flock(fd, LOCK_EX | LOCK_NB) } while locked != 0 && errno == EINTR
        if locked != 0 {
            let number = errno
            let holder = readAll(fd)
            close(fd)
            if number == EWOULDBLOCK {
                throw OutputDirectoryLockError(
                    kind: .busy, path: path,
                    detail: "another nowetl run is writing to this output_dir ("
                        + (holder.isEmpty ? "holder unknown" : holder) + "); try again when it has finished")
            }
            throw .io(path, "cannot lock", errno: number)
        }
        let previous = readAll(fd)
        let lock = OutputDirectoryLock(
            directory: directory, descriptor: fd, previousHolder: previous.isEmpty ? nil : previous)
        let holder = "pid \(getpid()), run \(runID), started \(RunLogger.timestamp(started))"
        guard ftruncate(fd, 0) == 0, writeAll(fd, holder), fsync(fd) == 0 else {
            throw .io(path, "cannot write the lock file", errno: errno)
        }
        return lock
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
        guard descriptor >= 0, let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var removed: [String] = []
        while let relative = walker.nextObject() as? String {
            if excluding.contains(where: { relative == $0 || relative.hasPrefix($0 + "/") }) { continue }
            let name = (relative as NSString).lastPathComponent
            guard AtomicFile.isTemporaryName(name) else { continue }
            if unlink(directory + "/" + relative) == 0 { removed.append(relative) }
        }
        return removed.sorted()
    }

    /// Empties the lock file (so the next run sees a clean hand-over) and drops the lock.
    public func release() {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        close(descriptor)
        descriptor = -1
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

    private static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array((text + "\n").utf8)
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

/// The output directory could not be claimed for a run.
public struct OutputDirectoryLockError: Error, ExitCodeProviding, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// Another run holds the lock (exit 75).
        case busy
        /// The directory or the lock file could not be created, read or written (exit 1).
        case io
    }

    /// What went wrong.
    public var kind: Kind
    /// The lock file or directory.
    public var path: String
    /// The explanation, with the holder or the system's error.
    public var detail: String

    /// 75 for ``Kind/busy``, 1 for ``Kind/io``.
    public var exitCode: Int32 { kind == .busy ? NowETLExitCode.temporaryFailure : NowETLExitCode.failed }

    /// `<path>: <detail>`.
    public var description: String { "\(path): \(detail)" }

    static func io(_ path: String, _ what: String, errno number: Int32) -> OutputDirectoryLockError {
        OutputDirectoryLockError(kind: .io, path: path, detail: "\(what): \(String(cString: strerror(number)))")
    }
}
