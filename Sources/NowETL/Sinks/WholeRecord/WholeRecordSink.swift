import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// What travels with the exported records besides their rows (``WholeRecordConfiguration``): their
/// journal entries, audit rows and attachments, written beside the table's files and committed with
/// them, and copied into the instance outputs after the records (``WholeRecordMigration``).
///
/// | file | what |
/// |---|---|
/// | `<table>.journal.jsonl` | `sys_journal_field` entries of the fields `journal:` names |
/// | `<table>.audit.jsonl` | `sys_audit` rows (`audit: true`) |
/// | `<table>.attachments.jsonl` | one line per attachment: its metadata, `bytes`, `sha256`, `path` |
/// | `attachments/<table>/<record sys_id>/<attachment sys_id>/<file name>` | the bytes (``AttachmentFileName``) |
///
/// An incremental table's run writes `<table>-<run id>.journal.jsonl` (and so on), so every run's
/// rows are kept; its entries and audit rows are those created inside the run's window, its
/// attachments those updated inside it, of the records the run exports.
///
/// Lifecycle: the join hands it every row (``write(_:)`` keeps only the record sys_ids, in a file of
/// the table's journal directory, in sys_id order); ``prepare()`` then reads the related rows, 100
/// records to a query (``RelatedRows``), and downloads the attachments one at a time, each request
/// holding a slot of the run's ``RequestLimiter``. Every file is staged like any output (``AtomicFile``)
/// and renamed by the run's commit; ``abort()`` removes them.
///
/// Resuming: an attachment is downloaded into the table's journal directory and recorded (size and
/// SHA-256, synced) in `attachments.done` before it is copied to its staged file
/// (``AttachmentDownloads``), so the rerun of a run that died in the middle downloads only what it had
/// not finished. The journal directory goes with the commit.
final class WholeRecordSink: RecordSink {
    /// What the engine gives the sink.
    struct Setup {
        /// The table: its name and what travels with its records (``TableConfiguration/wholeRecord``).
        var table: TableConfiguration
        /// Its plan: page size, the sys_id column, an incremental run's window.
        var plan: TablePlan
        /// The table's client (its transport events feed the run's limiter) and the run's limiter.
        var service: NowTableService
        var limiter: RequestLimiter
        /// Where the files go (the first file output's directory) and their mode; `nil` without a file output.
        var files: (directory: String, mode: mode_t)?
        /// The table's journal directory (the record list and the attachments' download cache).
        var journalDirectory: String
        /// The instance outputs (migrations) that receive the related rows too, and the run's maps.
        var targets: [InstanceSinkOptions] = []
        var maps = InstanceMaps()
    }

    private let setup: Setup
    private var context: SinkContext?
    private var ids: UnsafeMutablePointer<FILE>?
    /// Staged files not yet handed to the run's commit (removed by ``abort()``).
    private var staged: [StagedFile] = []
    private var artifacts: [Artifact] = []

    init(_ setup: Setup) {
        self.setup = setup
    }

    deinit { closeIDs() }

    private var table: String { setup.table.table }
    private var idsPath: String { setup.journalDirectory + "/whole-record.ids" }

    // MARK: - RecordSink

