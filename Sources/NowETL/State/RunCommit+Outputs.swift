import Foundation

extension CommitRecord {
    /// A record committing `outputs` (their staged files in order, then their removals), with
    /// `manifest` renamed last.
    init(
        runID: String, outputs: [PreparedOutput], manifest: StagedFile? = nil, publishedLink: StagedFile? = nil,
        clearedStateDirectories: [String] = []
    ) {
        self.init(
            runID: runID, files: outputs.flatMap(\.staged), removals: outputs.flatMap(\.removals), manifest: manifest,
            publishedLink: publishedLink, clearedStateDirectories: clearedStateDirectories)
    }

    /// Whether the record changes nothing (no file, removal, manifest, link or directory): such a commit
    /// needs no record on disk.
    var isEmpty: Bool {
        files.isEmpty && removals.isEmpty && manifest == nil && publishedLink == nil && clearedStateDirectories.isEmpty
    }
}

extension RunCommit {
    /// Commits the outputs of `sinks` (and a dead-letter file) now, all at once: prepares every one,
    /// writes one commit record, hands the staged files over (``RecordSink/commit()``), then applies
    /// the record. Returns the sinks' artifacts, in sink order.
    ///
    /// This is a table's commit while the run still commits table by table; a run that commits once
    /// prepares every table first and writes a single record with the manifest.
    ///
    /// On a throw before the record is written nothing visible has changed, and the caller aborts the
    /// sinks as usual. Once it is written the commit is decided: every sink is handed over even if one
    /// throws, so an abort can no longer remove a file the record needs; if the renames then fail, the
    /// record stays for the next start's ``recover(outputDirectory:)``.
    ///
    /// - Throws: ``NowETLError`` from a sink or the record.
    static func commitOutputs(
        of sinks: [any RecordSink], deadLetters: DeadLetterFile? = nil, runID: String, outputDirectory: String
    ) async throws -> [Artifact] {
        var prepared: [PreparedOutput] = []
        for sink in sinks { prepared.append(try await sink.prepare()) }
        if let deadLetters { prepared.append(try deadLetters.prepare()) }
        for case let sink as any TransactionalSink in sinks { try await sink.commitTransaction() }
        let record = CommitRecord(runID: runID, outputs: prepared)
        if !record.isEmpty { try write(record, outputDirectory: outputDirectory) }
        let table = PreparedTable(
            summary: TableSummary(table: ""), outputs: prepared, sinks: sinks, deadLetters: deadLetters,
            journalDirectory: nil)
        var handOverError: (any Error)?
        do {
            try await table.commit()
        } catch {
            handOverError = error
        }
        if !record.isEmpty { try apply(record, outputDirectory: outputDirectory) }
        if let handOverError { throw handOverError }
        return prepared.prefix(sinks.count).flatMap(\.artifacts)
    }
}

extension RunCommit {
    /// The two-phase commit of a run's prepared tables: `manifest` staged, one record naming every
    /// staged file, the manifest (renamed last) and the tables' journals (removed after it), the
    /// tables handed over, the record applied. Returns the manifest's path.
    ///
    /// Database outputs (``TransactionalSink``) COMMIT their open transactions just before the record is
    /// written.
    ///
    /// Until the record is written a failure aborts every table (and removes the staged manifest),
    /// so nothing visible changes; after it, the commit is decided and a failure leaves the record
    /// for the next start's ``recover(outputDirectory:)``.
    ///
    /// In publish mode (`published`), the manifest goes into the run's own directory and the
    /// `current` link is switched to it with one rename after the manifest, as part of the record.
    ///
    /// The manifest gets `fileMode`, like the outputs it lists.
    ///
    /// `state`, when given, is the incremental state the commit leaves (``IncrementalState``): staged
    /// beside `.nowetl/state.json` and renamed after the outputs' files, before the manifest, so the
    /// state never describes outputs that were not committed.
    static func commit(
        _ tables: [PreparedTable], runID: String, outputDirectory: String, manifest: Manifest,
        published: PublishedRuns? = nil, state: IncrementalState? = nil, fileMode: mode_t = OwnFiles.defaultFileMode
    ) async throws -> String {
        var staged: [StagedFile] = []
        var record: CommitRecord
        var stagedState: StagedFile?
        do {
            // The incremental state moves with the outputs it describes: renamed after them, before the manifest.
            stagedState = try state?.stage(outputDirectory: outputDirectory)
            let manifestDirectory = try published?.runDirectory(for: runID) ?? outputDirectory
            staged.append(try manifest.stage(toDirectory: manifestDirectory, mode: fileMode))
            if let published { staged.append(try published.stageCurrent(to: runID)) }
            record = CommitRecord(
                runID: runID, outputs: tables.flatMap(\.outputs), manifest: staged[0],
                publishedLink: staged.count > 1 ? staged[1] : nil,
                clearedStateDirectories: tables.compactMap(\.journalDirectory).filter {
                    FileManager.default.fileExists(atPath: $0)
                })
            if let stagedState { record.files.append(stagedState) }
            // A database has no two-phase commit: it COMMITs first, and a failure here still changes
            // nothing visible. (A crash between its COMMIT and the record: the rerun's load is skipped
            // by its load id, see ``TransactionalSink``.)
            for table in tables { try await table.commitTransactions() }
            if tables.contains(where: { $0.outputs.contains { !$0.artifacts.compactMap(\.databaseTable).isEmpty } }) {
                CrashPoint.reached("database-committed")
            }
            try write(record, outputDirectory: outputDirectory)
        } catch {
            for table in tables { await table.abort() }
            for file in staged { file.removeTemporaryFile() }
            stagedState?.removeTemporaryFile()
            throw error
        }
        var firstError: (any Error)?
        for table in tables {
            do {
                try await table.commit()
            } catch {
                firstError = firstError ?? error
            }
        }
        try apply(record, outputDirectory: outputDirectory)
        if let firstError { throw firstError }
        return staged[0].targetPath
    }
}
