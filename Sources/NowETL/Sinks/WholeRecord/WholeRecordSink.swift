import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// What travels with the exported records besides their rows (``WholeRecordConfiguration``): their
/// journal entries, audit rows and attachments, written beside the table's files and committed with
/// them.
///
/// | file | what |
/// |---|---|
/// | `<table>.journal.jsonl` | `sys_journal_field` entries of the fields `journal:` names |
/// | `<table>.audit.jsonl` | `sys_audit` rows (`audit: true`) |
/// | `<table>.attachments.jsonl` | one line per attachment: its metadata, `bytes`, `sha256`, `path` |
/// | `attachments/<table>/<record sys_id>/<attachment sys_id>/<file name>` | the bytes (``AttachmentFileName``) |
///
/// An incremental table's run writes `<table>-<run id>.journal.jsonl` (and so on), so every run's
/// entries are kept; its entries and attachments are those created (attachments: updated) inside the
/// run's window, of the records the run exports.
///
/// Lifecycle: the join hands it every row (``write(_:)`` keeps only the record sys_ids, in a file of
/// the table's journal directory, in sys_id order); ``prepare()`` then reads the related rows, 100
/// records to a query (``RelatedRows``), and downloads the attachments one at a time, each request
/// holding a slot of the run's ``RequestLimiter``. Every file is staged like any output (``AtomicFile``)
/// and renamed by the run's commit; ``abort()`` removes them.
///
/// Resuming: an attachment is downloaded into the table's journal directory and recorded (size and
/// SHA-256, synced) in `attachments.done` before it is copied to its staged file, so the rerun of a run
/// that died in the middle downloads only what it had not finished. The journal directory goes with
/// the commit.
final class WholeRecordSink: RecordSink {
    /// What the engine gives the sink: where it reads, where it writes.
    struct Setup {
        /// The exported table.
        var table: String
        var selection: WholeRecordConfiguration
        /// The table's client (its transport events feed the run's limiter).
        var service: NowTableService
        var limiter: RequestLimiter
        /// Where the files go (the first file output's directory); `nil` when the table has no file output.
        var outputDirectory: String?
        var fileMode: mode_t
        /// The table's journal directory (the attachments' download cache).
        var journalDirectory: String
        /// Rows per related-rows page and attachments per listing page.
        var pageSize: Int
        /// The row cell holding the record's sys_id.
        var sysIDColumn: Int?
        /// An incremental run's window; `nil` for a full export.
        var window: IncrementalWindow?
        /// The instance outputs (migrations) that receive the related rows too.
        var targets: [InstanceSinkOptions] = []
        /// The run's maps of coalesced tables (a migrated record's sys_id on the target).
        var maps = InstanceMaps()
    }

    private let setup: Setup
    private var context: SinkContext?
    private var ids: UnsafeMutablePointer<FILE>?
    private var recordCount = 0
    /// Staged files not yet handed to the run's commit (removed by ``abort()``).
    private var staged: [StagedFile] = []
    private var artifacts: [Artifact] = []

    init(_ setup: Setup) {
        self.setup = setup
    }

    deinit { closeIDs() }

    private var table: String { setup.table }
    private var idsPath: String { setup.journalDirectory + "/whole-record.ids" }

    // MARK: - RecordSink

    func open(schema: RowSchema, context: SinkContext) async throws {
        guard setup.sysIDColumn != nil else {
            throw NowETLError(
                .invalidSchema, table: table,
                "attachments, journal and audit need the record's sys_id, and the table exports no sys_id column")
        }
        try OwnFiles.makeDirectories(setup.journalDirectory, mode: OwnFiles.privateDirectoryMode)
        let fd = try OwnFiles.open(idsPath, O_WRONLY | O_CREAT | O_TRUNC, action: "create the record list")
        guard let file = fdopen(fd, "w") else {
            _ = close(fd)
            throw NowETLError.io("open the record list", path: idsPath)
        }
        ids = file
        recordCount = 0
        staged = []
        artifacts = []
        self.context = context
    }