    func open(schema: RowSchema, context: SinkContext) async throws {
        guard setup.plan.sysIDColumn != nil else {
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
        staged = []
        artifacts = []
        self.context = context
    }

    func write(_ batch: RowBatch) async throws {
        guard let ids, let column = setup.plan.sysIDColumn else { return }
        for row in 0..<batch.count {
            guard case .string(let sysID)? = batch[row, column], SysIDRule.accepts(sysID) else { continue }
            guard fputs(sysID + "\n", ids) >= 0 else { throw NowETLError.io("write the record list", path: idsPath) }
        }
    }

    func prepare() async throws -> PreparedOutput {
        guard let context else { throw NowETLError(.misuse, table: table, "prepare called before open") }
        guard let ids, fflush(ids) == 0 else { throw NowETLError.io("write the record list", path: idsPath) }
        closeIDs()
        do {
            if let files = setup.files {
                for kind in RelatedKind.rows(of: table, setup.table.wholeRecord) {
                    try await writeRows(kind, into: files, context: context)
                }
                if let attachments = setup.table.wholeRecord.attachments {
                    try await writeAttachments(attachments, into: files, context: context)
                }
            }
            for target in setup.targets {
                _ = try await WholeRecordMigration(setup: setup, options: target).run(chunks: forEachChunk)
            }
        } catch {
            await abort()
            throw error
        }
        return PreparedOutput(staged: staged, artifacts: artifacts)
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

    /// `F>=C^F<=S` for an incremental run's window (`F` a date-time field of the related row), else `""`.
    private func window(_ field: String) -> String {
        guard let window = setup.plan.incremental else { return "" }
        return (window.cursor.map { "\(field)>=\($0)^" } ?? "") + "\(field)<=\(window.signpost)"
    }

    /// The file of `kind` (`journal`, `audit`, `attachments`): `<table>.<kind>.jsonl`, or
    /// `<table>-<run id>.<kind>.jsonl` for an incremental run.
    private func fileName(_ kind: String, context: SinkContext) -> String {
        setup.plan.incremental == nil ? "\(table).\(kind).jsonl" : "\(table)-\(context.runID).\(kind).jsonl"
    }

    /// A reader of `kind` for this table's records, through the table's client and the run's limiter.
    func reader(_ kind: RelatedKind) -> RelatedRows {
        RelatedRows(
            kind: kind, exportedTable: table, service: setup.service, limiter: setup.limiter,
            pageSize: setup.plan.pageSize)
    }

    /// Writes every `kind` row of the exported records (created inside the window) into its file.
    private func writeRows(_ kind: RelatedKind, into files: (directory: String, mode: mode_t), context: SinkContext)
        async throws
    {
        let reader = reader(kind.and(window("sys_created_on")))
        try await writeFile(fileName(kind.name, context: context), into: files) { file in
            var rows = 0
            try await forEachChunk { records in
                try await reader.forEachRow(of: records) { values in
                    try Self.writeLine(values, to: file)
                    rows += 1
                }
            }
            return rows
        }
    }

    /// Creates `name` in the output directory, fills it with `body` (which returns its line count),
    /// stages it and records what it will be; removes it when `body` throws.
    private func writeFile(
        _ name: String, into files: (directory: String, mode: mode_t), _ body: (AtomicFile) async throws -> Int
    ) async throws {
        let file = try AtomicFile(targetPath: files.directory + "/" + name, displayPath: name, mode: files.mode)
        do {
            let rows = try await body(file)
            try stage(file, path: name, format: "jsonl", rows: rows, bytes: file.byteCount)
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
    private func stage(_ file: AtomicFile, path: String, format: String, rows: Int, bytes: Int) throws {
        let stagedFile = try file.stage()
        staged.append(stagedFile)
        artifacts.append(
            .file(
                OutputFile(
                    path: path, absolutePath: file.targetPath, table: table, format: format, part: nil, rows: rows,
                    bytes: bytes, sha256: file.digest?.hexString ?? "")))
    }

    // MARK: - Attachments

    /// Lists the exported records' attachments (the Attachment API, updated inside the window), takes
    /// those `selection` accepts, downloads each (or reuses its finished download) and stages it with
    /// the metadata file.
    private func writeAttachments(
        _ selection: AttachmentSelection, into files: (directory: String, mode: mode_t), context: SinkContext
    ) async throws {
        var downloads = try AttachmentDownloads(directory: setup.journalDirectory)
        let service = NowAttachmentService(sharing: setup.service)
        let condition = RelatedKind.attachments(of: table).and(window("sys_updated_on")).condition
        try await writeFile(fileName("attachments", context: context), into: files) { metadata in
            var rows = 0
            try await forEachChunk { records in
                var after: String?
                while true {
                    try Task.checkCancellation()
                    var query = "table_sys_idIN\(records.joined(separator: ","))^" + condition
                    if let after { query += "^sys_id>\(after)" }
                    let page = try await setup.limiter.withSlot(table: table, during: "listing attachments") {
                        try await service.attachments(query: query + "^ORDERBYsys_id", limit: setup.plan.pageSize)
                            .attachments
                    }
                    for listed in page {
                        let attachment = try checked(listed, of: Set(records), after: after)
                        after = attachment.sysID
                        guard selection.accepts(contentType: attachment.contentType, bytes: attachment.bytes) else {
                            continue
                        }
                        let done = try await downloads.fetch(attachment.sysID, bytes: attachment.bytes) { stream in
                            try await self.setup.limiter.withSlot(
                                table: self.table, during: "downloading attachment \(attachment.sysID)"
                            ) {
                                _ = try await service.download(sysID: attachment.sysID, into: stream)
                            }
                        }
                        let path = try stageAttachment(attachment, download: done, into: files)
                        var line = listed.lineValues
                        line["bytes"] = done.bytes
                        line["sha256"] = done.sha256
                        line["path"] = path
                        try Self.writeLine(line, to: metadata)
                        rows += 1
                    }
                    if page.count < setup.plan.pageSize { break }
                }
            }
            return rows
        }
    }

    /// A listed attachment, checked before any of it is used: its sys_id and record can name a folder,
    /// the record is one of `records`, the sys_id follows `after`, the size is a size.
    private func checked(_ listed: AttachmentMetadata, of records: Set<String>, after: String?) throws
        -> CheckedAttachment
    {
        let sysID = listed.sysId ?? ""
        let record = listed.tableSysId ?? ""
        guard Self.isPathSafe(sysID), after.map({ sysID > $0 }) ?? true, records.contains(record),
            Self.isPathSafe(record)
        else {
            throw NowETLError(
                .failed, table: table,
                "the Attachment API answered an attachment whose sys_id or table_sys_id cannot name a folder (no "
                    + "sys_id, or starting with a dot), whose sys_id does not follow the previous one, or whose "
                    + "table_sys_id names a record that was not asked for")
        }
        guard let bytes = Int(listed.sizeBytes ?? ""), bytes >= 0 else {
            throw NowETLError(
                .failed, table: table,
                "attachment \(sysID) declares no size (size_bytes "
                    + "'\(PrintableText.escaped(String((listed.sizeBytes ?? "").prefix(40))))')")
        }
        return CheckedAttachment(
            sysID: sysID, record: record, fileName: listed.fileName ?? "", contentType: listed.contentType ?? "",
            bytes: bytes)
    }

    /// What of a listed attachment names files and decides its selection, checked (``checked(_:of:after:)``).
    private struct CheckedAttachment {
        var sysID: String
        var record: String
        var fileName: String
        var contentType: String
        var bytes: Int
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
        _ attachment: CheckedAttachment, download: AttachmentDownloads.Done,
        into files: (directory: String, mode: mode_t)
    ) throws -> String {
        let directory = "attachments/\(table)/\(attachment.record)/\(attachment.sysID)"
        let path = directory + "/" + AttachmentFileName.safe(attachment.fileName)
        try OwnFiles.makeDirectories(
            files.directory + "/" + directory, mode: OwnFiles.directoryMode(forFileMode: files.mode))
        let file = try AtomicFile(targetPath: files.directory + "/" + path, displayPath: path, mode: files.mode)
        do {
            try AttachmentDownloads.copy(download.path, into: file)
            try file.finish()
            guard file.digest?.hexString == download.sha256, file.byteCount == download.bytes else {
                throw NowETLError(
                    .damagedSpill, path: download.path,
                    "the download of attachment \(attachment.sysID) changed on disk since it finished; run again")
            }
            try stage(file, path: path, format: "attachment", rows: 0, bytes: download.bytes)
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

extension AttachmentMetadata {
    /// The metadata as the attachments file writes it: the listed keys that were answered.
    var lineValues: [String: Any] {
        let values: [String: String?] = [
            "sys_id": sysId, "table_name": tableName, "table_sys_id": tableSysId, "file_name": fileName,
            "content_type": contentType, "sys_created_on": sysCreatedOn, "sys_created_by": sysCreatedBy,
            "sys_updated_on": sysUpdatedOn,
        ]
        return values.compactMapValues { $0 }
    }
}
