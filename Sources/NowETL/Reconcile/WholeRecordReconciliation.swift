import Foundation
import NowData

/// What reconciling a table's whole records found (``WholeRecordReconciliation``): per kind — the
/// attachments, the journal entries — the counts of both sides and the differences, listed up to
/// ``TableReconciliation/Limits/listedSysIDs``.
public struct WholeRecordComparison: Sendable, Hashable, Codable {
    /// One kind's counts.
    public struct Counts: Sendable, Hashable, Codable {
        /// Rows of the source's records, and of their counterparts on the target.
        public var source = 0
        public var target = 0
        /// Equal on both sides.
        public var matching = 0
        /// On the source only.
        public var missing = 0
        /// On the target only (of the compared records).
        public var extra = 0
        /// On both, with another value.
        public var differing = 0

        /// No difference.
        public var isEqual: Bool { missing == 0 && extra == 0 && differing == 0 }
    }

    /// One difference.
    public struct Difference: Sendable, Hashable, Codable {
        /// `attachment` or `journal`.
        public var kind: String
        /// The attachment's or the journal entry's sys_id.
        public var sysID: String
        /// The source record it belongs to.
        public var record: String
        /// `missing on the target`, `extra on the target`, or `differs in …` naming the fields
        /// (`content` for an attachment's bytes).
        public var problem: String

        enum CodingKeys: String, CodingKey {
            case kind
            case sysID = "sys_id"
            case record, problem
        }
    }

    /// The attachments (metadata and the SHA-256 of their bytes).
    public var attachments: Counts?
    /// The journal entries of the table's `journal:` fields.
    public var journal: Counts?
    /// The first differences, in record order.
    public var differences: [Difference] = []

    /// No difference in any kind compared.
    public var isEqual: Bool { (attachments?.isEqual ?? true) && (journal?.isEqual ?? true) }
}

/// Compares what travels with a table's records (``WholeRecordConfiguration``) between the source and
/// a target: for every source record of the table's filter and its counterpart on the target (the
/// same sys_id, or the map's record of a coalesced table), its attachments — matched by sys_id,
/// compared on name, content type, size, record and the SHA-256 of the bytes, both sides downloaded
/// (hashed as they stream, never stored) — and the entries of its journal fields — matched by sys_id,
/// compared on field, text, author and time. Audit rows are not compared: the target writes audit
/// rows of its own for the migration's writes.
///
/// The records come 100 to a query (``RelatedRows``), one request at a time per side through each
/// side's limiter.
struct WholeRecordReconciliation {
    let table: String
    let filter: EncodedQuery
    let selection: WholeRecordConfiguration
    let maps: ReconcileMaps?
    let limits: TableReconciliation.Limits