    func write(_ batch: RowBatch) async throws {
        guard let ids, let column = setup.sysIDColumn else { return }
        for row in 0..<batch.count {
            guard case .string(let sysID)? = batch[row, column], SysIDRule.accepts(sysID) else { continue }
            guard fputs(sysID + "\n", ids) >= 0 else { throw NowETLError.io("write the record list", path: idsPath) }
            recordCount += 1
        }
    }

    func prepare() async throws -> PreparedOutput {
        guard let context else { throw NowETLError(.misuse, table: table, "prepare called before open") }
        guard let ids, fflush(ids) == 0 else { throw NowETLError.io("write the record list", path: idsPath) }
        closeIDs()
        do {
            if let outputDirectory = setup.outputDirectory {
                try await writeFiles(into: outputDirectory, context: context)
            }
            for target in setup.targets {
                _ = try await WholeRecordMigration(
                    table: table, selection: setup.selection, options: target, maps: setup.maps, source: setup.service,
                    limiter: setup.limiter, pageSize: setup.pageSize
                ).run(chunks: forEachChunk)
            }
        } catch {
            await abort()
            throw error
        }
        return PreparedOutput(staged: staged, artifacts: artifacts)
    }

    /// Writes the journal, audit and attachment files into `outputDirectory`.
    private func writeFiles(into outputDirectory: String, context: SinkContext) async throws {
        let selection = setup.selection
        if !selection.journal.isEmpty {
            let fields = selection.journal.joined(separator: ",")
            try await writeRows(
                kind: "journal", into: outputDirectory, context: context,
                RelatedRows(
                    table: "sys_journal_field", keyField: "element_id",
                    condition: "name=\(table)^elementIN\(fields)" + windowCondition(field: "sys_created_on"),
                    fields: Self.journalFields, exportedTable: table, service: setup.service,
                    limiter: setup.limiter, pageSize: setup.pageSize))
        }
        if selection.audit {
            try await writeRows(
                kind: "audit", into: outputDirectory, context: context,
                RelatedRows(
                    table: "sys_audit", keyField: "documentkey",
                    condition: "tablename=\(table)" + windowCondition(field: "sys_created_on"),
                    fields: Self.auditFields, exportedTable: table, service: setup.service,
                    limiter: setup.limiter, pageSize: setup.pageSize))
        }
        if let attachments = selection.attachments {
            try await writeAttachments(attachments, into: outputDirectory, context: context)
        }
    }

    func commit() async throws -> [Artifact] {
        staged = []
        context = nil
        return artifacts
    }

    func abort() async {
        closeIDs()
        for file in staged { file.removeTemporaryFile() }
        staged = []
        context = nil
    }

    // MARK: - Journal and audit

    /// The fields of a journal entry, as written.
    static let journalFields = ["sys_id", "name", "element", "element_id", "value", "sys_created_on", "sys_created_by"]
    /// The fields of an audit row, as written.
    static let auditFields = [
        "sys_id", "tablename", "documentkey", "fieldname", "oldvalue", "newvalue", "reason", "user",
        "record_checkpoint", "internal_checkpoint", "sys_created_on", "sys_created_by",
    ]

    /// `^F>=C^F<=S` for an incremental run's window (`F` a date-time field of the related row), else `""`.
    private func windowCondition(field: String) -> String {
        guard let window = setup.window else { return "" }
        var condition = ""
        if let cursor = window.cursor { condition += "^\(field)>=\(cursor)" }
        return condition + "^\(field)<=\(window.signpost)"
    }

    /// The file of `kind` (`journal`, `audit`, `attachments`): `<table>.<kind>.jsonl`, or
    /// `<table>-<run id>.<kind>.jsonl` for an incremental run.
    private func fileName(_ kind: String, context: SinkContext) -> String {
        setup.window == nil ? "\(table).\(kind).jsonl" : "\(table)-\(context.runID).\(kind).jsonl"
    }

