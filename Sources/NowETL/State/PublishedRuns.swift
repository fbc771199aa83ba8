import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The layout of publish mode `directories` (``PublishConfiguration``): one directory per run,
/// `<output_dir>/runs/<run_id>/`, and the symbolic link `<output_dir>/current` → `runs/<run_id>`
/// naming the run readers see.
///
/// A run writes all its files (and its manifest) into its own directory; its commit switches `current`
/// with one `rename` of a new link over the old one, so a reader that opens `current/…` sees exactly
/// one run's files — the previous run's until the rename, the new run's after. Old run directories
/// are pruned after the switch, keeping the newest few for readers still working in them (and for
/// going back by hand: `ln -sfn runs/<run_id> current.new && mv -T current.new current`).
///
/// The link's target is relative (`runs/<run_id>`), so the output directory can be moved or mounted
/// elsewhere. Run ids sort by start time (``RunID``), which is the order pruning uses.
///
/// Only the holder of the output directory's lock (``OutputDirectoryLock``) may switch or prune.
public struct PublishedRuns: Sendable, Hashable {
    /// The directory holding the run directories, inside the output directory.
    public static let runsDirectoryName = "runs"
    /// The link naming the published run, inside the output directory.
    public static let currentLinkName = "current"

    /// The output directory, absolute.
    public let outputDirectory: String

    /// The layout under `outputDirectory` (made absolute against the current directory).
    public init(outputDirectory: String) {
        self.outputDirectory = RunCommit.absolute(outputDirectory)
    }

    /// `<output_dir>/runs`.
    public var runsDirectory: String { outputDirectory + "/" + Self.runsDirectoryName }
    /// `<output_dir>/current`.
    public var currentLink: String { outputDirectory + "/" + Self.currentLinkName }

    /// The directory the run `runID` writes into: `<output_dir>/runs/<run_id>` (not created here).
    ///
    /// - Throws: ``NowETLError/Code/invalidRunID`` for an id that cannot name a directory.
    public func runDirectory(for runID: String) throws(NowETLError) -> String {
        guard Self.isRunID(runID) else {
            throw NowETLError(
                .invalidRunID, path: runsDirectory,
                "run id \(runID.debugDescription) cannot name a directory in \(runsDirectory): use letters, digits, "
                    + "'-', '_' and '.', not starting with '.'")
        }
        return runsDirectory + "/" + runID
    }

