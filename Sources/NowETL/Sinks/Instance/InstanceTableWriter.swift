import Foundation
import NowData
import Synchronization

/// The requests an ``InstanceSink`` sends to one table of the target instance: the access check, the
/// existence lookups and the writes of single records — immutable but for an atomic request count,
/// so the sink's concurrent tasks share it.
///
/// Every write carries `sysparm_suppress_auto_sys_field=true` and the record's stored values, its
/// `sys_id` and system fields included, so the target keeps them as the source has them (ref §2.4).
/// Retries are NowData's, with the target's `retry:` settings (429 with `Retry-After`, 502–504,
/// timeouts) — POSTs included: a POST carries its sys_id, so a retry of one that had reached the
/// target is refused as a duplicate instead of creating a second record, and ``insert(_:)`` then finds
/// the record and writes it with a PUT. A cancelled transaction (which NowData leaves to the caller,
/// as a reader lowers its page size) is retried here, with the policy's backoff and attempts.
final class InstanceTableWriter: Sendable {
    /// A record to write: its sys_id and every field's stored value (empty for none).
    struct Record: Sendable {
        /// The record's sys_id.
        var sysID: String
        /// Field name → stored value, `sys_id` and the system fields included.
        var fields: [FieldName: FieldValue]
    }

    /// What a write did.
    enum Outcome: Sendable {
        /// POSTed.
        case inserted
        /// PUT over the target's record.
        case updated
        /// Found on the target after a refused POST, and left alone (`insert_only`).
        case skippedExisting
    }

    /// The target table service.
    let service: NowTableService
    /// The table.
    let table: String
    /// The target's base URL, for messages (it never holds credentials).
    let target: String
    /// The `rate_per_second` ceiling, when set.
    let rateLimiter: TargetRateLimiter?
    /// `upsert` or `insert_only`.
    let mode: InstanceWriteMode
    /// Requests sent (lookups and writes; NowData's retries not counted).
    let requests = Atomic<Int>(0)

    /// Creates a writer for `table` of the target.
    init(
        service: NowTableService, table: String, target: String, rateLimiter: TargetRateLimiter?,
        mode: InstanceWriteMode = .upsert
    ) {
        self.service = service
        self.table = table
        self.target = target
        self.rateLimiter = rateLimiter
        self.mode = mode
    }

