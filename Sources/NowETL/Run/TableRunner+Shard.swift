import Foundation
import NowData
import Synchronization

extension TableRunner {
    /// The plan of `table` for `outputs` — the one ``run(_:outputs:context:restart:incremental:progress:)``
    /// makes for a full table — read through `service`.
    func fullPlan(_ table: TableConfiguration, outputs: [FileSinkSpec], service: NowTableService) async throws
        -> TablePlan
    {
        var plan = try await TablePlanner(
            discovery: FieldDiscovery(service: service, decoder: decoder), source: configuration.source,
            cache: dictionaries
        ).plan(
            table, unload: outputs.contains(where: \.isUnload),
            typed: outputs.contains(where: \.isDatabase), migration: outputs.contains(where: \.isInstance),
            dateTimeFields: outputs.contains(where: \.writesISO8601DateTimes),
            window: nil)
        plan.refusesNUL = outputs.contains(where: \.refusesNUL)
        return plan
    }

    /// Extracts `shard`'s key range of `table` into the shard's run journal
    /// (``ShardLayout/journalDirectory(outputDirectory:table:shard:)``) — the extract step of a run,
    /// without the join: nothing is written to `outputs`, whose kinds only shape the plan (XML unload
    /// and database columns) exactly as the merge will plan them.
    ///
    /// The shard's key range is cut into `source.concurrency` partitions; work stealing splits them
    /// further, inside the range. A rerun resumes from the journal like a run does (`restart` discards it)
    /// — but only a journal of the same `runKey`: one an earlier sharded run (another night's key) left
    /// is discarded, never resumed, so a shard never hands the merge an older night's rows as tonight's.
    ///
    /// - Throws: ``TableRunError`` (or `CancellationError`); the journal keeps what was fetched.
    func extractShard(
        _ table: TableConfiguration, outputs: [FileSinkSpec], shard: Shard, runKey: String? = nil, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> ShardManifest.Table {
        let clock = ContinuousClock()
        let start = clock.now
        let retries = Atomic<Int>(0)
        let limiter = self.limiter
        let name = table.table
        let service = makeService { event in
            if case .retry = event { retries.add(1, ordering: .relaxed) }
            limiter.observe(event)
            progress(.transport(table: name, event))
        }
        var plan = try await fullPlan(table, outputs: outputs, service: service)
        let range = shard.keyRange
        plan.partitions = shard.partitions(configuration.source.concurrency)
        let source = InstancePageSource(service: service)
        var requests = 0
        var sourceCount: Int?
        do {
            let counted = try await source.count(of: plan, range: range, after: nil)
            sourceCount = counted.count
            requests += counted.attempts
            progress(.counted(table: name, count: counted.count))
        } catch let error as TableRunError where [.transient, .unreachable, .authentication].contains(error.kind) {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // A count the instance gave up on is no count, as in a run.
        }
        let directory = ShardLayout.journalDirectory(
            outputDirectory: configuration.outputDirectory, table: name, shard: shard)
        let journal: TableJournal
        let opening: ResumeState
        do {
            (journal, opening) = try TableJournal.open(
                directory: directory, fingerprint: fingerprint(of: plan) + (runKey.map { " run-key:" + $0 } ?? ""),
                partitions: plan.partitions,
                restart: restart, keySpace: range)
        } catch {
            throw Self.tableError(error, table: name)
        }
        defer { journal.close() }
        let resumed = journal.allParts
        progress(.journal(table: name, opening))
        let pipeline = TablePipeline(
            plan: plan, source: source, decoder: decoder,
            rejects: RejectCollector(
                table: name, policy: table.reject, alreadyRejected: resumed.reduce(0) { $0 + $1.rejects }),
            limiter: limiter, sinks: [])
        let counters: ExtractionCounters
        do {
            counters = try await pipeline.extract(
                into: journal, concurrency: configuration.source.concurrency,
                alreadyRows: resumed.reduce(0) { $0 + $1.rows }, progress: progress)
        } catch {
            throw Self.tableError(error, table: name)
        }
        let elapsed = clock.now - start
        return ShardManifest.Table(
            table: name, plan: fingerprint(of: plan), journalID: journal.id, lower: range.lowerBound,
            upper: range.upperBound,
            parts: journal.allParts.map { part in
                ShardManifest.Part(
                    file: (journal.spillPath(part.id) as NSString).lastPathComponent, lower: part.range.lowerBound,
                    upper: part.range.upperBound, bytes: part.length, sha256: part.digest, rows: part.rows,
                    rejects: part.rejects, hidden: part.hidden)
            },
            sourceCount: sourceCount, pages: counters.pages.load(ordering: .relaxed),
            requests: requests + counters.requests.load(ordering: .relaxed),
            retries: retries.load(ordering: .relaxed), rangeSplits: counters.splits.load(ordering: .relaxed),
            pageSizeReductions: counters.pageSizeReductions.load(ordering: .relaxed),
            utf8Repaired: counters.utf8Repaired.load(ordering: .relaxed),
            resumedPages: resumed.reduce(0) { $0 + $1.pages }, resumedRows: resumed.reduce(0) { $0 + $1.rows },
            lowestConcurrency: limiter.lowestLimit,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
