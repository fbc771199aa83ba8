import Foundation
import NowQuery

#if canImport(Glibc)
    import Glibc
#endif

/// `keep_runs: N` of a file output: after a run commits, the files older committed runs wrote through
/// the output's per-run path are removed, so that the newest N runs' stay.
///
/// ```yaml
/// outputs:
///   - csv: { path: "{table}-{run_id}.csv.gz", keep_runs: 14 }   # two weeks of nightly files
/// ```
///
/// **What counts as a run.** Only committed runs, in the order they committed: a run is added to the
/// ``RetentionLedger`` from a manifest (the one this run's commit just put in place, and — in case a
/// crash came between a commit and its ledger entry — the one that was in place before it). A run
/// that failed, was stopped or crashed before its commit left no manifest, so it is not a run here,
/// and its staged files are removed by the next start anyway. Runs are counted per output and
/// table: with `--keep-going`, a table that failed keeps its own newest N.
///
/// **What is removed.** Only files that (1) a committed run's manifest listed, (2) the output's path
/// template produces for that run's `{table}`, `{run_id}`, `{run_date}` and `{part}` — the template as
/// it is now, so files written under an earlier path stay — (3) are regular files (not links) of the
/// size the run committed, and (4) are neither in this run's manifest nor in one of the N runs kept
/// (a `{run_date}` file rewritten by a later run the same day belongs to that later run). Anything
/// else in `output_dir` is not looked at. Directories a per-run path created (`{run_date}/…`) are
/// removed when they are left empty.
///
/// **When.** After the commit is complete and synced (the manifest in place), with the output
/// directory's lock still held, so no other run can be writing there. The current run is the newest
/// and is never removed, so N ≥ 1; a consumer that may still be reading the previous run's files when
/// the next run commits needs N ≥ 2 (set it higher for slower consumers). A file that cannot be removed
/// is a warning: the run stays committed (exit code unchanged) and the file is tried again after the
/// next commit.
///
/// Publish mode `directories` prunes whole run directories instead (`publish: { keep: N }`,
/// ``PublishedRuns``); `keep_runs` is refused there.
struct RunRetention: Sendable {
    /// An output with `keep_runs`.
    struct Output: Sendable, Hashable {
        /// Its index in `outputs:` (for messages).
        var index: Int
        /// Its path template.
        var path: OutputPathTemplate
        /// How many committed runs' files stay.
        var keep: Int
        /// Whether it is split (its manifest entries carry part numbers).
        var split: Bool
    }

    /// The most runs `keep_runs` may ask for.
    static let maximumKeepRuns = 10_000

    /// The outputs with `keep_runs`.
    let outputs: [Output]
    /// The output directory (in place: the manifest's directory).
    let outputDirectory: String

    /// The retention of `configuration`, or `nil` when no output keeps runs (or the pipeline publishes
    /// run directories, which `keep_runs` is refused with).
    init?(configuration: PipelineConfiguration) {
        guard configuration.publish.mode == .inPlace else { return nil }
        var outputs: [Output] = []
        for (index, output) in configuration.outputs.enumerated() where output.writesFiles {
            guard let keep = output.file.keepRuns else { continue }
            outputs.append(Output(index: index, path: output.file.path, keep: keep, split: output.file.split != .none))
        }
        guard !outputs.isEmpty else { return nil }
        self.outputs = outputs
        self.outputDirectory = configuration.outputDirectory
    }

    /// The manifest in place before this run commits (the last committed run), read so that a run whose
    /// commit was rolled forward by a recovery is recorded too; `nil` when there is none or it does not read.
    func previousManifest() -> Manifest? {
        try? Manifest.read(fromDirectory: outputDirectory)
    }

    // MARK: - After the commit

    /// What ``apply(committed:runStarted:previous:logger:)`` removed.
    struct Removal: Sendable, Hashable {
        /// Files removed (or found gone already).
        var files = 0
        /// Runs of an output and table whose files went.
        var runs = 0
    }