    /// The run `current` points at, or `nil` when there is no `current` yet.
    ///
    /// - Throws: ``NowETLError/Code/notARunLink`` when `current` is something else (a directory,
    ///   a file, a link elsewhere); ``NowETLError/Code/io``.
    public func currentRunID() throws(NowETLError) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(currentLink, &buffer, buffer.count - 1)
        if count < 0 {
            let number = errno
            if number == ENOENT { return nil }
            if number == EINVAL { throw notARunLink() }
            throw .io("read the link", path: currentLink, errno: number)
        }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let prefix = Self.runsDirectoryName + "/"
        guard target.hasPrefix(prefix), Self.isRunID(String(target.dropFirst(prefix.count))) else {
            throw notARunLink()
        }
        return String(target.dropFirst(prefix.count))
    }

    /// Creates the new `current` link (→ `runs/<run_id>`) under a temporary name beside `current`, for
    /// a commit record to rename into place (`CommitRecord.publishedLink`); nothing visible changes.
    ///
    /// The temporary name has ``AtomicFile``'s form, so a run that dies before committing leaves a link
    /// the next start removes.
    ///
    /// - Throws: ``NowETLError`` — an invalid run id, a run directory that does not exist, or the
    ///   system's error.
    public func stageCurrent(to runID: String) throws(NowETLError) -> StagedFile {
        let directory = try runDirectory(for: runID)
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw NowETLError(
                .missingRunDirectory, path: directory,
                "cannot publish run \(runID): its directory \(directory) does not exist")
        }
        let target = Self.runsDirectoryName + "/" + runID
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let temporary =
                outputDirectory + "/." + Self.currentLinkName + ".tmp-"
                + String(repeating: "0", count: 16 - suffix.count) + suffix
            if symlink(target, temporary) == 0 {
                return StagedFile(temporaryPath: temporary, targetPath: currentLink, displayPath: Self.currentLinkName)
            }
            guard errno == EEXIST else { throw .io("create the link", path: temporary) }
        }
        throw .io("create a temporary link in", path: outputDirectory, errno: EEXIST)
    }

    /// Points `current` at the run `runID` with one rename (a new link under a temporary name, renamed
    /// over `current`), then syncs the output directory. Readers see the old run or the new one, never
    /// neither.
    ///
    /// A run that commits through a commit record stages the link instead (``stageCurrent(to:)``), so
    /// that the switch is part of the roll-forward after a crash.
    ///
    /// - Throws: ``NowETLError`` — as ``stageCurrent(to:)``, and ``NowETLError/Code/notARunLink``
    ///   when `current` is a directory (it is left as it was).
    public func switchCurrent(to runID: String) throws(NowETLError) {
        let staged = try stageCurrent(to: runID)
        if rename(staged.temporaryPath, staged.targetPath) != 0 {
            let number = errno
            staged.removeTemporaryFile()
            if number == EISDIR || number == ENOTEMPTY || number == EEXIST { throw notARunLink() }
            throw .io("switch the link", path: currentLink, errno: number)
        }
        AtomicFile.syncDirectory(outputDirectory)
    }

    /// Removes the oldest run directories so that `keep` committed runs remain (at least 1), never the
    /// one `current` points at; returns the run ids removed, oldest first.
    ///
    /// Call it after switching `current` to the new run. Only committed runs (a directory with its
    /// `manifest.json`) count toward `keep`: a directory a crashed run left must not push out the
    /// previous committed run, which a reader may still be reading. Such a directory is removed once it
    /// is older than every kept run. Entries of `runs/` that are not directories with run-id names are
    /// left alone.
    ///
    /// - Throws: ``NowETLError`` when `current` is not a run link (nothing is removed then) or a
    ///   directory cannot be removed.
    @discardableResult
    public func pruneOldRuns(keep: Int) throws(NowETLError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: runsDirectory)
        } catch {
            var info = stat()
            if lstat(runsDirectory, &info) != 0 && errno == ENOENT { return [] }
            throw NowETLError(.io, path: runsDirectory, "cannot list \(runsDirectory)", cause: error)
        }
        let runs = names.filter { name in
            var info = stat()
            return Self.isRunID(name) && lstat(runsDirectory + "/" + name, &info) == 0
                && (info.st_mode & S_IFMT) == S_IFDIR
        }.sorted(by: >)
        let committed = runs.filter { run in
            var info = stat()
            return lstat(runsDirectory + "/" + run + "/manifest.json", &info) == 0
        }
        var kept = Set<String>()
        if let current = try currentRunID() { kept.insert(current) }
        for run in committed where kept.count < max(1, keep) { kept.insert(run) }
        let oldestKept = kept.min()
        let removed = runs.filter { run in
            guard !kept.contains(run) else { return false }
            return committed.contains(run) || oldestKept.map { run < $0 } ?? true
        }.sorted()
        for run in removed {
            do {
                try FileManager.default.removeItem(atPath: runsDirectory + "/" + run)
            } catch {
                throw NowETLError(
                    .io, path: runsDirectory + "/" + run, "cannot remove the old run directory \(run)", cause: error)
            }
        }
        if !removed.isEmpty { AtomicFile.syncDirectory(runsDirectory) }
        return removed
    }

    // MARK: - Helpers

    /// Whether `name` can be a run directory's name: 1–200 bytes of `[A-Za-z0-9._-]`, not starting
    /// with a dot (so no `.`, `..` or hidden temporary names).
    static func isRunID(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 200, bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    private func notARunLink() -> NowETLError {
        NowETLError(
            .notARunLink, path: currentLink,
            "\(currentLink) is not a symbolic link to \(Self.runsDirectoryName)/<run_id>; publish mode directories "
                + "owns that name: move it away and run again")
    }
}
