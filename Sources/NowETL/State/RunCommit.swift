import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a run decided to commit: every staged file with its target, the stale files to remove, the
/// manifest, and the state to clear — written as `<output_dir>/.nowetl/commit.json` before anything
/// visible changes.
///
/// The record is the commit point. Before it is on disk, a crash leaves only temporary files (rolled
/// back at the next start); once it is, the commit is decided and the next start rolls it forward
/// (``RunCommit/recover(outputDirectory:)``), so the output directory never keeps a mix of two runs'
/// files after a crash.
///
/// ```json
/// { "cleared_state_directories" : [], "files" : [ { "display_path" : "incident.csv",
///   "target_path" : "/data/out/incident.csv", "temporary_path" : "/data/out/.incident.csv.tmp-00ab…" } ],
///   "removals" : [ "/data/out/incident-0003.csv" ], "run_id" : "20240301T020000Z-7f3a", "version" : 1 }
/// ```
struct CommitRecord: Codable, Sendable, Hashable {
    /// The record format's version (1).
    var version = 1
    /// The run that wrote the record (for the log line of a recovery).
    var runID: String
    /// The staged files, renamed in this order.
    var files: [StagedFile]
    /// Absolute paths unlinked after the renames (stale split parts of an earlier run); a missing one
    /// is fine.
    var removals: [String]
    /// The manifest, renamed after every file, so a reader that finds it finds every file it lists.
    var manifest: StagedFile?
    /// For publish mode `directories`: the new `current` link (``PublishedRuns/stageCurrent(to:)``),
    /// renamed after the manifest — the one rename that makes the run visible. `nil` otherwise (and in
    /// records that predate it).
    var publishedLink: StagedFile?
    /// Absolute directories removed recursively after the manifest (the journal of a run's committed
    /// tables lives there); each must lie inside `<output_dir>/.nowetl/`.
    var clearedStateDirectories: [String]

    /// Creates a record.
    init(
        runID: String, files: [StagedFile] = [], removals: [String] = [], manifest: StagedFile? = nil,
        publishedLink: StagedFile? = nil, clearedStateDirectories: [String] = []
    ) {
        self.runID = runID
        self.files = files
        self.removals = removals
        self.manifest = manifest
        self.publishedLink = publishedLink
        self.clearedStateDirectories = clearedStateDirectories
    }

    enum CodingKeys: String, CodingKey {
        case version
        case runID = "run_id"
        case files, removals, manifest
        case publishedLink = "published_link"
        case clearedStateDirectories = "cleared_state_directories"
    }
}

/// The all-or-nothing commit of a run's outputs, in two phases: write the ``CommitRecord``, then apply
/// it — renaming every staged file into place, the manifest last.
///
/// ```swift
/// let record = CommitRecord(runID: id, files: staged, removals: removals, manifest: manifest)
/// try RunCommit.write(record, outputDirectory: dir)   // the commit point
/// try RunCommit.apply(record, outputDirectory: dir)   // renames; repeatable after a crash
/// ```
///
/// ``apply(_:outputDirectory:)`` is idempotent, so a run that dies part way through it is finished by
/// the next start's ``recover(outputDirectory:)``. A record is applied only while its output directory
/// is held (``OutputDirectoryLock``), and every path in it must lie inside that directory: a record
/// naming anything else is refused before any change.
///
/// Paths are compared lexically (after making them absolute against the current directory and
/// resolving `.` and `..`), and used as written for the system calls.
enum RunCommit {
    /// The state directory's name inside the output directory.
    static let stateDirectoryName = ".nowetl"
    /// The commit record's name inside the state directory.
    static let recordName = "commit.json"

    /// `<output_dir>/.nowetl`, absolute.
    static func stateDirectory(outputDirectory: String) -> String {
        absolute(outputDirectory) + "/" + stateDirectoryName
    }

    /// `<output_dir>/.nowetl/commit.json`, absolute.
    static func recordPath(outputDirectory: String) -> String {
        stateDirectory(outputDirectory: outputDirectory) + "/" + recordName
    }

