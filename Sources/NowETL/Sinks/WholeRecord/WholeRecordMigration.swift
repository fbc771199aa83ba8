import Foundation
import NowData

/// Writes what travels with the migrated records into a target instance, after the records themselves
/// and in the order an instance needs (KB0723022: records, then history, then journal): the
/// `sys_audit` rows, the `sys_journal_field` entries, then the attachments.
///
/// Every row keeps its sys_id and system fields (`sysparm_suppress_auto_sys_field=true`, as the
/// records): a journal entry keeps its author and time, and no second entry is made, since the records
/// are written without their journal fields. An attachment is copied as the instance stores it —
/// its `sys_attachment_doc` chunks first, verbatim, then its `sys_attachment` row — as the instance's
/// own XML import does, so it keeps its sys_id (the Attachment API would make a new one and break what
/// links to it) and appears only once its bytes are all there. The record each row belongs to
/// (`documentkey`, `element_id`, `table_sys_id`) is the target's record of the migrated one: the map
/// of a coalesced table, else the same sys_id; rows of records the migration skipped or kept as the
/// target had them are not written.
///
/// Writes are upserts by sys_id (``InstanceTableWriter``: a lookup, then one Batch API call per group),
/// so a rerun after a crash writes the same rows again without duplicates.
struct WholeRecordMigration {
    /// The source side: the table, its plan, its client and the run's limiter, the run's maps.
    let setup: WholeRecordSink.Setup
    /// The instance output written.
    let options: InstanceSinkOptions
    /// An incremental run's window (``IncrementalWindow/relatedCondition(on:)``); `nil` for a full run.
    let window: IncrementalWindow?

    /// `sys_attachment_doc` rows per page read, each page written before the next is read: about 2 MB
    /// of base64 with chunks of 700 000 bytes, which the answer, its decoding and the Batch API call
    /// each hold a copy of — what a migration holds of an attachment at a time.
    static let chunksPerPage = 2

    /// The target's base URL, for messages and the maps.
    private var target: String { options.connection.instance.absoluteString }
    private var table: String { setup.table.table }
    private var selection: WholeRecordConfiguration { setup.table.wholeRecord }

    /// Writes the related rows of the records `chunks` yields (``RelatedRows/recordsPerQuery`` at a time).
    ///
    /// - Throws: ``NowETLError`` naming the table and the target; `CancellationError`.
    func run(
        chunks: (([String]) async throws -> Void) async throws -> Void
    ) async throws -> TableCounts {
        var configuration = options.connection.serviceConfiguration(maximumConnectionsPerHost: options.concurrency)
        // A POST carries its sys_id: a retry of one that reached the target is refused as a duplicate.
        configuration.retryPolicy.retriesNonIdempotentRequests = true
        let service = NowTableService(configuration: configuration)
        func writer(_ name: String) -> InstanceTableWriter {
            InstanceTableWriter(
                service: service, table: name, target: target,
                rateLimiter: options.ratePerSecond.map { TargetRateLimiter(ratePerSecond: $0) }, mode: .upsert)
        }
        let map = setup.maps.map(target: target, table: table)
        /// The target's record of the source record `record`, `nil` when the migration did not write it.
        func targetRecord(_ record: String) -> String? {
            guard let entry = map?.entries[record] else { return record }
            switch entry.action {
            case .inserted, .updated: return entry.target
            case .kept, .skipped, .deleted: return nil
            }
        }
        var counts = TableCounts()
        let kinds = RelatedKind.rows(of: table, selection).map { ($0, writer($0.table)) }
        let attachments = writer("sys_attachment")
        let documents = writer("sys_attachment_doc")
        let created = window?.relatedCondition(on: "sys_created_on") ?? ""
        try await chunks { records in
            for (kind, writer) in kinds {
                let written = try await copy(related(kind.and(created)), of: records, into: writer, remap: targetRecord)
                counts[kind.counter] += written
            }
            if window == nil, let chosen = selection.attachments {
                var rows: [[String: String]] = []
                try await related(.attachments(of: table)).forEachRow(of: records) { rows.append($0) }
                try await copyAttachments(
                    rows, chosen: chosen, into: attachments, documents: documents, remap: targetRecord, counts: &counts)
            }
        }
        // An incremental run: the table's attachments updated inside the window whose record the filter
        // takes (adding an attachment does not update its record, so the window may not hold it).
        if let window, let chosen = selection.attachments {
            let updated = RelatedKind.attachments(of: table).and(window.relatedCondition(on: "sys_updated_on"))
            try await related(updated).forEachPage(of: nil) { page in
                let taken = try await setup.recordsInFilter(Set(page.compactMap { $0["table_sys_id"] }))
                try await copyAttachments(
                    page.filter { taken.contains($0["table_sys_id"] ?? "") }, chosen: chosen, into: attachments,
                    documents: documents, remap: targetRecord, counts: &counts)
            }
        }
        return counts
    }

