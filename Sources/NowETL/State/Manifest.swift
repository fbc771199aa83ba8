import Foundation

/// The list of files a run wrote, with rows, sizes and SHA-256 checksums: `manifest.json`.
///
/// The runner collects the ``OutputFile``s of every sink's ``Artifact``s and writes one manifest per
/// run into the output directory, last, atomically — so a consumer that reads the manifest first sees
/// a complete, verified set (`sha256sum -c` style). Paths are relative to the manifest's directory.
/// ``write(toDirectory:name:mode:)`` renames it into place at once; ``stage(toDirectory:name:mode:)`` leaves it
/// staged for the run's commit, which renames it after every file it lists.
///
/// ```json
/// {
///   "files" : [
///     { "bytes" : 1843, "format" : "csv", "path" : "out/incident-2024-03-01.csv.gz", "rows" : 20,
///       "sha256" : "9f86d0…", "table" : "incident" }
///   ],
///   "run_id" : "20240301T020000Z-7f3a",
///   "run_started" : "2024-03-01T02:00:00Z",
///   "version" : 1
/// }
/// ```
public struct Manifest: Sendable, Hashable, Codable {
    /// One file of the run.
    public struct File: Sendable, Hashable, Codable {
        /// The path relative to the manifest's directory.
        public var path: String
        /// The table the rows came from.
        public var table: String
        /// `csv`, `xml-records`, `xml-unload`, `jsonl` or `json`.
        public var format: String
        /// The part number of a split output.
        public var part: Int?
        /// Data rows in the file.
        public var rows: Int
        /// Bytes on disk.
        public var bytes: Int
        /// SHA-256 of the bytes on disk, lowercase hex.
        public var sha256: String

        /// Describes a file.
        public init(
            path: String, table: String, format: String, part: Int?, rows: Int, bytes: Int, sha256: String
        ) {
            self.path = path
            self.table = table
            self.format = format
            self.part = part
            self.rows = rows
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    /// The manifest format's version (1).
    public var version: Int
    /// The run's identifier.
    public var runID: String
    /// When the run started, ISO 8601 in UTC (`2024-03-01T02:00:00Z`, ``RunTimestamp``); manifests
    /// written by earlier builds have `2024-03-01 02:00:00` (UTC) here, and still decode.
    public var runStarted: String
    /// The files, in the order given.
    public var files: [File]
    /// Tables of a `--keep-going` run that failed: their entries (and files) are the previous run's;
    /// absent when every table of the run committed.
    public var failedTables: [String]?

    enum CodingKeys: String, CodingKey {
        case version
        case runID = "run_id"
        case runStarted = "run_started"
        case files
        case failedTables = "failed_tables"
    }

    /// Creates a manifest of committed files.
    public init(runID: String, runStarted: Date, files: [OutputFile]) {
        version = 1
        self.runID = runID
        self.runStarted = RunTimestamp(runStarted).text
        self.files = files.map(\.entry)
    }

    /// The manifest `name` in `directory`.
    ///
    /// - Throws: when it cannot be read or decoded.
    public static func read(fromDirectory directory: String, name: String = "manifest.json") throws -> Manifest {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    /// The manifest as pretty-printed JSON with sorted keys (stable for equal runs).
    public func jsonData() throws -> Data {
        try JSONDocument.data(self)
    }

    /// Writes the manifest atomically (temporary file, `fsync`, rename) as `name` in `directory`,
    /// and returns its absolute path.
    ///
    /// - Throws: ``NowETLError`` when the file cannot be written.
    @discardableResult
    public func write(
        toDirectory directory: String, name: String = "manifest.json", mode: mode_t = 0o640
    ) throws -> String {
        let file = try makeFile(inDirectory: directory, name: name, mode: mode)
        try file.commitOrAbort()
        return file.targetPath
    }

    /// Writes the manifest complete and synced under a temporary name beside `name` in `directory`,
    /// for the run's commit to rename into place (last of all files); nothing visible changes.
    ///
    /// The caller owns the temporary file from here on: a run that does not commit removes it
    /// (``StagedFile/removeTemporaryFile()``); one that dies is cleaned up at the next start.
    ///
    /// - Throws: ``NowETLError`` when the file cannot be written (no temporary file is left then).
    public func stage(
        toDirectory directory: String, name: String = "manifest.json", mode: mode_t = 0o640
    ) throws -> StagedFile {
        try makeFile(inDirectory: directory, name: name, mode: mode).stage()
    }

    /// The manifest's JSON written into a temporary file of `mode` (the outputs' `file_mode`) for `name`
    /// in `directory` (created if needed).
    private func makeFile(inDirectory directory: String, name: String, mode: mode_t) throws -> AtomicFile {
        try OutputPathTemplate.checkConfined(name, template: name)
        let base = directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        let target = base + "/" + name
        do {
            try OwnFiles.makeDirectories(base, mode: OwnFiles.directoryMode(forFileMode: mode))
        } catch {
            throw NowETLError(.io, path: name, "cannot create the directory \(base) for \(name)", cause: error)
        }
        let data: Data
        do {
            data = try jsonData()
        } catch {
            throw NowETLError(.misuse, path: name, "cannot encode \(name)", cause: error)
        }
        return try AtomicFile.holding(data, targetPath: target, displayPath: name, mode: mode)
    }
}

extension OutputFile {
    /// The file a manifest entry describes, in `directory`.
    init(_ file: Manifest.File, directory: String) {
        let base = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.init(entry: file, absolutePath: base + "/" + file.path)
    }
}
