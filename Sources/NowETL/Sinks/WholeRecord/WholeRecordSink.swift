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
    /// An incremental run's window (the plan's, extended by a catch-up).
    private var window: IncrementalWindow?
    private var context: SinkContext?
    private var ids: UnsafeMutablePointer<FILE>?
    /// Staged files not yet handed to the run's commit (removed by ``abort()``).
    private var staged: [StagedFile] = []
    private var artifacts: [Artifact] = []
    /// What was exported once prepared: attachments and their bytes, journal entries, audit rows (of
    /// the files, or of the first instance output without files).
    private(set) var counts = TableCounts()

    init(_ setup: Setup) {
        self.setup = setup
        window = setup.plan.incremental
    }

    /// Moves the window's upper bound to `signpost`: a resumed run that caught up to its own signpost
    /// exports the related rows up to there, as its next state starts after it.
    func extend(to signpost: String) {
        guard var extended = window else { return }
        extended.signpost = max(extended.signpost, signpost)
        window = extended
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
        counts = TableCounts()
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
                let copied = try await WholeRecordMigration(setup: setup, options: target, window: window).run(
                    chunks: forEachChunk)
                if setup.files == nil, target == setup.targets.first { counts.add(copied) }
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

    /// The condition that selects a related row by its date-time `field` for an incremental run
    /// (``IncrementalWindow/relatedCondition(on:)``), `""` for a full export.
    private func windowCondition(_ field: String) -> String {
        window?.relatedCondition(on: field) ?? ""
    }

    /// The file of `kind` (`journal`, `audit`, `attachments`): `<table>.<kind>.jsonl`, or
    /// `<table>-<run id>.<kind>.jsonl` for an incremental run.
    private func fileName(_ kind: String, context: SinkContext) -> String {
        window == nil ? "\(table).\(kind).jsonl" : "\(table)-\(context.runID).\(kind).jsonl"
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
        let reader = reader(kind.and(windowCondition("sys_created_on")))
        try await writeFile(fileName(kind.name, context: context), into: files) { file in
            var rows = 0
            try await forEachChunk { records in
                try await reader.forEachRow(of: records) { values in
                    try Self.writeLine(values, to: file)
                    rows += 1
                }
            }
            counts[kind.counter] += rows
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
            // The lines of what was read, then what is left of the last one moves to the front once.
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                chunk.append(String(decoding: pending[start..<newline], as: UTF8.self))
                start = newline + 1
                if chunk.count == RelatedRows.recordsPerQuery {
                    try await body(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            pending.removeFirst(start)
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

    /// Lists the attachments to export, takes those `selection` accepts, downloads each (or reuses its
    /// finished download) and stages it with the metadata file.
    ///
    /// A full run lists the attachments of the exported records (100 records to a query). An
    /// incremental run lists the table's attachments updated inside its window — adding an attachment
    /// does not update its record, so a record the window does not hold may have a new one — and keeps
    /// those whose record the table's filter takes (asked of the instance, 100 records to a query).
    private func writeAttachments(
        _ selection: AttachmentSelection, into files: (directory: String, mode: mode_t), context: SinkContext
    ) async throws {
        var downloads = try AttachmentDownloads(directory: setup.journalDirectory)
        let service = NowAttachmentService(sharing: setup.service)
        let table = RelatedKind.attachments(of: self.table)
        try await writeFile(fileName("attachments", context: context), into: files) { metadata in
            var rows = 0
            /// Downloads, stages and describes `attachment` when the selection takes it.
            func export(_ attachment: CheckedAttachment, _ listed: AttachmentMetadata) async throws {
                guard selection.accepts(contentType: attachment.contentType, bytes: attachment.bytes) else { return }
                let done = try await downloads.fetch(attachment.sysID, bytes: attachment.bytes) { stream in
                    try await self.setup.limiter.withSlot(
                        table: self.table, during: "downloading attachment \(attachment.sysID)"
                    ) {
                        _ = try await service.download(sysID: attachment.sysID, into: stream)
                    }
                }
                var line = listed.lineValues
                line["bytes"] = done.bytes
                line["sha256"] = done.sha256
                line["path"] = try stageAttachment(attachment, download: done, into: files)
                try Self.writeLine(line, to: metadata)
                rows += 1
                counts[.attachments] += 1
                counts[.attachmentBytes] += done.bytes
            }
            if window == nil {
                try await forEachChunk { records in
                    let asked = Set(records)
                    try await listAttachments(
                        service, table.and("table_sys_idIN\(records.joined(separator: ","))").condition, byRecord: true
                    ) { listed, attachment in
                        guard asked.contains(attachment.record) else { throw unaskedRecord(attachment) }
                        try await export(attachment, listed)
                    }
                }
            } else {
                let updated = table.and(windowCondition("sys_updated_on")).condition
                try await listAttachments(service, updated, byRecord: false) { page in
                    try await setup.recordsInFilter(Set(page.map(\.1.record)))
                } each: { listed, attachment, taken in
                    if taken.contains(attachment.record) { try await export(attachment, listed) }
                }
            }
            return rows
        }
    }

    /// Calls `body` with every attachment the Attachment API lists for `condition`, checked: grouped by
    /// record (`byRecord`: the records' order, then each record's attachments, a keyset on both as
    /// ``RelatedRows`` pages), or in sys_id order; keyset pages of the plan's page size.
    private func listAttachments(
        _ service: NowAttachmentService, _ condition: String, byRecord: Bool,
        _ body: (AttachmentMetadata, CheckedAttachment) async throws -> Void
    ) async throws {
        try await listAttachments(service, condition, byRecord: byRecord) { _ in
            []
        } each: { listed, attachment, _ in
            try await body(listed, attachment)
        }
    }

    /// As ``listAttachments(_:_:byRecord:_:)``, with `prepare` called once per page before `body` sees
    /// its attachments, and its answer handed to `body`.
    private func listAttachments(
        _ service: NowAttachmentService, _ condition: String, byRecord: Bool,
        _ prepare: ([(AttachmentMetadata, CheckedAttachment)]) async throws -> Set<String>,
        each body: (AttachmentMetadata, CheckedAttachment, Set<String>) async throws -> Void
    ) async throws {
        var after: (record: String, sysID: String)?
        while true {
            try Task.checkCancellation()
            var query = condition
            if let after {
                query +=
                    byRecord
                    ? "^table_sys_id>=\(after.record)^table_sys_id>\(after.record)^ORsys_id>\(after.sysID)"
                    : "^sys_id>\(after.sysID)"
            }
            query += byRecord ? "^ORDERBYtable_sys_id^ORDERBYsys_id" : "^ORDERBYsys_id"
            let listed = try await setup.limiter.withSlot(table: table, during: "listing attachments") {
                try await service.attachments(query: query, limit: setup.plan.pageSize).attachments
            }
            var page: [(AttachmentMetadata, CheckedAttachment)] = []
            for item in listed {
                let attachment = try checked(item)
                let follows =
                    after.map {
                        byRecord
                            ? (attachment.record, attachment.sysID) > ($0.record, $0.sysID)
                            : attachment.sysID > $0.sysID
                    } ?? true
                guard follows else {
                    throw NowETLError(
                        .failed, table: table,
                        "the Attachment API answered attachment \(attachment.sysID) out of order: it does not follow "
                            + "the previous one, so the pages would not end")
                }
                after = (attachment.record, attachment.sysID)
                page.append((item, attachment))
            }
            let prepared = try await prepare(page)
            for (item, attachment) in page { try await body(item, attachment, prepared) }
            if listed.count < setup.plan.pageSize { return }
        }
    }

    /// The error for an attachment listed for a record that was not asked for.
    private func unaskedRecord(_ attachment: CheckedAttachment) -> NowETLError {
        NowETLError(
            .failed, table: table,
            "the Attachment API answered attachment \(attachment.sysID) of record \(attachment.record), which was not "
                + "asked for")
    }

    /// A listed attachment, checked before any of it is used: its sys_id and record can name a folder,
    /// the size is a size.
    private func checked(_ listed: AttachmentMetadata) throws -> CheckedAttachment {
        let sysID = listed.sysId ?? ""
        let record = listed.tableSysId ?? ""
        guard Self.isPathSafe(sysID), Self.isPathSafe(record) else {
            throw NowETLError(
                .failed, table: table,
                "the Attachment API answered an attachment whose sys_id or table_sys_id cannot name a folder (no "
                    + "sys_id, or starting with a dot)")
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

    /// What of a listed attachment names files and decides its selection, checked (``checked(_:)``).
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

extension WholeRecordSink.Setup {
    /// Of `records`, those the table's filter takes (`sys_idIN…^<filter>`, 100 to a query); a value
    /// that is no sys_id is never sent, and never taken.
    func recordsInFilter(_ records: Set<String>) async throws -> Set<String> {
        var taken: Set<String> = []
        let sorted = records.filter { SysIDRule.accepts($0) }.sorted()
        for start in stride(from: 0, to: sorted.count, by: RelatedRows.recordsPerQuery) {
            let chunk = sorted[start..<min(sorted.count, start + RelatedRows.recordsPerQuery)]
            // AND-ed into every group of the filter (`^NQ` included), as a run ANDs its window.
            let query = table.query.and([
                EncodedQuery.Term(conditions: [
                    EncodedQuery.Condition(field: "sys_id", op: .isIn, value: .list(Array(chunk)))
                ])
            ]).description
            let body = try await limiter.withSlot(table: table.table, during: "checking the attachments' records") {
                try await service.records(
                    from: table.table,
                    configuration: FetchConfiguration(
                        filter: Filter(query: query), limit: chunk.count,
                        readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"], options: [.actualValues])))
            }
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            guard let rows = object?["result"] as? [[String: Any]] else {
                throw NowETLError(.failed, table: table.table, "the answer is not a list of records")
            }
            for row in rows { if let sysID = row["sys_id"] as? String, chunk.contains(sysID) { taken.insert(sysID) } }
        }
        return taken
    }
}