    /// Writes the record atomically as `.nowetl/commit.json` (``AtomicFile``: temporary file, `fsync`,
    /// rename, directory `fsync`), creating the state directory when needed. From here on the commit
    /// is decided.
    ///
    /// - Throws: ``NowETLError`` — ``NowETLError/Code/pathRefused`` for a record naming a path
    ///   outside the output directory, ``NowETLError/Code/pendingCommitRecord`` when a record is already
    ///   there (a commit that was decided but not finished: it must be recovered, not overwritten),
    ///   ``NowETLError/Code/io``.
    static func write(_ record: CommitRecord, outputDirectory: String) throws(NowETLError) {
        let base = absolute(outputDirectory)
        try validate(record, base: base)
        let state = base + "/" + stateDirectoryName
        let path = state + "/" + recordName
        if try exists(path) {
            throw NowETLError(
                .pendingCommitRecord, path: path,
                "\(path): the commit record of an earlier commit is still in place (a run stopped while committing); "
                    + "nowetl run finishes it at start, before it writes anything")
        }
        if try !exists(state) {
            do {
                try OwnFiles.makeDirectories(state)
            } catch {
                throw NowETLError(.io, path: state, "", cause: error, errno: error.errno)
            }
            AtomicFile.syncDirectory(base)
        }
        let data: Data
        do {
            data = try JSONDocument.encoder().encode(record)
        } catch {
            throw NowETLError(.io, path: path, "cannot encode the commit record \(path)", cause: error)
        }
        var file: AtomicFile?
        do {
            let created = try AtomicFile(targetPath: path, displayPath: path, mode: OwnFiles.privateFileMode)
            file = created
            try data.withUnsafeBytes { try created.write($0) }
            try created.commit()
        } catch {
            file?.abort()
            throw NowETLError(.io, path: path, "", cause: error, errno: (error as? NowETLError)?.errno)
        }
        CrashPoint.reached("commit-record")
    }

    /// Applies a written record: renames every staged file into place in order, unlinks the removals,
    /// `fsync`s every directory touched, renames the manifest, then the published link, removes the
    /// cleared state directories, then removes the record (and the state directory when that leaves it
    /// empty).
    ///
    /// Idempotent, so it can finish what a crashed run started: a staged file whose temporary file is
    /// gone while its target exists was renamed already. That reading is only sound while the
    /// temporary files named by a record are still there — which is why a record must be recovered
    /// before `OutputDirectoryLock.removeStaleTemporaryFiles()` runs.
    ///
    /// - Throws: ``NowETLError`` — ``NowETLError/Code/pathRefused`` (nothing changed),
    ///   ``NowETLError/Code/missingStagedFile`` naming the file when neither its temporary file nor its
    ///   target exists, ``NowETLError/Code/io``. The record stays in place after an error, so the
    ///   next start tries again.
    static func apply(_ record: CommitRecord, outputDirectory: String) throws(NowETLError) {
        let base = absolute(outputDirectory)
        try validate(record, base: base)
        var touched: [String] = []
        func touch(_ path: String) {
            let directory = parent(path)
            if !touched.contains(directory) { touched.append(directory) }
        }
        for file in record.files {
            try place(file)
            touch(file.targetPath)
            CrashPoint.reached("commit-rename")
        }
        for removal in record.removals {
            if unlink(removal) != 0 && errno != ENOENT {
                throw .io("remove the stale file", path: removal)
            }
            touch(removal)
        }
        // The data's names are durable before the manifest that lists them appears.
        for directory in touched { AtomicFile.syncDirectory(directory) }
        if let manifest = record.manifest {
            try place(manifest)
            AtomicFile.syncDirectory(parent(manifest.targetPath))
            CrashPoint.reached("commit-manifest")
        }
        if let link = record.publishedLink {
            try place(link)
            AtomicFile.syncDirectory(parent(link.targetPath))
        }
        for directory in record.clearedStateDirectories {
            guard try exists(directory) else { continue }
            do {
                try FileManager.default.removeItem(atPath: directory)
            } catch {
                throw NowETLError(
                    .io, path: directory, "cannot remove the state directory \(directory)", cause: error)
            }
            AtomicFile.syncDirectory(parent(directory))
        }
        let state = base + "/" + stateDirectoryName
        let path = state + "/" + recordName
        if unlink(path) != 0 && errno != ENOENT {
            throw .io("remove the applied commit record", path: path)
        }
        AtomicFile.syncDirectory(state)
        // Nothing is left to recover: a successful commit leaves no trace (ENOTEMPTY, ENOENT: keep going).
        // The run journals' folder goes first when the last table's journal was cleared.
        _ = rmdir(state + "/tables")
        if rmdir(state) == 0 { AtomicFile.syncDirectory(base) }
    }