    /// Records the committed run (and `previous`, when the ledger misses it), then removes the files of
    /// the runs beyond each output's newest `keep_runs`, logging one line per output and table that lost
    /// files. Never throws: a problem is a warning, the run stays committed.
    ///
    /// - Parameters:
    ///   - manifest: The manifest the run just committed.
    ///   - runStarted: When the run started (its `{run_date}`).
    ///   - previous: ``previousManifest()``, read before the commit replaced it.
    @discardableResult
    func apply(committed manifest: Manifest, runStarted: Date, previous: Manifest?, logger: RunLogger) -> Removal {
        var ledger: RetentionLedger
        do {
            ledger = try RetentionLedger.read(outputDirectory: outputDirectory)
        } catch {
            logger.warning(
                "cannot apply keep_runs: old run files were not removed",
                [("error", logger.redact(NowETLError.text(of: error)))])
            return Removal()
        }
        let templates = Set(outputs.map(\.path.text))
        // Files of outputs that no longer keep runs (or changed their path) are forgotten: they stay.
        for index in ledger.runs.indices { ledger.runs[index].files.removeAll { !templates.contains($0.output) } }
        if let previous, previous.runID != manifest.runID, !ledger.runs.contains(where: { $0.runID == previous.runID })
        {
            ledger.runs.append(record(previous, runDate: String(previous.runStarted.prefix(10))))
        }
        ledger.runs.removeAll { $0.runID == manifest.runID }
        let runDate = TableAPIDateFormat.dateString(fromSeconds: Int(runStarted.timeIntervalSince1970.rounded(.down)))
        ledger.runs.append(record(manifest, runDate: runDate))
        ledger.runs.removeAll { $0.files.isEmpty }
        // The run is recorded before anything goes, so a crash from here on forgets nothing.
        do {
            try ledger.write(outputDirectory: outputDirectory)
        } catch {
            logger.warning(
                "cannot record the run for keep_runs: old run files were not removed",
                [("error", logger.redact(NowETLError.text(of: error)))])
            return Removal()
        }
        let (removal, remaining) = remove(from: ledger, current: manifest, logger: logger)
        if remaining != ledger {
            do {
                try remaining.write(outputDirectory: outputDirectory)
            } catch {
                // The files it still lists are gone: the next run finds them missing and forgets them.
                logger.warning(
                    "cannot update the keep_runs ledger", [("error", logger.redact(NowETLError.text(of: error)))])
            }
        }
        return removal
    }

    /// The ledger entry of a committed manifest: its files that an output with `keep_runs` produces for
    /// that run (entries a `--keep-going` run carried over from an earlier run, and files of failed
    /// tables, are not its own and do not resolve to its run id).
    private func record(_ manifest: Manifest, runDate: String) -> RetentionLedger.Run {
        let failed = Set(manifest.failedTables ?? [])
        var files: [RetentionLedger.File] = []
        for file in manifest.files where !failed.contains(file.table) {
            guard
                let output = outputs.first(where: {
                    produces($0, file.path, file.table, file.part, manifest.runID, runDate)
                })
            else { continue }
            files.append(
                RetentionLedger.File(
                    output: output.path.text, table: file.table, path: file.path, part: file.part, bytes: file.bytes))
        }
        return RetentionLedger.Run(runID: manifest.runID, runDate: runDate, files: files)
    }

    /// Whether `output`'s template gives exactly `path` for this table, run and part.
    private func produces(
        _ output: Output, _ path: String, _ table: String, _ part: Int?, _ runID: String, _ runDate: String
    ) -> Bool {
        guard output.split || part == nil else { return false }
        let resolved = try? output.path.resolve(table: table, runDate: runDate, runID: runID, part: part)
        return resolved == path
    }

