import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file written under a hidden temporary name beside its target and renamed into place only on
/// ``commit()`` — or handed over with ``release()`` for the run's commit to rename — hashing and
/// counting its bytes as they are written.
///
/// The temporary file is `.<name>.tmp-<16 hex digits>` in the target's directory (the same file system,
/// so the rename is atomic: readers see the old file or the new one, never half of one). ``finish()``
/// flushes the data to disk with `fsync` before the rename; ``commit()`` then `fsync`s the directory so
/// the new name survives a power cut. ``abort()`` — and `deinit` when neither happened — removes the
/// temporary file; the target is never touched before the rename.
///
/// States:
/// - `writing` → ``finish()`` → `finished` (synced and closed; the hash is known).
/// - `finished` → ``commit()`` → `committed`: renamed into place by this file (``commit()`` from
///   `writing` finishes first).
/// - `finished` → ``release()`` → `released`: the temporary file now belongs to the run's commit
///   (`RunCommit`), which renames it.
/// - `writing` or `finished` → ``abort()`` or `deinit` → `aborted`: the temporary file is removed.
///
/// `committed`, `released` and `aborted` are final; ``abort()`` and `deinit` leave a committed or
/// released file alone.
final class AtomicFile: ByteOutput {
    /// The absolute path the file will have after ``commit()``.
    let targetPath: String
    /// The path shown in errors (relative to the output directory).
    let displayPath: String
    /// The absolute path of the hidden temporary file.
    let temporaryPath: String
    /// Bytes written so far.
    private(set) var byteCount = 0
    private var hasher = SHA256()
    private var descriptor: Int32
    private(set) var digest: SHA256.Digest?
    private var state = State.writing

    private enum State { case writing, finished, committed, released, aborted }