    /// Fails with exit 77 when the target refuses to show the table (401, or 403 on a read): one
    /// `GET ?sysparm_limit=1&sysparm_fields=sys_id` before anything is written.
    func checkAccess() async throws {
        let configuration = FetchConfiguration(
            limit: 1, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"]))
        _ = try await records(
            configuration, in: table, or: "cannot read table \(table) of the target \(target) (checked before writing)")
    }

    /// The sys_ids of `sysIDs` the target has in `table` (this writer's by default): one
    /// `GET ?sysparm_query=sys_idIN…&sysparm_fields=sys_id`. The sys_ids must keep to ``SysIDRule``.
    func existing(_ sysIDs: [String], in table: String? = nil) async throws -> Set<String> {
        let table = table ?? self.table
        let configuration = FetchConfiguration(
            filter: Filter(query: "sys_idIN" + sysIDs.joined(separator: ",")), limit: sysIDs.count,
            readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"]))
        let data = try await records(
            configuration, in: table,
            or: "cannot look up \(sysIDs.count) sys_ids in table \(table) of the target \(target)")
        guard let result = Self.resultList(data) else {
            throw NowETLError(
                .instance, path: target + "/api/now/table/" + table,
                "the target \(target) answered the lookup in table \(table) without a result list")
        }
        return Set(result.compactMap { $0["sys_id"] as? String })
    }

    /// Every record of the table on the target with its stored values of `fields` (text; empty for
    /// none): a keyset scan (`sys_id>last^ORDERBYsys_id`, `pageSize` a page). Each sys_id must keep to
    /// ``SysIDRule``, a record seen before is passed over, and a full page that brings no new record
    /// is an error — a target that answers the same page again cannot hold the scan in a loop.
    ///
    /// - Throws: ``NowETLError`` for a failed request or an answer that breaks those rules.
    func scan(fields: [String], pageSize: Int = 1000) async throws -> [(sysID: String, values: [String])] {
        var found: [(sysID: String, values: [String])] = []
        var seen: Set<String> = []
        var after: String?
        while true {
            let query = (after.map { "sys_id>" + $0 + "^" } ?? "") + "ORDERBYsys_id"
            let configuration = FetchConfiguration(
                filter: Filter(query: query), limit: pageSize,
                readConfiguration: FieldReadConfiguration(
                    includeFields: ["sys_id"] + fields, options: [.actualValues, .excludeReferenceLink]))
            let data = try await records(
                configuration, in: table,
                or: "cannot read the keys (\(fields.joined(separator: ", "))) of table \(table) of the target \(target)"
            )
            guard let result = Self.resultList(data) else {
                throw NowETLError(
                    .instance, path: path,
                    "the target \(target) answered a page of table \(table) without a result list")
            }
            var new = 0
            for object in result {
                guard let sysID = object["sys_id"] as? String, SysIDRule.problem(sysID) == nil else {
                    throw NowETLError(
                        .instance, path: path,
                        "the target \(target) answered the scan of table \(table) with a record whose sys_id is "
                            + "missing or not one by the rule")
                }
                after = sysID
                guard seen.insert(sysID).inserted else { continue }
                new += 1
                let values = fields.map { field -> String in
                    switch object[field] {
                    case let text as String: text
                    case let reference as [String: Any]: reference["value"] as? String ?? ""
                    default: ""
                    }
                }
                found.append((sysID, values))
            }
            if result.count < pageSize { return found }
            guard new > 0 else {
                throw NowETLError(
                    .instance, path: path,
                    "the target \(target) answered the scan of table \(table) after \(after ?? "") with records "
                        + "it had sent already")
            }
        }
    }

    /// The `result` list of a Table API answer, `nil` when it has none.
    private static func resultList(_ data: Data) -> [[String: Any]]? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["result"] as? [[String: Any]]
    }

    /// POSTs `record` with its sys_id (again after a backoff when the target cancels the transaction);
    /// when the POST fails (a duplicate after a retried POST that had reached the target, or an answer
    /// lost on the way) and the target turns out to have the record, PUTs it instead — or, in
    /// `insert_only`, leaves it alone.
    ///
    /// The answer must carry the record's own sys_id: a target that stored it under another (it does
    /// not let this user set sys_id and system fields) would get a new copy on every run.
    ///
    /// - Throws: ``NowETLError`` naming the table, the sys_id and the target's message: exit 77 for a
    ///   refused permission, 75 after the retries of a transient failure, 69 for an unreachable target;
    ///   `CancellationError` when the task is cancelled (as every method here).
    func insert(_ record: Record) async throws -> Outcome {
        let answer: Data
        do {
            answer = try await retryingCancelledTransactions {
                try await service.createRecord(
                    with: record.fields, in: table, writeOptions: .suppressAutoSysField,
                    configuration: FieldReadConfiguration(includeFields: ["sys_id"]))
            }
        } catch let error as NowDataError {
            if case .badResponse(401, _) = error {
                throw failure(error, "the target \(target) refused the credentials inserting into table \(table)")
            }
            let found: Set<String>
            do {
                found = try await existing([record.sysID])
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw failure(error, "the target \(target) refused record \(record.sysID) of table \(table)")
            }
            guard found.contains(record.sysID) else {
                throw failure(error, "the target \(target) refused record \(record.sysID) of table \(table)")
            }
            if mode == .insertOnly { return .skippedExisting }
            try await update(record)
            return .updated
        }
        try checkKept(record, answer: answer)
        return .inserted
    }

    /// Fails (exit 77) unless the target's `answer` to an insert names the record's own sys_id.
    func checkKept(_ record: Record, answer: Data) throws(NowETLError) {
        let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any]
        let stored = (object?["result"] as? [String: Any])?["sys_id"] as? String
        guard let stored, stored != record.sysID else { return }
        throw NowETLError(
            .authentication, path: path,
            "the target \(target) stored record \(record.sysID) of table \(table) under another sys_id, \(stored): it "
                + "does not let this user set sys_id and system fields (with glide.rest.table_api.admin_only_sys_fields "
                + "on, only an admin may); nothing more is written, and the record \(stored) it made should be deleted")
    }

    /// PUTs every field of `record` over the target's record of the same sys_id.
    ///
    /// - Throws: ``NowETLError`` naming the table, the sys_id and the target's message.
    func update(_ record: Record) async throws {
        do {
            _ = try await retryingCancelledTransactions {
                try await service.updateRecord(
                    sysId: record.sysID, in: table, with: record.fields, writeOptions: .suppressAutoSysField,
                    configuration: FieldReadConfiguration(includeFields: ["sys_id"]))
            }
        } catch let error as NowDataError {
            throw failure(error, "the target \(target) refused the update of record \(record.sysID) of table \(table)")
        }
    }

    /// DELETEs the target's record `sysID`; `false` when the target no longer has it (404).
    ///
    /// - Throws: ``NowETLError`` naming the table, the sys_id and the target's message.
    func delete(_ sysID: String) async throws -> Bool {
        do {
            try await retryingCancelledTransactions { try await service.deleteRecord(sysId: sysID, from: table) }
            return true
        } catch NowDataError.badResponse(404, _) {
            return false
        } catch let error as NowDataError {
            throw failure(error, "the target \(target) refused to delete record \(sysID) of table \(table)")
        }
    }