    /// Removes the files of the runs beyond each output's and table's newest `keep`; returns what went
    /// and the ledger without them.
    private func remove(from ledger: RetentionLedger, current: Manifest, logger: RunLogger) -> (
        Removal, RetentionLedger
    ) {
        struct Group: Hashable {
            var output: String
            var table: String
        }
        // Which runs hold files of each output and table, oldest first.
        var runsOf: [Group: [Int]] = [:]
        for (index, run) in ledger.runs.enumerated() {
            for group in Set(run.files.map { Group(output: $0.output, table: $0.table) }) {
                runsOf[group, default: []].append(index)
            }
        }
        var protected = Set(current.files.map(\.path))
        var expired: [Group: [Int]] = [:]
        for (group, indices) in runsOf {
            let keep = outputs.first { $0.path.text == group.output }?.keep ?? Int.max
            let kept = indices.suffix(keep)
            for index in kept {
                for file in ledger.runs[index].files where file.output == group.output && file.table == group.table {
                    protected.insert(file.path)
                }
            }
            if indices.count > keep { expired[group] = Array(indices.dropLast(keep)) }
        }
        var remaining = ledger
        var removal = Removal()
        for (group, indices) in expired.sorted(by: { ($0.key.output, $0.key.table) < ($1.key.output, $1.key.table) }) {
            guard let output = outputs.first(where: { $0.path.text == group.output }) else { continue }
            var paths: [String] = []
            var runs = 0
            for index in indices {
                let run = ledger.runs[index]
                var removedAny = false
                remaining.runs[index].files.removeAll { file in
                    guard file.output == group.output, file.table == group.table else { return false }
                    // A later run's file of the same name (a {run_date} path) is that run's now.
                    if protected.contains(file.path) { return true }
                    guard produces(output, file.path, file.table, file.part, run.runID, run.runDate) else {
                        return true  // not a path this output makes: never ours to remove
                    }
                    switch removeFile(file, logger: logger) {
                    case .removed:
                        paths.append(file.path)
                        removedAny = true
                        return true
                    case .gone, .notOurs: return true
                    case .failed: return false
                    }
                }
                if removedAny { runs += 1 }
            }
            guard !paths.isEmpty else { continue }
            removal.files += paths.count
            removal.runs += runs
            let listed = 20
            var fields: [(String, any LogFieldValue)] = [
                ("table", group.table), ("output", "outputs[\(output.index)]"), ("keep_runs", output.keep),
                ("runs", runs), ("files", paths.count), ("paths", paths.prefix(listed).joined(separator: ",")),
            ]
            if paths.count > listed { fields.append(("paths_not_listed", paths.count - listed)) }
            logger.info("removed old run files", fields)
        }
        remaining.runs.removeAll { $0.files.isEmpty }
        return (removal, remaining)
    }

    /// How one removal went.
    private enum Outcome {
        /// Unlinked.
        case removed
        /// Not there any more (removed by hand, or by a run that crashed before updating the ledger).
        case gone
        /// Something else has the name now (a link, a directory, a file of another size): left alone.
        case notOurs
        /// Could not be removed: tried again after the next commit.
        case failed
    }

    /// Removes one committed file, if it is still the regular file of the size the run committed, and
    /// then the directories its path created when that leaves them empty.
    private func removeFile(_ file: RetentionLedger.File, logger: RunLogger) -> Outcome {
        let base = RunCommit.absolute(outputDirectory)
        let absolute = base + "/" + file.path
        var info = stat()
        guard lstat(absolute, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .gone }
            logger.warning(
                "cannot remove an old run file", [("path", file.path), ("error", Self.reason(errno))])
            return .failed
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == file.bytes else {
            logger.warning(
                "old run file left in place: it is no longer the file nowetl committed (replaced, or not a regular "
                    + "file)", [("path", file.path), ("bytes", Int(info.st_size)), ("committed_bytes", file.bytes)])
            return .notOurs
        }
        guard unlink(absolute) == 0 else {
            if errno == ENOENT { return .gone }
            logger.warning("cannot remove an old run file", [("path", file.path), ("error", Self.reason(errno))])
            return .failed
        }
        // The folders of the path ({run_date}/…), deepest first, while they are empty; then the
        // directory whose entry changed last is synced.
        var directory = Substring(file.path)
        while let slash = directory.lastIndex(of: "/") {
            directory = directory[..<slash]
            if rmdir(base + "/" + directory) != 0 {
                AtomicFile.syncDirectory(base + "/" + directory)
                return .removed
            }
        }
        AtomicFile.syncDirectory(base)
        return .removed
    }

    private static func reason(_ number: Int32) -> String {
        String(cString: strerror(number)) + " (errno \(number))"
    }

    // MARK: - Configuration

    /// `keep_runs` of a file output whose path is `path`: an integer from 1 to ``maximumKeepRuns``, only
    /// on a path with a per-run placeholder (`{run_id}` or `{run_date}`); `nil` when absent.
    static func decodeKeepRuns<Key: CodingKey>(
        _ key: Key, _ path: OutputPathTemplate, _ container: KeyedDecodingContainer<Key>
    ) throws -> Int? {
        guard let keep = try container.decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard keep >= 1 else {
            throw container.issue(
                key,
                "\(container.path(key)) must be at least 1, got \(keep): the newest run's files are the ones "
                    + "consumers read (set it higher, not lower, for a consumer that needs more time)")
        }
        guard keep <= maximumKeepRuns else {
            throw container.issue(key, "\(container.path(key)) must be at most \(maximumKeepRuns), got \(keep)")
        }
        guard path.contains(.runID) || path.contains(.runDate) else {
            throw container.issue(
                key,
                "\(container.path(key)) needs a per-run path: \"\(path.text)\" has no {run_id} or {run_date}, so "
                    + "each run replaces the same file and there are no older runs to remove",
                pointsAtKey: true)
        }
        return keep
    }
}
