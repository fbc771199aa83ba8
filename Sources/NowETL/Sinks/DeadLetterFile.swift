import Foundation

/// The dead-letter file of a table: one JSON line per rejected record, staged and committed like every
/// output (created on the first rejection, finished by ``prepare()``, renamed into place by the run's
/// commit, removed on ``abort()``), and listed in the manifest (format `rejects-jsonl`). Its mode is
/// 0600 whatever the outputs' `file_mode`: it holds whole records.
///
/// Which file depends on what a run's rejects mean for the next run:
/// * a **full** table is read whole by every run, so its rejects are read again too: one file,
///   `<output_dir>/<table>.rejects.jsonl`, replaced by each run (and removed by a run without
///   rejects, whose file would otherwise describe records it exported);
/// * an **incremental** table's state passes the records a run rejected (they count as delivered), so
///   no later run reads them again: each run that rejects writes its own
///   `<output_dir>/<table>.rejects-<run_id>.jsonl`, and no run replaces or removes another's. Their
///   removal is the operator's, once the records were dealt with.
///
/// It has the shape of a ``RecordSink``'s commit without being one (it takes rejected records, not row
/// batches): ``prepare()`` returns its staged file when there were rejections, ``commit()`` hands it
/// over to the run's commit, ``abort()`` removes it in any state.
final class DeadLetterFile {
    /// The absolute path the file gets on commit.
    let targetPath: String
    private let displayPath: String
    private let table: String
    /// Whether the file is the run's own (an incremental table's), never replaced by a later run.
    private let keepsEarlierRuns: Bool
    private var file: AtomicFile?
    private(set) var lines = 0

    /// The manifest's format name of a dead-letter file.
    static let format = "rejects-jsonl"

    /// The dead-letter file for `table` under `outputDirectory`: the table's one file, or with `runID`
    /// (an incremental table) this run's own.
    init(outputDirectory: String, table: String, runID: String? = nil) {
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        displayPath = runID.map { "\(table).rejects-\($0).jsonl" } ?? table + ".rejects.jsonl"
        targetPath = directory + "/" + displayPath
        self.table = table
        keepsEarlierRuns = runID != nil
    }

    /// Appends the record of `rejection` as a line.
    func append(_ rejection: Rejection) throws {
        if file == nil {
            let directory = (targetPath as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw NowETLError(.io, path: displayPath, "cannot create the directory of \(displayPath)", cause: error)
            }
            file = try AtomicFile(targetPath: targetPath, displayPath: displayPath, mode: OwnFiles.privateFileMode)
        }
        var line = rejection.record
        line.append(UInt8(ascii: "\n"))
        try line.withUnsafeBytes { try file!.write($0) }
        lines += 1
    }

    /// Finishes and syncs the file under its temporary name; the staged file and its manifest entry
    /// are in the result when there were rejections. Without rejections, a full table's previous file
    /// is removed at the commit (it would describe records this run exported); an incremental table's
    /// earlier files stay.
    ///
    /// - Throws: ``NowETLError`` when the file cannot be synced; it is then removed.
    func prepare() throws -> PreparedOutput {
        guard let file else { return PreparedOutput(removals: keepsEarlierRuns ? [] : [targetPath]) }
        let digest: SHA256.Digest
        do {
            digest = try file.finish()
        } catch {
            file.abort()
            throw error
        }
        let listed = OutputFile(
            path: displayPath, absolutePath: targetPath, table: table, format: Self.format, part: nil, rows: lines,
            bytes: file.byteCount, sha256: digest.hexString)
        return PreparedOutput(staged: [file.stagedFile], artifacts: [.file(listed)])
    }

    /// Hands the staged file over to the run's commit, which renames it; returns whether there was one.
    ///
    /// - Throws: ``NowETLError`` when called without a successful ``prepare()``.
    @discardableResult
    func commit() throws -> Bool {
        guard let file else { return false }
        try file.release()
        return true
    }

    /// Removes the temporary file (nothing after ``commit()``).
    func abort() {
        file?.abort()
    }
}