    /// Writes every related row of the exported records into the `kind` file.
    private func writeRows(kind: String, into outputDirectory: String, context: SinkContext, _ reader: RelatedRows)
        async throws
    {
        let name = fileName(kind, context: context)
        let file = try AtomicFile(
            targetPath: outputDirectory + "/" + name, displayPath: name, mode: setup.fileMode)
        var rows = 0
        do {
            try await forEachChunk { records in
                try await reader.forEachRow(of: records) { values in
                    try Self.writeLine(values, to: file)
                    rows += 1
                }
            }
            try stage(file, path: name, format: "jsonl", rows: rows)
        } catch {
            file.abort()
            throw error
        }
    }

    /// Calls `body` with the exported records' sys_ids, ``RelatedRows/recordsPerQuery`` at a time, in
    /// sys_id order.
    private func forEachChunk(_ body: ([String]) async throws -> Void) async throws {
        let fd = try OwnFiles.open(idsPath, O_RDONLY, action: "read the record list")
        defer { _ = close(fd) }
        var chunk: [String] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw NowETLError.io("read the record list", path: idsPath) }
            if count == 0 { break }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                chunk.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
                if chunk.count == RelatedRows.recordsPerQuery {
                    try await body(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        }
        if !chunk.isEmpty { try await body(chunk) }
    }

