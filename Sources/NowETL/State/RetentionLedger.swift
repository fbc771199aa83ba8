import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The committed runs whose files `keep_runs` may remove one day: `<output_dir>/.nowetl/retention.json`.
///
/// `manifest.json` lists only the last committed run's files, so the runs before it are remembered
/// here, in commit order (oldest first), each with the files it committed for an output that has
/// `keep_runs` — the path relative to `output_dir`, the output's path template as written, the table,
/// the part and the size on disk. ``RunRetention`` adds a run only from a manifest (which only a
/// commit puts in place), and removes nothing the ledger does not list, so a file nowetl did not
/// commit is never a candidate.
///
/// ```json
/// { "runs" : [ { "files" : [ { "bytes" : 1843, "output" : "{table}-{run_id}.csv", "path" :
///   "incident-20240301T020000Z-7f3a.csv", "table" : "incident" } ], "run_date" : "2024-03-01",
///   "run_id" : "20240301T020000Z-7f3a" } ], "version" : 1 }
/// ```
///
/// It is replaced atomically (``AtomicFile``) and, like every file under `.nowetl/`, opened without
/// following symbolic links and kept private.
struct RetentionLedger: Codable, Sendable, Hashable {
    /// One committed file of an output with `keep_runs`.
    struct File: Codable, Sendable, Hashable {
        /// The output's path template as written (``OutputPathTemplate/text``): which output wrote it.
        var output: String
        /// The table the rows came from (`{table}`).
        var table: String
        /// The path relative to `output_dir`, as the manifest listed it.
        var path: String
        /// The part number of a split output.
        var part: Int?
        /// Bytes on disk when the run committed it; a file of another size was replaced since, and stays.
        var bytes: Int
    }

    /// One committed run.
    struct Run: Codable, Sendable, Hashable {
        /// The run's identifier (`{run_id}`).
        var runID: String
        /// The run's `{run_date}`, `yyyy-MM-dd`.
        var runDate: String
        /// Its files of outputs with `keep_runs` that are not removed yet.
        var files: [File]

        enum CodingKeys: String, CodingKey {
            case runID = "run_id"
            case runDate = "run_date"
            case files
        }
    }

    /// The file format's version (1).
    var version = 1
    /// The committed runs, oldest first (the order they committed in, whatever their clocks said).
    var runs: [Run] = []

    /// The file's name inside `.nowetl/`.
    static let fileName = "retention.json"

    /// `<output_dir>/.nowetl/retention.json`, absolute.
    static func path(outputDirectory: String) -> String {
        RunCommit.stateDirectory(outputDirectory: outputDirectory) + "/" + fileName
    }

    /// The ledger of `outputDirectory`; empty when there is none yet.
    ///
    /// - Throws: ``NowETLError`` naming the file when it cannot be read (a symbolic link included) or
    ///   does not parse; it is left as it is.
    static func read(outputDirectory: String) throws(NowETLError) -> RetentionLedger {
        let path = path(outputDirectory: outputDirectory)
        let descriptor: Int32
        do {
            descriptor = try OwnFiles.open(path, O_RDONLY, action: "open")
        } catch {
            if error.errno == ENOENT { return RetentionLedger() }
            throw error
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let ledger: RetentionLedger
        do {
            ledger = try JSONDecoder().decode(RetentionLedger.self, from: handle.readToEnd() ?? Data())
        } catch {
            throw NowETLError(
                .io, path: path, "\(path): the keep_runs ledger cannot be read; it was left as it is", cause: error,
                remedy: "old runs' files are not removed until it reads again: repair it, or delete it to forget the "
                    + "runs it lists (their files then stay until removed by hand)")
        }
        guard ledger.version == 1 else {
            throw NowETLError(
                .io, path: path, "\(path): keep_runs ledger version \(ledger.version) is not one this nowetl reads (1)")
        }
        return ledger
    }

    /// Replaces the ledger at once (temporary file, `fsync`, rename, directory `fsync`).
    ///
    /// - Throws: ``NowETLError`` when it cannot be written (the old ledger stays then).
    func write(outputDirectory: String) throws {
        let directory = RunCommit.stateDirectory(outputDirectory: outputDirectory)
        try OwnFiles.makeDirectories(directory)
        let data: Data
        do {
            data = try JSONDocument.data(self)
        } catch {
            throw NowETLError(.misuse, path: Self.fileName, "cannot encode the keep_runs ledger", cause: error)
        }
        try AtomicFile.holding(
            data, targetPath: directory + "/" + Self.fileName,
            displayPath: RunCommit.stateDirectoryName + "/" + Self.fileName, mode: OwnFiles.privateFileMode
        ).commitOrAbort()
    }
}