    /// A reader of `kind` from the source.
    private func related(_ kind: RelatedKind) -> RelatedRows {
        RelatedRows(
            kind: kind, exportedTable: table, service: setup.service, limiter: setup.limiter,
            pageSize: setup.plan.pageSize)
    }

    /// Copies the rows `reader` reads for `records` into `writer`'s table, the key field remapped;
    /// returns how many were written.
    private func copy(
        _ reader: RelatedRows, of records: [String], into writer: InstanceTableWriter, remap: (String) -> String?
    ) async throws -> Int {
        var written = 0
        try await reader.forEachPage(of: records) { page in
            let pending = page.compactMap { Self.record($0, key: reader.keyField, remap: remap) }
            for start in stride(from: 0, to: pending.count, by: max(1, options.batchSize)) {
                let group = Array(pending[start..<min(pending.count, start + max(1, options.batchSize))])
                try await write(group, with: writer)
                written += group.count
            }
        }
        return written
    }

    /// `values` as a record to write, with `key` remapped; `nil` when its record was not migrated.
    private static func record(_ values: [String: String], key: String, remap: (String) -> String?)
        -> InstanceTableWriter.Record?
    {
        guard let sysID = values["sys_id"], let owner = values[key], let mapped = remap(owner) else { return nil }
        var fields = values.mapValues { FieldValue($0) }
        fields[key] = FieldValue(mapped)
        return InstanceTableWriter.Record(sysID: sysID, fields: fields)
    }

    /// Upserts `records`: one lookup of which the target has, then one Batch API call.
    private func write(_ records: [InstanceTableWriter.Record], with writer: InstanceTableWriter) async throws {
        guard !records.isEmpty else { return }
        let found = try await writer.existing(records.map(\.sysID))
        _ = try await writer.writeInBatch(records.map { ($0, found.contains($0.sysID)) })
    }

    /// Copies the attachments `rows` (their `sys_attachment` rows) that `chosen` takes — each one's
    /// chunks, then its row — and counts them and their bytes in `counts`.
    private func copyAttachments(
        _ attachmentRows: [[String: String]], chosen: AttachmentSelection, into attachments: InstanceTableWriter,
        documents: InstanceTableWriter, remap: (String) -> String?, counts: inout TableCounts
    ) async throws {
        var rows: [(record: InstanceTableWriter.Record, bytes: Int)] = []
        for values in attachmentRows {
            let bytes = Int(values["size_bytes"] ?? "") ?? 0
            guard chosen.accepts(contentType: values["content_type"] ?? "", bytes: bytes),
                let row = Self.record(values, key: "table_sys_id", remap: remap)
            else { continue }
            rows.append((row, bytes))
        }
        for (row, bytes) in rows {
            // The chunks first, a page at a time (each written before the next is read): the attachment
            // appears only once they are all there.
            var reader = related(.chunks)
            reader.pageSize = min(setup.plan.pageSize, Self.chunksPerPage)
            try await reader.forEachPage(of: [row.sysID]) { page in
                try await write(
                    page.compactMap { values in
                        values["sys_id"].map {
                            InstanceTableWriter.Record(sysID: $0, fields: values.mapValues { FieldValue($0) })
                        }
                    }, with: documents)
            }
            try await write([row], with: attachments)
            counts[.attachments] += 1
            counts[.attachmentBytes] += bytes
        }
    }
}
