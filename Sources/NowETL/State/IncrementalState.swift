import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// Where the incremental tables of a pipeline stand: per table, the greatest `(cursor, sys_id)` the
/// committed runs delivered, the last run's signpost, and the deletions' own cursor — the file
/// `<output_dir>/.nowetl/state.json`.
///
/// ```json
/// { "tables" : { "incident" : { "cursor" : "2026-12-01 01:59:58", "cursor_field" : "sys_updated_on",
///   "deleted" : 3, "deletes_cursor" : "2026-12-01 01:12:40", "deletes_sys_id" : "9c1f…",
///   "filter" : "active=true", "rows" : 1204, "run_id" : "20261201T020000Z-7f3a",
///   "signpost" : "2026-12-01 01:59:59", "sys_id" : "f00d…" } }, "version" : 1 }
/// ```
///
/// Rules:
/// * **Advanced only with the outputs it describes.** A run stages the new file (``stage(outputDirectory:)``)
///   and the commit record renames it into place together with the run's files, so the state never
///   says more was delivered than what was committed — and a crash after the record rolls both forward.
/// * **Read whole or refused.** A file that does not parse stops the run (``NowETLError/Code/incrementalState``,
///   exit 78) instead of silently reading the whole table again; `nowetl state reset` starts over.
/// * Only the holder of the output directory's lock writes it (`nowetl run`, `nowetl state set|reset`).
public struct IncrementalState: Sendable, Hashable, Codable {
    /// The file's name inside the output directory's state directory.
    public static let fileName = "state.json"

    /// The format's version (1).
    public var version = 1
    /// The incremental tables' states, by table name.
    public var tables: [String: IncrementalTableState]

    /// A state with these tables.
    public init(tables: [String: IncrementalTableState] = [:]) {
        self.tables = tables
    }

    /// `<output_dir>/.nowetl/state.json`, absolute.
    public static func path(outputDirectory: String) -> String {
        RunCommit.stateDirectory(outputDirectory: outputDirectory) + "/" + fileName
    }

    /// The state in `outputDirectory`; empty when there is none yet.
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/incrementalState``) naming the file when it cannot be read or does not parse.
    public static func read(outputDirectory: String) throws(NowETLError) -> IncrementalState {
        let path = path(outputDirectory: outputDirectory)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            var info = stat()
            if lstat(path, &info) != 0 && errno == ENOENT { return IncrementalState() }
            throw NowETLError(.incrementalState, path: path, "cannot read the incremental state \(path)", cause: error)
        }
        let state: IncrementalState
        do {
            state = try JSONDecoder().decode(IncrementalState.self, from: data)
        } catch {
            throw NowETLError(
                .incrementalState, path: path,
                "\(path): the incremental state does not parse (\(Self.describe(error))); it was left as it is. "
                    + "Repair it, or start the tables over with `nowetl state reset PIPELINE`")
        }
        guard state.version == 1 else {
            throw NowETLError(
                .incrementalState, path: path,
                "\(path): incremental state version \(state.version) is not one this nowetl reads (1)")
        }
        for (table, tableState) in state.tables.sorted(by: { $0.key < $1.key }) {
            if let problem = tableState.problem {
                throw NowETLError(
                    .incrementalState, path: path,
                    "\(path): table \(table): \(problem); it was left as it is. Repair it, set the cursor with "
                        + "`nowetl state set`, or start the table over with `nowetl state reset`")
            }
        }
        return state
    }

    /// The file's bytes: pretty-printed JSON with sorted keys, so it reads and diffs well.
    func jsonData() throws(NowETLError) -> Data {
        do {
            return try JSONDocument.data(self)
        } catch {
            throw NowETLError(
                .incrementalState, path: Self.fileName, "cannot encode the incremental state", cause: error)
        }
    }

    /// Writes the state under a temporary name beside `state.json` (complete and synced) for a commit
    /// record to rename into place; nothing visible changes.
    public func stage(outputDirectory: String) throws -> StagedFile {
        try makeFile(outputDirectory: outputDirectory).stage()
    }

    /// Replaces `state.json` at once (temporary file, `fsync`, rename, directory `fsync`) — for
    /// `nowetl state set|reset`, which hold the output directory's lock and have no run to commit with.
    public func write(outputDirectory: String) throws {
        try makeFile(outputDirectory: outputDirectory).commitOrAbort()
    }

    private func makeFile(outputDirectory: String) throws -> AtomicFile {
        let directory = RunCommit.stateDirectory(outputDirectory: outputDirectory)
        do {
            try OwnFiles.makeDirectories(directory)
        } catch {
            throw NowETLError(
                .incrementalState, path: directory, "cannot create the state directory \(directory)", cause: error)
        }
        let data = try jsonData()
        let path = directory + "/" + Self.fileName
        return try AtomicFile.holding(
            data, targetPath: path, displayPath: RunCommit.stateDirectoryName + "/" + Self.fileName,
            mode: OwnFiles.privateFileMode)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? context.debugDescription : "at \(path.dropFirst()): \(context.debugDescription)"
        default:
            return NowETLError.text(of: error)
        }
    }
}