    /// Writes `work` — each record POSTed, or PUT when the target `exists` has it — in one Batch API
    /// call (`/api/now/v1/batch`), and returns what each write did, in order.
    ///
    /// Items the target did not service are sent again in another call (up to the retry policy's
    /// attempts). An item answered with anything but 200/201, and every item of a call that failed as a
    /// whole, goes through the single-request path (``insert(_:)`` or ``update(_:)``), which retries,
    /// resolves a duplicate POST and reports a refused record with its sys_id and the target's message.
    func writeInBatch(_ work: [(record: Record, exists: Bool)]) async throws -> [Outcome] {
        var outcomes = [Outcome?](repeating: nil, count: work.count)
        var pending = Array(work.indices)
        var single: [Int] = []
        let attempts = service.configuration.retryPolicy.maximumAttempts
        var attempt = 0
        while !pending.isEmpty, attempt < attempts {
            attempt += 1
            var items: [BatchRequestItem] = []
            for index in pending {
                let (record, exists) = work[index]
                items.append(
                    try Self.item(
                        service, table: table, id: String(index), record: record, exists: exists))
            }
            let response: BatchResponse
            do {
                try await pace(count: items.count)
                response = try await service.batch(items)
            } catch let error as NowDataError {
                if case .badResponse(401, _) = error {
                    throw failure(error, "the target \(target) refused the credentials for a batch of table \(table)")
                }
                break
            }
            var answered: Set<Int> = []
            for item in response.serviced {
                guard let index = Int(item.id), pending.contains(index) else { continue }
                answered.insert(index)
                if item.statusCode == 200 || item.statusCode == 201 {
                    if !work[index].exists { try checkKept(work[index].record, answer: item.body) }
                    outcomes[index] = work[index].exists ? .updated : .inserted
                } else {
                    single.append(index)
                }
            }
            pending = pending.filter { !answered.contains($0) }
        }
        single += pending
        for index in single.sorted() {
            let (record, exists) = work[index]
            if exists {
                try await update(record)
                outcomes[index] = .updated
            } else {
                outcomes[index] = try await insert(record)
            }
        }
        return outcomes.map { $0 ?? .inserted }
    }

    private static func item(
        _ service: NowTableService, table: String, id: String, record: Record, exists: Bool
    ) throws -> BatchRequestItem {
        try service.batchWriteItem(
            id: id, table: table, sysId: exists ? record.sysID : nil, fields: record.fields,
            writeOptions: .suppressAutoSysField, configuration: FieldReadConfiguration(includeFields: ["sys_id"]))
    }

    /// The table's URL on the target, the ``NowETLError/Context/path`` of every error.
    var path: String { target + "/api/now/table/" + table }

    /// The table's records as `configuration` selects them (a read of sys_ids); a failure is the
    /// ``NowETLError`` of `failure(_:_:)` with `message`.
    private func records(
        _ configuration: FetchConfiguration, in table: String, or message: @autoclosure () -> String
    ) async throws -> Data {
        do {
            return try await retryingCancelledTransactions {
                try await service.records(from: table, configuration: configuration)
            }
        } catch let error as NowDataError {
            throw failure(error, message())
        }
    }

    /// `body`, paced (``pace(count:)``), again after a backoff when the target cancels its transaction,
    /// up to the retry policy's attempts; the last cancellation is thrown.
    private func retryingCancelledTransactions<Value>(_ body: () async throws -> Value) async throws -> Value {
        let policy = service.configuration.retryPolicy
        var attempt = 1
        while true {
            do {
                try await pace()
                return try await body()
            } catch NowDataError.transactionCancelled(let context) {
                guard attempt < policy.maximumAttempts else { throw NowDataError.transactionCancelled(context) }
                let delay = policy.backoff(beforeRetry: attempt, unitRandom: Double.random(in: 0..<1))
                try await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded())))
                attempt += 1
            }
        }
    }

    private func pace(count: Int = 1) async throws {
        requests.add(1, ordering: .relaxed)
        try await rateLimiter?.acquire(count: count)
    }

    /// A ``NowETLError`` for a failed request, with the exit code its classification calls for — but
    /// a write the target answers `403 Operation Failed` with a detail other than an ACL's ("ACL
    /// Exception … due to security constraints") is refused by the record's content (a unique index:
    /// "Error during insert of sys_user (…)", a business rule, a data policy), not by a missing
    /// permission: exit 1, with a hint, rather than 77.
    private func failure(_ error: any Error, _ what: String) -> NowETLError {
        if case .badResponse(403, let context)? = error as? NowDataError, context.message == "Operation Failed",
            !(context.detail ?? "").contains("ACL"), !(context.detail ?? "").contains("security constraints")
        {
            return NowETLError(
                .instance, path: path,
                what + " (the target's unique index, a business rule or a data policy refused it; a record the "
                    + "target has under another sys_id is matched with coalesce:)", cause: error)
        }
        let code = (error as? NowDataError).map { NowETLError.Code($0, otherwise: .instance) } ?? .instance
        return NowETLError(code, path: path, what, cause: error)
    }
}