    /// Compares both sides.
    ///
    /// - Throws: ``NowETLError`` naming the table and the side; `CancellationError`.
    func run(source: NowTableService, target: NowTableService, pageSize: Int) async throws -> WholeRecordComparison {
        var result = WholeRecordComparison()
        if selection.attachments != nil { result.attachments = WholeRecordComparison.Counts() }
        if !selection.journal.isEmpty { result.journal = WholeRecordComparison.Counts() }
        let limiters = (RequestLimiter(maximum: 1), RequestLimiter(maximum: 1))
        // The source's records of the filter, sys_id only, by NowData's keyset paginator (which refuses
        // a cursor that does not move).
        let pages = source.paginator(
            from: table,
            configuration: FetchConfiguration(
                filter: filter == EncodedQuery() ? nil : Filter(encodedQuery: filter), limit: pageSize,
                readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"], options: [.actualValues])),
            strategy: .keyset())
        while pages.hasNext {
            let records = try await sourceRecords(pages, limiter: limiters.0)
            for start in stride(from: 0, to: records.count, by: RelatedRows.recordsPerQuery) {
                let chunk = Array(records[start..<min(records.count, start + RelatedRows.recordsPerQuery)])
                try await compare(chunk, source: source, target: target, limiters: limiters, into: &result)
            }
        }
        return result
    }

    /// The target's record of source record `record` (the map's, for a coalesced table).
    private func targetRecord(_ record: String) -> String? {
        guard let maps, maps.keys(of: table) != nil else { return record }
        return maps.mapped(record, in: table)
    }

    /// The sys_ids of the next page of `pages`, each keeping to ``SysIDRule`` (they go into queries).
    private func sourceRecords(_ pages: Paginator<Data>, limiter: RequestLimiter) async throws -> [String] {
        let body: Data
        do {
            body = try await limiter.withSlot(table: table, during: "source: reading the records' sys_ids") {
                try await pages.next()
            }
        } catch let error as PaginationError {
            throw NowETLError(table: table, during: "source: reading the records' sys_ids", paging: error)
        }
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        guard let rows = object?["result"] as? [[String: Any]] else {
            throw NowETLError(.failed, table: table, "source: the answer is not a list of records")
        }
        return try rows.map { row in
            let sysID = row["sys_id"] as? String ?? ""
            guard SysIDRule.accepts(sysID) else {
                throw NowETLError(
                    .failed, table: table,
                    "source: record '\(PrintableText.escaped(String(sysID.prefix(40))))' is no sys_id")
            }
            return sysID
        }
    }

    private func compare(
        _ records: [String], source: NowTableService, target: NowTableService,
        limiters: (RequestLimiter, RequestLimiter), into result: inout WholeRecordComparison
    ) async throws {
        var owner: [String: String] = [:]  // the target record → the source record
        for record in records { if let mapped = targetRecord(record) { owner[mapped] = record } }
        let sides = [
            Side(role: "source", service: source, limiter: limiters.0, records: records),
            Side(role: "target", service: target, limiter: limiters.1, records: Array(owner.keys).sorted()),
        ]
        if !selection.journal.isEmpty, var counts = result.journal {
            let kind = RelatedKind.journal(of: table, elements: selection.journal)
            let rows = try await sides.asyncMap { try await self.rows(kind, on: $0) }
            compareRows(
                kind: "journal", rows[0], rows[1], key: kind.keyField, owner: owner,
                fields: ["element", "value", "sys_created_on", "sys_created_by"], counts: &counts, into: &result)
            result.journal = counts
        }
        if let chosen = selection.attachments, var counts = result.attachments {
            let kind = RelatedKind.attachments(of: table)
            var rows = try await sides.asyncMap { side in
                try await self.rows(kind, on: side).filter {
                    chosen.accepts(
                        contentType: $0.value["content_type"] ?? "", bytes: Int($0.value["size_bytes"] ?? "") ?? 0)
                }
            }
            // The bytes of the attachments on both sides, as a digest field compared like the others.
            for sysID in Set(rows[0].keys).intersection(rows[1].keys).sorted() {
                for index in sides.indices {
                    rows[index][sysID]?["content"] = try await digest(sysID, on: sides[index])
                }
            }
            compareRows(
                kind: "attachment", rows[0], rows[1], key: kind.keyField, owner: owner,
                fields: ["file_name", "content_type", "size_bytes", "content"], counts: &counts, into: &result)
            result.attachments = counts
        }
    }

    /// One instance of the comparison: its client, its limiter and the records compared on it.
    private struct Side {
        var role: String
        var service: NowTableService
        var limiter: RequestLimiter
        var records: [String]
    }

    /// The `kind` rows of `side`'s records, by sys_id.
    private func rows(_ kind: RelatedKind, on side: Side) async throws -> [String: [String: String]] {
        var rows: [String: [String: String]] = [:]
        do {
            try await RelatedRows(
                kind: kind, exportedTable: table, service: side.service, limiter: side.limiter, pageSize: 1000
            ).forEachRow(of: side.records) { values in rows[values["sys_id"] ?? ""] = values }
        } catch let error as NowETLError {
            throw error.labelled(side.role)
        }
        return rows
    }

    /// Counts and lists the differences of one kind: `owner` turns a target row's record into the source's.
    private func compareRows(
        kind: String, _ source: [String: [String: String]], _ target: [String: [String: String]], key: String,
        owner: [String: String], fields: [String], counts: inout WholeRecordComparison.Counts,
        into result: inout WholeRecordComparison
    ) {
        counts.source += source.count
        counts.target += target.count
        func note(_ sysID: String, _ record: String, _ problem: String) {
            guard result.differences.count < limits.listedSysIDs else { return }
            result.differences.append(
                WholeRecordComparison.Difference(kind: kind, sysID: sysID, record: record, problem: problem))
        }
        for (sysID, row) in source.sorted(by: { $0.key < $1.key }) {
            let record = row[key] ?? ""
            guard let other = target[sysID] else {
                counts.missing += 1
                note(sysID, record, "missing on the target")
                continue
            }
            var differing = fields.filter { row[$0] != other[$0] }
            if owner[other[key] ?? ""] != record { differing.append(key) }
            if differing.isEmpty {
                counts.matching += 1
            } else {
                counts.differing += 1
                note(sysID, record, "differs in " + differing.joined(separator: ", "))
            }
        }
        for (sysID, row) in target.sorted(by: { $0.key < $1.key }) where source[sysID] == nil {
            counts.extra += 1
            note(sysID, owner[row[key] ?? ""] ?? "", "extra on the target")
        }
    }

    /// The SHA-256 of attachment `sysID`'s bytes on `side`.
    private func digest(_ sysID: String, on side: Side) async throws -> String {
        let stream = HashingStream()
        do {
            try await side.limiter.withSlot(table: table, during: "downloading attachment \(sysID)") {
                _ = try await NowAttachmentService(sharing: side.service).download(sysID: sysID, into: stream)
            }
        } catch let error as NowETLError {
            throw error.labelled(side.role)
        }
        return stream.digest
    }
}

extension Array {
    /// The results of `transform` over the elements, one after another.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A ``ResponseBodyStream`` that keeps only the SHA-256 of what it is given.
///
/// Safety: the transport calls it from one thread, one call at a time, and the caller reads
/// ``digest`` only after the download returned — `@unchecked Sendable` is sound for that use.
private final class HashingStream: ResponseBodyStream, @unchecked Sendable {
    private var hasher = SHA256()

    func restart() throws { hasher = SHA256() }
    func append(_ bytes: UnsafeRawBufferPointer) throws { hasher.update(bytes) }
    var digest: String { hasher.finalizedCopy.hexString }
}
