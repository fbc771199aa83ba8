import Foundation
import NowData

/// Writes the rows of each table into another instance through NowData: insert or update by sys_id,
/// system fields kept — the `instance:` output of a migration.
///
/// What it writes: the schema's ``RowSchema/unloadColumns`` — with an instance output the planner
/// gives every field of the table's dictionary there, read as its stored value (`field.value`),
/// whatever `columns:` says — so the target receives the stored value of every field, `sys_id`,
/// `sys_created_on`, `sys_created_by`, `sys_updated_on`, `sys_updated_by` and `sys_mod_count`
/// included, with `sysparm_suppress_auto_sys_field=true` so the target keeps them. Display values
/// are never written back. (A schema without unload columns — a sink used on its own — writes its
/// columns, which must then be stored values and include `sys_id`.)
///
/// How: rows are collected into groups of ``InstanceSinkOptions/lookupBatchSize`` ×
/// ``InstanceSinkOptions/concurrency``. For each group, one GET per lookup batch asks the target
/// which sys_ids it has (`sys_idIN…`, fields `sys_id`); then the rows it lacks are POSTed with their
/// sys_id and, in ``InstanceWriteMode/upsert``, the ones it has are PUT (the same values again on a
/// rerun: an update that changes nothing, `sys_mod_count` and `sys_updated_on` included); in
/// ``InstanceWriteMode/insertOnly`` those are skipped and counted. The writes go in Batch API calls of
/// ``InstanceSinkOptions/batchSize`` items (`/api/now/v1/batch`, ref §7.2), every item's status
/// checked: unserviced items are sent again, and an item that failed goes through the single-request
/// path (retries, a duplicate POST resolved by a PUT, a refused record reported). Measured against
/// nowsim (a Python client, 800 POSTs): 248 rows/s single vs. 535 in batches of 50 at concurrency 1,
/// 385 vs. 528 at concurrency 4; nowetl's requests for 3,000 incidents fell from about 3,030 to 155.
/// At most `concurrency` requests are in flight, under the `rate_per_second` ceiling
/// (``TargetRateLimiter``), with the target's own connections and retries — independent of the
/// source's.
///
/// A target already in use (``InstanceMatching``): the rows are first collected in a spill file in the
/// table's journal directory, so that everything that must hold before the first write is known
/// before it: the map of a coalesced table (``InstanceKeyMatch``: the target's keys read by a keyset
/// scan, ambiguous keys and unmatched records refused) and the sys_ids of the load's own rows (a
/// reference to a row written later in the load is resolved). Then the rows are written as above, a
/// matched row as an update of the target's record (its `sys_created_on`/`_by` and `sys_mod_count`
/// stay the target's), every reference rewritten by ``InstanceReferenceResolver``. The map goes into
/// the journal before the first write and, staged, to `mapping/<table>.jsonl` at the run's commit
/// (``InstanceTableMap``).
///
/// Resume: after each group is answered the sink appends its sys_ids to the load's progress record
/// (``InstanceLoadProgress``, in the table's run journal directory, keyed by ``SinkContext/loadID``)
/// and `fsync`s it. The rerun of a killed run resumes the same journal, hence the same load id, and
/// sends no request for a row already confirmed.
///
/// Failures: 401 or 403 on the table's access check, before anything is written, is exit 77; a row
/// the target refuses is an error naming the table, the sys_id and the target's message (403: exit
/// 77); transient failures that outlast the retries are exit 75, an unreachable target 69. There is
/// no rollback: what was written stays, and a rerun writes the rest. Credentials never appear in a
/// message (the target URL holds none).
public final class InstanceSink: RecordSink {
    /// The target and how to write to it.
    public let options: InstanceSinkOptions
    /// The maps of the coalesced tables the run wrote before this one.
    private let maps: InstanceMaps

