import Foundation

/// The dead-letter file of a table, `<output_dir>/<table>.rejects.jsonl` (mode 0600: it holds whole
/// records, whatever the outputs' `file_mode`): one JSON line per rejected record, staged and committed like every output (created on the first rejection, finished by
/// ``prepare()``, renamed into place by the run's commit, removed on ``abort()``).
///
/// It has the shape of a ``RecordSink``'s commit without being one (it takes rejected records, not row
/// batches): ``prepare()`` returns its staged file when there were rejections, ``commit()`` hands it
/// over to the run's commit, ``abort()`` removes it in any state. The file is not an ``Artifact``:
/// the manifest lists the data files only.
final class DeadLetterFile {
    /// The absolute path the file gets on commit.
    let targetPath: String
    private let displayPath: String
    private var file: AtomicFile?
    private(set) var lines = 0

    /// A dead-letter file for `table` under `outputDirectory`.
    init(outputDirectory: String, table: String) {
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        displayPath = table + ".rejects.jsonl"
        targetPath = directory + "/" + displayPath
    }

    /// Appends the record of `rejection` as a line.
    func append(_ rejection: Rejection) throws {
        if file == nil {
            let directory = (targetPath as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw SinkError(.io, path: displayPath, "cannot create the directory of \(displayPath): \(error)")
            }
            file = try AtomicFile(targetPath: targetPath, displayPath: displayPath, mode: OwnFiles.privateFileMode)
        }
        var line = rejection.record
        line.append(UInt8(ascii: "\n"))
        try line.withUnsafeBytes { try file!.write($0) }
        lines += 1
    }

    /// Finishes and syncs the file under its temporary name; the staged file is in the result when
    /// there were rejections (otherwise the result is empty and a previous dead-letter file stays).
    ///
    /// - Throws: ``SinkError`` when the file cannot be synced; it is then removed.
    func prepare() throws -> PreparedOutput {
        // No rejects this run: a previous run's dead letters would describe records this one exported.
        guard let file else { return PreparedOutput(removals: [targetPath]) }
        do {
            try file.finish()
        } catch {
            file.abort()
            throw error
        }
        return PreparedOutput(staged: [file.stagedFile])
    }

    /// Hands the staged file over to the run's commit, which renames it; returns whether there was one.
    ///
    /// - Throws: ``SinkError`` when called without a successful ``prepare()``.
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