    /// Creates the temporary file beside `targetPath` (whose directory must exist) with `mode`
    /// (``OwnFiles/privateFileMode`` for nowetl's state, the pipeline's `file_mode` for outputs; `nil`:
    /// 0666 less the umask, for files outside `output_dir` such as `init`'s pipeline file).
    ///
    /// The name is new (`O_EXCL`, `O_NOFOLLOW`): a file or link planted beside the target is never
    /// opened, and the rename that ends the file replaces a link at the target, never its target.
    init(targetPath: String, displayPath: String, mode: mode_t?) throws {
        self.targetPath = targetPath
        self.displayPath = displayPath
        let slash = targetPath.lastIndex(of: "/")
        let directory = slash.map { String(targetPath[..<$0]) } ?? "."
        let name = slash.map { String(targetPath[targetPath.index(after: $0)...]) } ?? targetPath
        var attempt = 0
        while true {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let candidate =
                directory + "/." + name + ".tmp-" + String(repeating: "0", count: 16 - suffix.count) + suffix
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o666)
            if fd >= 0 {
                if let mode, fchmod(fd, mode) != 0 {
                    let number = errno
                    _ = close(fd)
                    _ = unlink(candidate)
                    throw NowETLError.io("set the mode of the temporary file for", path: displayPath, errno: number)
                }
                temporaryPath = candidate
                descriptor = fd
                return
            }
            let number = errno
            attempt += 1
            guard number == EEXIST, attempt < 16 else {
                throw NowETLError.io("create a temporary file for", path: displayPath, errno: number)
            }
        }
    }

    deinit {
        if state == .writing || state == .finished { abort() }
    }

    /// A new temporary file beside `targetPath` (``init(targetPath:displayPath:mode:)``) holding `data`,
    /// not yet finished; when the write fails, the file is removed and the error thrown.
    static func holding(_ data: Data, targetPath: String, displayPath: String, mode: mode_t?) throws -> AtomicFile {
        let file = try AtomicFile(targetPath: targetPath, displayPath: displayPath, mode: mode)
        do {
            try data.withUnsafeBytes { try file.write($0) }
        } catch {
            file.abort()
            throw error
        }
        return file
    }

    /// Whether `name` (a file name without folder) has the form of a temporary file of this type:
    /// `.<name>.tmp-<16 lowercase hex digits>`.
    static func isTemporaryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let marker = Array(".tmp-".utf8)
        guard bytes.count > 1 + marker.count + 16, bytes[0] == UInt8(ascii: ".") else { return false }
        let digits = bytes.suffix(16)
        guard Array(bytes.dropLast(16).suffix(marker.count)) == marker else { return false }
        return digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Appends bytes to the temporary file.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard state == .writing else {
            throw NowETLError(.misuse, path: displayPath, "write to \(displayPath) after it was finished")
        }
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        hasher.update(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw NowETLError.io("write", path: displayPath)
            }
            offset += written
        }
        byteCount += bytes.count
    }

    /// Syncs and closes the temporary file and returns the SHA-256 of its bytes; no more writes.
    @discardableResult
    func finish() throws -> SHA256.Digest {
        if let digest, state == .finished { return digest }
        guard state == .writing else {
            throw NowETLError(.misuse, path: displayPath, "finish \(displayPath) after commit, release or abort")
        }
        if fsync(descriptor) != 0 {
            throw NowETLError.io("sync", path: displayPath)
        }
        let fd = descriptor
        descriptor = -1
        if close(fd) != 0 {
            throw NowETLError.io("close", path: displayPath)
        }
        let result = hasher.finalize()
        digest = result
        state = .finished
        return result
    }

    /// Renames the finished file into place, replacing any previous file, and syncs the directory.
    func commit() throws {
        if state == .writing { try finish() }
        guard state == .finished else {
            throw NowETLError(.misuse, path: displayPath, "commit \(displayPath) after commit, release or abort")
        }
        if rename(temporaryPath, targetPath) != 0 {
            throw NowETLError.io("rename the finished temporary file into place as", path: displayPath)
        }
        state = .committed
        let slash = targetPath.lastIndex(of: "/")
        Self.syncDirectory(slash.map { String(targetPath[..<$0]) } ?? ".")
    }

    /// ``commit()``; when it fails, the temporary file is removed and the error thrown.
    func commitOrAbort() throws {
        do {
            try commit()
        } catch {
            abort()
            throw error
        }
    }

    /// `fsync`s a directory, so that names created, renamed or removed in it survive a power cut.
    ///
    /// Best effort: it runs after the change is done, and a directory that cannot be synced (some file
    /// systems refuse) is no error.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            _ = close(fd)
        }
    }

    /// The finished temporary file and its target, for a commit record.
    var stagedFile: StagedFile {
        StagedFile(temporaryPath: temporaryPath, targetPath: targetPath, displayPath: displayPath)
    }

    /// Finishes the file and hands it over to the run's commit (``finish()`` then ``release()``): its
    /// staged file for a commit record; on a failure the temporary file is removed and the error thrown.
    func stage() throws -> StagedFile {
        do {
            try finish()
            try release()
        } catch {
            abort()
            throw error
        }
        return stagedFile
    }

    /// Hands the finished temporary file over to the run's commit, which renames it (``stagedFile``):
    /// from now on neither ``abort()`` nor `deinit` removes it. Releasing twice does nothing.
    ///
    /// - Throws: ``NowETLError/Code/misuse`` before ``finish()``, or after commit or abort.
    func release() throws {
        if state == .released { return }
        guard state == .finished else {
            throw NowETLError(
                .misuse, path: displayPath,
                state == .writing
                    ? "release \(displayPath) before it was finished" : "release \(displayPath) after commit or abort")
        }
        state = .released
    }

    /// Closes and removes the temporary file; the target stays as it was. Does nothing after commit or
    /// release.
    func abort() {
        guard state == .writing || state == .finished else { return }
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
        _ = unlink(temporaryPath)
        state = .aborted
    }
}