    private var state = State.closed
    private var writer: InstanceTableWriter?
    private var progress: InstanceLoadProgress?
    private var context: SinkContext?
    /// Which cells of a row are written, and under which field names.
    private var cells: [(index: Int, name: String)] = []
    private var sysIDCell = 0
    /// The ``TablePlan/deletedAtColumn`` cell of an incremental table with `deletes: true`.
    private var deletedAtCell: Int?
    private var schema = RowSchema(columns: [])
    private var spill: SpillWriter?
    private var pending: [(source: String, record: InstanceTableWriter.Record)] = []
    private var resolver: InstanceReferenceResolver?
    private var pendingDeletions: [(source: String, target: String)] = []
    /// Source sys_ids whose target record this load deleted (or found gone).
    private var deletedSources: [String] = []
    private var load: InstanceTableLoad?
    /// Rows of the load done in ``prepare()`` (written and confirmed, confirmed by an earlier attempt,
    /// kept or skipped), rows it has to do, and deletions likewise: the ``OutputProgress`` it reports.
    private var done = (rows: 0, total: 0, deletions: 0, deletionsTotal: 0)

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink for the target of `options`; `maps` holds the maps of the coalesced tables the
    /// run wrote before (the engine's, shared by the run's instance sinks).
    public init(options: InstanceSinkOptions, maps: InstanceMaps = InstanceMaps()) {
        self.options = options
        self.maps = maps
    }

    /// The target's base URL, for messages and the artifact.
    private var target: String { options.connection.instance.absoluteString }