    /// Rolls a decided commit forward at start, with the output directory's lock held.
    ///
    /// A record present means the previous run crashed after deciding to commit: it is applied and
    /// returned, so the caller can log what was finished. No record means nothing to do; the temporary
    /// files of a run that crashed before writing its record are rolled back afterwards by
    /// `OutputDirectoryLock.removeStaleTemporaryFiles()`. The order matters: **recover first, then
    /// remove stale temporary files** — the other way round deletes the staged files the record still
    /// needs, and the roll-forward fails (or, for a file whose target already existed, silently keeps
    /// the old one).
    ///
    /// - Throws: ``NowETLError`` — ``NowETLError/Code/unreadableCommitRecord`` naming the file when the
    ///   record does not parse (it is left in place, never silently deleted), or any error of
    ///   ``apply(_:outputDirectory:)``.
    static func recover(outputDirectory: String) throws(NowETLError) -> CommitRecord? {
        let path = recordPath(outputDirectory: outputDirectory)
        guard try exists(path) else { return nil }
        let record: CommitRecord
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            record = try JSONDecoder().decode(CommitRecord.self, from: data)
        } catch {
            throw NowETLError(
                .unreadableCommitRecord, path: path,
                "\(path): the commit record of an interrupted run cannot be read", cause: error,
                remedy: "it was left in place. "
                    + "Look at it and at the .<name>.tmp-… files it names, then delete it to give up that run's "
                    + "commit (its temporary files are removed at the next start), or repair it to finish the commit")
        }
        guard record.version == 1 else {
            throw NowETLError(
                .unreadableCommitRecord, path: path,
                "\(path): commit record version \(record.version) is not one this nowetl reads (1); it was left in place"
            )
        }
        try apply(record, outputDirectory: outputDirectory)
        return record
    }

    // MARK: - Steps

    /// Renames one staged file into place, or finds it already there.
    private static func place(_ file: StagedFile) throws(NowETLError) {
        if rename(file.temporaryPath, file.targetPath) == 0 { return }
        let number = errno
        guard try !exists(file.temporaryPath) else {
            throw .io(
                "rename the staged file \(file.temporaryPath) into place as", path: file.targetPath, errno: number)
        }
        if try exists(file.targetPath) { return }  // renamed by an earlier, interrupted apply
        throw NowETLError(
            .missingStagedFile, path: file.targetPath,
            "cannot commit \(file.displayPath): neither its staged file \(file.temporaryPath) nor \(file.targetPath) "
                + "exists (was it removed by hand?); the commit record stays in place until that file is restored "
                + "or the record removed")
    }

    /// Refuses a record that names anything outside the output directory (before any change).
    private static func validate(_ record: CommitRecord, base: String) throws(NowETLError) {
        guard record.version == 1 else {
            throw NowETLError(
                .unreadableCommitRecord, path: base,
                "commit record version \(record.version) is not one this nowetl reads (1)")
        }
        for file in record.files + [record.manifest, record.publishedLink].compactMap({ $0 }) {
            for path in [file.temporaryPath, file.targetPath] where !isInside(path, base) {
                throw NowETLError(
                    .pathRefused, path: path, "refusing to commit \(path): it is outside the output directory \(base)")
            }
            let name = String(file.temporaryPath.split(separator: "/").last ?? "")
            guard parent(absolute(file.temporaryPath)) == parent(absolute(file.targetPath)),
                AtomicFile.isTemporaryName(name)
            else {
                throw NowETLError(
                    .pathRefused, path: file.temporaryPath,
                    "refusing to rename \(file.temporaryPath) to \(file.targetPath): a staged file is a "
                        + ".<name>.tmp-<16 hex digits> file in its target's directory")
            }
        }
        for path in record.removals where !isInside(path, base) {
            throw NowETLError(
                .pathRefused, path: path, "refusing to remove \(path): it is outside the output directory \(base)")
        }
        let state = base + "/" + stateDirectoryName
        for path in record.clearedStateDirectories where !isInside(path, state) {
            throw NowETLError(
                .pathRefused, path: path,
                "refusing to clear \(path): only directories inside \(state) hold state a commit may remove")
        }
    }

    // MARK: - Paths

    /// `path` made absolute against the current directory, with `.`, `..` and doubled slashes resolved
    /// lexically.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var components: [Substring] = []
        for component in full.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// Whether `path` lies strictly below `directory` (lexically, see ``absolute(_:)``).
    static func isInside(_ path: String, _ directory: String) -> Bool {
        let directory = absolute(directory)
        return absolute(path).hasPrefix(directory == "/" ? "/" : directory + "/") && absolute(path) != directory
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether something (a file, a directory, a symbolic link, dangling or not) has this name.
    private static func exists(_ path: String) throws(NowETLError) -> Bool {
        var info = stat()
        if lstat(path, &info) == 0 { return true }
        let number = errno
        if number == ENOENT || number == ENOTDIR { return false }
        throw .io("look at", path: path, errno: number)
    }
}