/// One incremental table's state (``IncrementalState``).
///
/// The next run reads the rows whose `(cursor, sys_id)` is greater than `(cursor, sysID)`; with no
/// `sysID`, the rows whose cursor is at least `cursor`; with no `cursor`, the whole table (from the
/// table's `start:`, when it has one). Deletions work the same with their own pair.
public struct IncrementalTableState: Sendable, Hashable, Codable {
    /// The cursor field the state was kept for (a different `cursor:` needs `--full-refresh`).
    public var cursorField: String
    /// The greatest cursor value delivered (`YYYY-MM-DD HH:MM:SS` UTC), `nil` before the first row.
    public var cursor: String?
    /// The greatest sys_id delivered with that cursor value; `nil` when the next run takes the whole
    /// second `cursor` (after `nowetl state set`).
    public var sysID: String?
    /// The last committed run's signpost: its rows had a cursor at most this.
    public var signpost: String?
    /// The last committed run.
    public var runID: String
    /// Rows the last committed run delivered (deletion records included).
    public var rows: Int
    /// Deletion records the last committed run delivered (`deletes: true`).
    public var deleted: Int?
    /// The deletions' cursor: the greatest `sys_audit_delete.sys_created_on` delivered (or the first
    /// second not yet looked at), `nil` without `deletes: true`.
    public var deletesCursor: String?
    /// The greatest `sys_audit_delete` sys_id delivered at ``deletesCursor``; `nil`: all of that second.
    public var deletesSysID: String?
    /// The table's filter when the state was kept, so a changed filter can be pointed out.
    public var filter: String

    /// Creates a table state.
    public init(
        cursorField: String, cursor: String? = nil, sysID: String? = nil, signpost: String? = nil, runID: String,
        rows: Int = 0, deleted: Int? = nil, deletesCursor: String? = nil, deletesSysID: String? = nil,
        filter: String = ""
    ) {
        self.cursorField = cursorField
        self.cursor = cursor
        self.sysID = sysID
        self.signpost = signpost
        self.runID = runID
        self.rows = rows
        self.deleted = deleted
        self.deletesCursor = deletesCursor
        self.deletesSysID = deletesSysID
        self.filter = filter
    }

    /// What makes the state unusable, if anything: its values go into the next run's query, so each
    /// must be what a run writes — date-times `YYYY-MM-DD HH:MM:SS`, sys_ids by ``SysIDRule`` (the rule
    /// a run applies before it saves one, so whatever a run saved, the next one reads).
    var problem: String? {
        for (name, value) in [("cursor", cursor), ("signpost", signpost), ("deletes_cursor", deletesCursor)] {
            if let value, TableAPIDateFormat.date(from: value) == nil {
                return "\(name) '\(value)' is not a UTC date-time YYYY-MM-DD HH:MM:SS"
            }
        }
        for (name, value) in [("sys_id", sysID), ("deletes_sys_id", deletesSysID)] {
            if let value, let problem = SysIDRule.problem(value) {
                return "\(name) '\(SysIDRule.escaped(value))' is not a sys_id: it \(problem) (a sys_id is 1 to "
                    + "\(SysIDRule.maximumLength) letters, digits, '-', '_' or '.')"
            }
        }
        if NameRule.offsetOfInvalidLowercaseName(cursorField) != nil {
            return "cursor_field '\(cursorField)' is not a field name"
        }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case cursorField = "cursor_field"
        case cursor
        case sysID = "sys_id"
        case signpost
        case runID = "run_id"
        case rows, deleted
        case deletesCursor = "deletes_cursor"
        case deletesSysID = "deletes_sys_id"
        case filter
    }
}