    /// Checks the schema, opens the load's progress record and checks that the target shows the table.
    ///
    /// - Throws: ``NowETLError``: `invalidSchema` without a `sys_id` column; exit 77 when the target
    ///   refuses the table (nothing is written then).
    public func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw NowETLError(.misuse, path: target, "open called while table \(self.context?.table ?? "") is open")
        }
        let unload = !schema.unloadColumns.isEmpty
        let columns = unload ? schema.unloadColumns : schema.columns
        let offset = unload ? schema.columns.count : 0
        cells = columns.enumerated().map { (offset + $0.offset, $0.element.name) }
        guard let sysID = cells.first(where: { $0.name == "sys_id" }) else {
            throw NowETLError(
                .invalidSchema, path: target,
                "table \(context.table) has no sys_id column: an instance output writes records by sys_id")
        }
        sysIDCell = sysID.index
        deletedAtCell = unload ? schema.index(of: TablePlan.deletedAtColumn) : nil
        if deletedAtCell != nil, options.matching.deletions == nil {
            throw NowETLError(
                .invalidSchema, path: target,
                "table \(context.table) sends deletion records, and the instance output does not say what they do "
                    + "(deletes: propagate or ignore)")
        }
        var configuration = options.connection.serviceConfiguration(maximumConnectionsPerHost: options.concurrency)
        // A POST carries its sys_id: a retry of one that reached the target is refused as a duplicate.
        configuration.retryPolicy.retriesNonIdempotentRequests = true
        let writer = InstanceTableWriter(
            service: NowTableService(configuration: configuration), table: context.table, target: target,
            rateLimiter: options.ratePerSecond.map { TargetRateLimiter(ratePerSecond: $0) }, mode: options.mode)
        let directory = TableJournal.directory(outputDirectory: options.outputDirectory, table: context.table)
        let name = Self.progressName(target: options.connection.instance)
        if let keys = options.matching.coalesce[context.table],
            let missing = keys.first(where: { key in
                !cells.contains { $0.name == key }
            })
        {
            throw NowETLError(
                .invalidSchema, path: target,
                "table \(context.table): the coalesce key field \(missing) is not a field of the table (per its "
                    + "dictionary); fix coalesce: \(context.table): [\(keys.joined(separator: ", "))]")
        }
        // File I/O with fsync: off the concurrency pool, like every blocking call of the sinks.
        let (progress, spill) = try await BlockingWorker.detached {
            UncheckedBox(
                (
                    try InstanceLoadProgress.open(directory: directory, name: name, loadID: context.loadID),
                    try SpillWriter(path: directory + "/" + Self.fileName(name, suffix: ".rows.spill"))
                ))
        }.value
        try await writer.checkAccess()
        self.writer = writer
        self.progress = progress
        self.spill = spill
        self.schema = schema
        self.context = context
        pending = []
        resolver = nil
        pendingDeletions = []
        deletedSources = []
        load = InstanceTableLoad(instance: target, table: context.table, mode: options.mode, loadID: context.loadID)
        state = .open
    }

    /// Checks the batch's rows and collects them in the load's spill file (nothing is written to the
    /// target before ``prepare()``).
    ///
    /// - Throws: ``NowETLError`` for a row without a usable sys_id or of another class; the caller aborts.
    public func write(_ batch: RowBatch) async throws {
        guard state == .open, let spill else { throw NowETLError(.misuse, path: target, "write without open") }
        let table = context?.table ?? ""
        let classCell = cells.first { $0.name == "sys_class_name" }?.index
        for row in 0..<batch.count {
            if let deleted = deletion(in: batch, row: row) {
                if let problem = SysIDRule.problem(deleted) {
                    throw NowETLError(
                        .invalidSchema, path: target,
                        "table \(table): deletion record \(SysIDRule.escaped(deleted)) cannot be sent to the target: "
                            + "its sys_id \(problem)")
                }
                continue
            }
            guard case .string(let sysID)? = batch[row, sysIDCell], !sysID.isEmpty else {
                throw NowETLError(
                    .invalidSchema, path: target,
                    "table \(table): a row without a sys_id cannot be written to the target")
            }
            // The sys_id goes into the target's URLs and queries: only one by the rule (the extraction
            // rejects the others before they get here; rows from elsewhere are checked all the same).
            if let problem = SysIDRule.problem(sysID) {
                throw NowETLError(
                    .invalidSchema, path: target,
                    "table \(table): record \(SysIDRule.escaped(sysID)) cannot be written to the "
                        + "target: its sys_id \(problem)")
            }
            // A parent table's rows of a child class would be written as the parent's class, without the
            // child's fields: each class is migrated as a table of its own.
            if let classCell, case .string(let recordClass)? = batch[row, classCell], !recordClass.isEmpty,
                recordClass != table
            {
                throw NowETLError(
                    .invalidSchema, path: target,
                    "table \(table): record \(sysID) is of class \(recordClass), and writing it into \(table) would make "
                        + "it a \(table) without its \(recordClass) fields; migrate each class as a table of its own "
                        + "(add \(recordClass) to the pipeline, and filter \(table) with sys_class_name=\(table))")
            }
        }
        let frame = SpillFrame.encode(batch, rejections: [])
        let box = UncheckedBox(spill)
        try await BlockingWorker.detached { try box.value.append(frame) }
    }

    /// Decides the map of a coalesced table, then writes the collected rows, references rewritten;
    /// nothing is left to do at the run's commit but to rename the table's mapping file into place.
    ///
    /// - Throws: ``NowETLError``: `mapping` (before any write) for an ambiguous key, a target record two
    ///   source records match, unmatched records under `on_missing: fail`; `mapping` for an unresolved
    ///   reference under `on_unresolved: fail` (before its group is written); a row the target refuses.
    public func prepare() async throws -> PreparedOutput {
        guard state == .open, let spill, let writer, let context else {
            throw NowETLError(.misuse, path: target, "prepare without open")
        }
        spill.close()
        let reader = SpillReader(path: spill.path)
        let keys = options.matching.coalesce[context.table]
        let keyCells = (keys ?? []).compactMap { key in cells.first { $0.name == key }?.index }
        let resolver = InstanceReferenceResolver(
            table: context.table,
            columns: schema.unloadColumns.compactMap { column in
                column.target.map { .init(name: column.name, target: $0) }
            },
            policy: options.matching.onUnresolved, writer: writer, coalesced: Array(options.matching.coalesce.keys),
            concurrency: options.concurrency,
            mapOf: { [maps, options, target] table throws(NowETLError) in
                guard options.matching.coalesce[table] != nil else { return nil }
                if let map = maps.map(target: target, table: table) { return map }
                return try InstanceMapFiles.committed(outputDirectory: options.outputDirectory, table: table)
            })
        // Pass 1: the load's own sys_ids, a coalesced table's keys, the references to check.
        let referenceCells = cells.filter { resolver.neededFields.contains($0.name) }
        var ownRows = RowIDSet()
        var sources: [InstanceKeyMatch.Source] = []
        try await reader.forEachPage(length: spill.length, schema: schema) { page in
            for row in 0..<page.batch.count {
                guard self.deletion(in: page.batch, row: row) == nil else {
                    self.done.deletionsTotal += 1
                    continue
                }
                self.done.total += 1
                let sysID = Self.storedText(page.batch[row, sysIDCell])
                ownRows.insert(sysID)
                var references: [FieldName: FieldValue] = [:]
                for (index, name) in referenceCells {
                    references[name] = FieldValue(Self.storedText(page.batch[row, index]))
                }
                try resolver.collect(references)
                if keys != nil {
                    sources.append(
                        .init(
                            sysID: sysID,
                            values: try keyCells.map { cell throws(NowETLError) in
                                try resolver.keyValue(
                                    Self.storedText(page.batch[row, cell]),
                                    of: cells.first { $0.index == cell }?.name ?? "")
                            }))
                }
            }
        }
        ownRows.finish()
        var ownMap: InstanceTableMap?
        // Every record the table's map knows, earlier runs' included: where a deletion goes.
        var knownMap = InstanceTableMap()
        if let keys {
            // The last committed map: where decided matches start from, and what the new one extends.
            knownMap = try InstanceMapFiles.committed(outputDirectory: options.outputDirectory, table: context.table)
            let map = try await decideMap(
                keys: keys, sources: sources, committed: knownMap, writer: writer, context: context)
            for entry in map.entries.values { knownMap.add(entry) }
            maps.keep(knownMap, target: target, table: context.table)
            ownMap = map
        }
        resolver.beginWrites(ownRows: ownRows)
        try await resolver.prefetch()
        self.resolver = resolver
        // Pass 2: the writes.
        reportProgress(.writing)
        let group = options.lookupBatchSize * options.concurrency
        try await reader.forEachPage(length: spill.length, schema: schema) { page in
            for row in 0..<page.batch.count {
                if let deleted = self.deletion(in: page.batch, row: row) {
                    try await self.delete(deleted, map: keys == nil ? nil : knownMap, group: group)
                    continue
                }
                let source = Self.storedText(page.batch[row, sysIDCell])
                var fields: [FieldName: FieldValue] = [:]
                fields.reserveCapacity(cells.count)
                for (index, name) in cells { fields[name] = FieldValue(Self.storedText(page.batch[row, index])) }
                var recordID = source
                if let entry = ownMap?.entries[source] {
                    switch entry.action {
                    case .skipped:
                        load?.skippedUnmatched += 1
                        self.done.rows += 1
                        continue
                    case .kept:
                        load?.kept += 1
                        self.done.rows += 1
                        continue
                    case .updated:
                        recordID = entry.target
                        // The target's record keeps its own creation and modification count.
                        for field in ["sys_created_on", "sys_created_by", "sys_mod_count"] { fields[field] = nil }
                    case .inserted, .deleted: break  // by the source sys_id (a decided map holds no `deleted`)
                    }
                }
                fields["sys_id"] = FieldValue(recordID)
                pending.append((source, InstanceTableWriter.Record(sysID: recordID, fields: fields)))
                if pending.count >= group { try await flush() }
            }
        }
        try await flush()
        try await flushDeletions()
        progress?.close()
        load?.unresolved = self.resolver?.unresolved ?? [:]
        var staged: [StagedFile] = []
        if ownMap != nil {
            var committed = knownMap
            for source in deletedSources {
                if var entry = committed.entries[source] {
                    entry.action = .deleted
                    committed.add(entry)
                }
            }
            let outputDirectory = options.outputDirectory
            let table = context.table
            staged = [
                try await BlockingWorker.detached { [committed] in
                    try InstanceMapFiles.stage(committed, outputDirectory: outputDirectory, table: table)
                }
            ]
        }
        state = .prepared
        return PreparedOutput(staged: staged, artifacts: load.map { [.instanceTable($0)] } ?? [])
    }

    /// The map of the coalesced table: the journal's (a resumed load), else decided anew from the last
    /// `committed` map and the target's keys; journaled, synced, before it is returned.
    private func decideMap(
        keys: [String], sources: [InstanceKeyMatch.Source], committed: InstanceTableMap, writer: InstanceTableWriter,
        context: SinkContext
    ) async throws -> InstanceTableMap {
        let directory = TableJournal.directory(outputDirectory: options.outputDirectory, table: context.table)
        let name = Self.fileName(Self.progressName(target: options.connection.instance), suffix: ".map.jsonl")
        let journaled = try InstanceMapFiles.journaled(directory: directory, name: name, loadID: context.loadID)
        if !journaled.entries.isEmpty, sources.allSatisfy({ journaled.entries[$0.sysID] != nil }) {
            return journaled
        }
        var previous = committed
        for entry in journaled.entries.values { previous.add(entry) }
        let records = try await writer.scan(fields: keys)
        let map = try InstanceKeyMatch(table: context.table, fields: keys, matching: options.matching, target: target)
            .decide(sources: sources, targetRecords: records, previous: previous)
        try await BlockingWorker.detached {
            try InstanceMapFiles.journal(map, directory: directory, name: name, loadID: context.loadID)
        }
        return map
    }

    /// Returns what was written (the rows are in the target since ``prepare()``).
    public func commit() async throws -> [Artifact] {
        guard state == .prepared else { throw NowETLError(.misuse, path: target, "commit without prepare") }
        state = .committed
        return load.map { [.instanceTable($0)] } ?? []
    }

    /// Stops: what was written stays in the target (an instance has no rollback), and the progress
    /// record stays for the rerun.
    public func abort() async {
        progress?.close()
        spill?.close()
        pending = []
        if state != .committed { state = .closed }
    }

    /// Writes the collected rows: references rewritten, lookups, then POSTs and PUTs, `concurrency` at
    /// a time; then confirms them (by source sys_id) in the progress record.
    private func flush() async throws {
        guard let writer, let progress, var load else { return }
        let unconfirmed = pending.filter { !progress.confirmed.contains($0.source) }
        load.alreadyWritten += pending.count - unconfirmed.count
        done.rows += pending.count - unconfirmed.count
        pending = []
        defer { self.load = load }
        guard !unconfirmed.isEmpty else { return }
        var records = unconfirmed.map(\.record)
        try await resolver?.rewrite(&records, sources: unconfirmed.map(\.source))
        let concurrency = options.concurrency
        let lookups = stride(from: 0, to: records.count, by: options.lookupBatchSize).map {
            records[$0..<min($0 + options.lookupBatchSize, records.count)].map(\.sysID)
        }
        let found = try await Self.concurrentMap(lookups, concurrency: concurrency) { try await writer.existing($0) }
        let existing = found.reduce(into: Set<String>()) { $0.formUnion($1) }
        let work = records.compactMap { record -> (record: InstanceTableWriter.Record, exists: Bool)? in
            let exists = existing.contains(record.sysID)
            return exists && options.mode == .insertOnly ? nil : (record, exists)
        }
        load.skippedExisting += records.count - work.count
        let outcomes: [InstanceTableWriter.Outcome]
        if options.batchSize > 1 {
            let slices = stride(from: 0, to: work.count, by: options.batchSize).map {
                Array(work[$0..<min($0 + options.batchSize, work.count)])
            }
            var answered = 0
            outcomes = try await Self.concurrentMap(
                slices, concurrency: concurrency,
                finished: {
                    answered += slices[$0].count
                    self.reportProgress(.writing, inFlight: answered)
                },
                { try await writer.writeInBatch($0) }
            ).flatMap { $0 }
        } else {
            var answered = 0
            outcomes = try await Self.concurrentMap(
                work, concurrency: concurrency,
                finished: { _ in
                    answered += 1
                    self.reportProgress(.writing, inFlight: answered)
                },
                { item in
                    if item.exists {
                        try await writer.update(item.record)
                        return .updated
                    }
                    return try await writer.insert(item.record)
                })
        }
        for outcome in outcomes {
            switch outcome {
            case .inserted: load.inserted += 1
            case .updated: load.updated += 1
            case .skippedExisting: load.skippedExisting += 1
            }
        }
        load.requests = writer.requests.load(ordering: .relaxed)
        let confirming = UncheckedBox(progress)
        let sysIDs = unconfirmed.map(\.source)
        try await BlockingWorker.detached { try confirming.value.confirm(sysIDs) }
        done.rows += records.count
        reportProgress(.writing)
        CrashPoint.reached("instance-confirmed")
    }

    /// The sys_id of a deletion record (``TablePlan/deletedAtColumn`` set; its one other filled cell is
    /// the sys_id), `nil` for a row of the table.
    private func deletion(in batch: RowBatch, row: Int) -> String? {
        guard let deletedAtCell, batch[row, deletedAtCell] != nil else { return nil }
        for column in 0..<schema.columns.count where column != deletedAtCell {
            if case .string(let sysID)? = batch[row, column], !sysID.isEmpty { return sysID }
        }
        return ""
    }

    /// Queues the deletion of the source record `source`'s target record (`deletes: propagate`): the
    /// record the map names for a coalesced table (none for a record the map does not know, or one
    /// `kept` or `skipped`: those are the target's own or were never written), the same sys_id otherwise.
    private func delete(_ source: String, map: InstanceTableMap?, group: Int) async throws {
        guard options.matching.deletions == .propagate else {
            load?.deletionsIgnored += 1
            done.deletions += 1
            return
        }
        var target = source
        if let map {
            guard let entry = map.entries[source], entry.action == .updated || entry.action == .inserted else {
                load?.deletionsIgnored += 1
                done.deletions += 1
                return
            }
            target = entry.target
        }
        pendingDeletions.append((source, target))
        if pendingDeletions.count >= group { try await flushDeletions() }
    }

    /// Sends the queued deletions, `concurrency` at a time, and confirms them in the progress record.
    private func flushDeletions() async throws {
        guard let writer, let progress, !pendingDeletions.isEmpty else { return }
        let work = pendingDeletions.filter { !progress.confirmed.contains($0.source) }
        done.deletions += pendingDeletions.count - work.count
        load?.alreadyWritten += pendingDeletions.count - work.count
        deletedSources += pendingDeletions.map(\.source)
        pendingDeletions = []
        let deleted = try await Self.concurrentMap(work, concurrency: options.concurrency) {
            try await writer.delete($0.target)
        }
        load?.deleted += deleted.filter { $0 }.count
        load?.deletionsIgnored += deleted.filter { !$0 }.count
        load?.requests = writer.requests.load(ordering: .relaxed)
        let confirming = UncheckedBox(progress)
        let sysIDs = work.map(\.source)
        try await BlockingWorker.detached { try confirming.value.confirm(sysIDs) }
        done.deletions += work.count
        reportProgress(.deleting)
    }

    /// The text of a stored value: empty for none.
    private static func storedText(_ value: ColumnValue?) -> String {
        switch value {
        case nil: ""
        case .string(let text), .decimal(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .dateTime(let seconds):
            TableAPIDateFormat.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        case .date(let days):
            String(TableAPIDateFormat.string(from: Date(timeIntervalSince1970: TimeInterval(days) * 86_400)).prefix(10))
        case .duration(let seconds): TableAPIDateFormat.string(fromSeconds: seconds)
        }
    }

    /// The progress record's file name for a target: `instance-<host>_<port>.progress`.
    static func progressName(target: URL) -> String {
        let key = "\(target.host ?? "")_\(target.port.map(String.init) ?? "")"
        return "instance-" + key.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }.joined()
            + ".progress"
    }

    /// `<progress name>` with its `.progress` ending replaced by `suffix`: the load's other files.
    private static func fileName(_ progressName: String, suffix: String) -> String {
        (progressName.hasSuffix(".progress") ? String(progressName.dropLast(9)) : progressName) + suffix
    }

    /// Reports how far ``prepare()`` has got: the rows (or deletions) done, plus `inFlight` of the
    /// current group that the target answered but that are not confirmed yet.
    private func reportProgress(_ phase: OutputProgress.Phase, inFlight: Int = 0) {
        guard let report = context?.outputProgress else { return }
        let (rows, total) =
            phase == .deleting ? (done.deletions + inFlight, done.deletionsTotal) : (done.rows + inFlight, done.total)
        report.send(OutputProgress(output: "instance " + target, phase: phase, rows: rows, total: total))
    }

    /// `body` over `items`, at most `concurrency` at a time, results in the order of `items`; the first
    /// error cancels the rest and is thrown. `finished` is told the index of each item done, as it is.
    static func concurrentMap<Item: Sendable, Result: Sendable>(
        _ items: [Item], concurrency: Int, finished: (Int) -> Void = { _ in },
        _ body: @escaping @Sendable (Item) async throws -> Result
    ) async throws -> [Result] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: items.count)
            var next = 0
            while next < min(concurrency, items.count) {
                let index = next
                group.addTask { (index, try await body(items[index])) }
                next += 1
            }
            while let (index, result) = try await group.next() {
                results[index] = result
                finished(index)
                if next < items.count {
                    let index = next
                    group.addTask { (index, try await body(items[index])) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }
}