    /// One JSON object per line, keys sorted.
    private static func writeLine(_ values: [String: Any], to file: AtomicFile) throws {
        var data = try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys, .withoutEscapingSlashes])
        data.append(UInt8(ascii: "\n"))
        try data.withUnsafeBytes { try file.write($0) }
    }

    /// Finishes `file`, hands it to the run's commit and records what it will be.
    private func stage(_ file: AtomicFile, path: String, format: String, rows: Int) throws {
        let stagedFile = try file.stage()
        staged.append(stagedFile)
        artifacts.append(
            .file(
                OutputFile(
                    path: path, absolutePath: file.targetPath, table: table, format: format, part: nil, rows: rows,
                    bytes: file.byteCount, sha256: file.digest?.hexString ?? "")))
    }

    // MARK: - Attachments

    /// Lists the exported records' attachments, takes those `selection` accepts, downloads each (or
    /// reuses its finished download) and stages it with the metadata file.
    private func writeAttachments(_ selection: AttachmentSelection, into outputDirectory: String, context: SinkContext)
        async throws
    {
        let name = fileName("attachments", context: context)
        let metadata = try AtomicFile(
            targetPath: outputDirectory + "/" + name, displayPath: name, mode: setup.fileMode)
        var downloads = try AttachmentDownloads(directory: setup.journalDirectory)
        let service = NowAttachmentService(sharing: setup.service)
        var rows = 0
        do {
            try await forEachChunk { records in
                let asked = Set(records)
                var after: String?
                while true {
                    try Task.checkCancellation()
                    var query = "table_name=\(table)^table_sys_idIN\(records.joined(separator: ","))"
                    query += windowCondition(field: "sys_updated_on")
                    if let after { query += "^sys_id>\(after)" }
                    query += "^ORDERBYsys_id"
                    let page = try await listAttachments(service, query: query)
                    for attachment in page {
                        guard Self.isPathSafe(attachment.sysID), after.map({ attachment.sysID > $0 }) ?? true,
                            asked.contains(attachment.tableSysID), Self.isPathSafe(attachment.tableSysID)
                        else {
                            throw NowETLError(
                                .failed, table: table,
                                "the Attachment API answered an attachment whose sys_id or table_sys_id cannot name "
                                    + "a folder (no sys_id, or starting with a dot), whose sys_id does not follow the "
                                    + "previous one, or whose table_sys_id names a record that was not asked for")
                        }
                        after = attachment.sysID
                        guard let bytes = Int(attachment.sizeBytes), bytes >= 0 else {
                            throw NowETLError(
                                .failed, table: table,
                                "attachment \(attachment.sysID) declares no size (size_bytes "
                                    + "'\(PrintableText.escaped(String(attachment.sizeBytes.prefix(40))))')")
                        }
                        guard selection.accepts(contentType: attachment.contentType, bytes: bytes) else { continue }
                        let done = try await downloads.fetch(attachment, bytes: bytes, service: service) { body in
                            try await self.withSlot(during: "downloading attachment \(attachment.sysID)", body)
                        }
                        let path = try stageAttachment(attachment, download: done, into: outputDirectory)
                        try Self.writeLine(
                            [
                                "sys_id": attachment.sysID, "table_name": attachment.tableName,
                                "table_sys_id": attachment.tableSysID, "file_name": attachment.fileName,
                                "content_type": attachment.contentType, "bytes": done.bytes, "sha256": done.sha256,
                                "path": path, "sys_created_on": attachment.sysCreatedOn,
                                "sys_created_by": attachment.sysCreatedBy, "sys_updated_on": attachment.sysUpdatedOn,
                            ], to: metadata)
                        rows += 1
                    }
                    if page.count < setup.pageSize { break }
                }
            }
            try stage(metadata, path: name, format: "jsonl", rows: rows)
        } catch {
            metadata.abort()
            throw error
        }
    }

    /// One page of the Attachment API's listing, holding a limiter slot.
    private func listAttachments(_ service: NowAttachmentService, query: String) async throws -> [AttachmentMetadata] {
        try await withSlot(during: "listing attachments") {
            try await service.attachments(query: query, limit: setup.pageSize).attachments
        }
    }

    /// Runs `body` holding a slot of the run's limiter; a NowData failure becomes a ``NowETLError``
    /// naming the table and `step`.
    private func withSlot<T>(during step: String, _ body: () async throws -> T) async throws -> T {
        try await setup.limiter.acquire()
        do {
            let value = try await body()
            setup.limiter.release(.healthy)
            return value
        } catch let error as NowDataError {
            let failure = NowETLError(table: table, during: step, error)
            setup.limiter.release(failure.limiterOutcome)
            throw failure
        } catch {
            setup.limiter.release((error as? NowETLError)?.limiterOutcome ?? .failed)
            throw error
        }
    }

    /// Whether `sysID` may name a folder: a sys_id by ``SysIDRule`` that does not start with a dot (no
    /// `.`, `..` or hidden folder).
    static func isPathSafe(_ sysID: String) -> Bool {
        SysIDRule.accepts(sysID) && !sysID.hasPrefix(".")
    }

    /// Copies a finished download to its staged file
    /// `attachments/<table>/<record>/<attachment>/<file name>` and returns that path (relative to the
    /// output directory); the copy's SHA-256 must be the download's.
    private func stageAttachment(
        _ attachment: AttachmentMetadata, download: AttachmentDownloads.Done, into outputDirectory: String
    ) throws -> String {
        let directory = "attachments/\(table)/\(attachment.tableSysID)/\(attachment.sysID)"
        let path = directory + "/" + AttachmentFileName.safe(attachment.fileName)
        try OwnFiles.makeDirectories(
            outputDirectory + "/" + directory, mode: OwnFiles.directoryMode(forFileMode: setup.fileMode))
        let file = try AtomicFile(
            targetPath: outputDirectory + "/" + path, displayPath: path, mode: setup.fileMode)
        do {
            try AttachmentDownloads.copy(download.path, into: file)
            let stagedFile = try file.stage()
            guard file.digest?.hexString == download.sha256, file.byteCount == download.bytes else {
                stagedFile.removeTemporaryFile()
                throw NowETLError(
                    .damagedSpill, path: download.path,
                    "the download of attachment \(attachment.sysID) changed on disk since it finished; run again")
            }
            staged.append(stagedFile)
            artifacts.append(
                .file(
                    OutputFile(
                        path: path, absolutePath: file.targetPath, table: table, format: "attachment", part: nil,
                        rows: 0, bytes: download.bytes, sha256: download.sha256)))
        } catch {
            file.abort()
            throw error
        }
        return path
    }

    private func closeIDs() {
        if let ids { fclose(ids) }
        ids = nil
    }
}
