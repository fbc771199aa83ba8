import Foundation
import NowData

/// Reads the rows of a system table that belong to a set of records — `sys_journal_field` entries by
/// `element_id`, `sys_audit` rows by `documentkey` — 100 records to a query, each query paged by
/// keyset on `sys_id` (`…^sys_id>L^ORDERBYsys_id`), so the rows come in one fixed order: the records'
/// order (sys_id), then each group's rows by their own sys_id.
///
/// Every request waits for a slot of the run's ``RequestLimiter``. What the instance answers is checked
/// where it enters: every row's `sys_id` keeps to ``SysIDRule`` and must move the keyset cursor, and
/// the key field must name one of the records asked for.
struct RelatedRows {
    /// The system table read (`sys_journal_field`, `sys_audit`).
    let table: String
    /// The field naming the record (`element_id`, `documentkey`).
    let keyField: String
    /// Conditions AND-ed to every query (`name=incident^elementINwork_notes,comments`).
    let condition: String
    /// The fields read; `nil` for every field the instance answers (a copy into another instance).
    let fields: [String]?
    /// The exported table, for messages.
    let exportedTable: String
    let service: NowTableService
    let limiter: RequestLimiter
    /// Rows per page.
    var pageSize: Int

    /// Records to a query: 100 sys_ids of 32 characters keep the URL near 3.5 KB.
    static let recordsPerQuery = 100

    /// Calls `row` for every row of `records` (at most ``recordsPerQuery`` sys_ids), in sys_id order.
    ///
    /// - Throws: ``NowETLError`` naming the exported table; `CancellationError`.
    func forEachRow(of records: [String], _ row: ([String: String]) throws -> Void) async throws {
        try await forEachPage(of: records) { page in
            for values in page { try row(values) }
        }
    }

    /// Calls `body` with every page of rows of `records`, in sys_id order: what a caller that writes
    /// as it reads awaits between pages, so no more than one page is held.
    ///
    /// - Throws: ``NowETLError`` naming the exported table; `CancellationError`.
    func forEachPage(of records: [String], _ body: ([[String: String]]) async throws -> Void) async throws {
        guard !records.isEmpty else { return }
        let asked = Set(records)
        var after: String?
        while true {
            try Task.checkCancellation()
            var query = "\(keyField)IN\(records.joined(separator: ","))"
            if !condition.isEmpty { query += "^" + condition }
            if let after { query += "^sys_id>\(after)" }
            query += "^ORDERBYsys_id"
            let configuration = FetchConfiguration(
                filter: Filter(query: query), limit: pageSize,
                readConfiguration: FieldReadConfiguration(
                    includeFields: fields ?? [], options: [.actualValues, .excludeReferenceLink]))
            let rows = try decode(try await fetch(configuration))
            for values in rows {
                guard let sysID = values["sys_id"], SysIDRule.accepts(sysID), after.map({ sysID > $0 }) ?? true else {
                    throw NowETLError(
                        .failed, table: exportedTable,
                        "\(table) answered a row whose sys_id '\(PrintableText.escaped(String((values["sys_id"] ?? "").prefix(40))))' "
                            + "is no sys_id or does not follow the previous one (sys_id order)")
                }
                guard let key = values[keyField], asked.contains(key) else {
                    throw NowETLError(
                        .failed, table: exportedTable,
                        "\(table) row \(sysID) names a record in \(keyField) that was not asked for")
                }
                after = sysID
            }
            try await body(rows)
            if rows.count < pageSize { return }
        }
    }

    /// One page, holding a slot of the limiter while it is in flight.
    private func fetch(_ configuration: FetchConfiguration) async throws -> Data {
        try await limiter.acquire()
        do {
            let body = try await service.records(from: table, configuration: configuration)
            limiter.release(.healthy)
            return body
        } catch {
            let failure = NowETLError(table: exportedTable, during: "reading \(table)", error)
            limiter.release(failure.limiterOutcome)
            throw failure
        }
    }

    /// The rows of a `{"result": [...]}` body, each value as text (a missing field reads `""`).
    private func decode(_ body: Data) throws -> [[String: String]] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let result = object["result"] as? [[String: Any]]
        else {
            throw NowETLError(.failed, table: exportedTable, "\(table) answered a body that is not a list of records")
        }
        return result.map { record in
            var values: [String: String] = [:]
            for field in fields ?? Array(record.keys) {
                switch record[field] {
                case let text as String: values[field] = text
                case let number as NSNumber: values[field] = number.stringValue
                default: values[field] = ""
                }
            }
            return values
        }
    }
}
