import Foundation
import NowData

/// The engine of a pipeline's run against one instance — the ``TableRunning`` the run calls. It holds
/// what every table shares (the pipeline, the instance's ``RequestLimiter``, the dictionary cache, the
/// decoder, the HTTP stack) and runs each table through one ``TableExport``:
///
/// - **Plan** (``TablePlanner``, from what the outputs need): fields (configured, or discovered from
///   `sys_dictionary`), columns, partitions (`source.concurrency` consecutive sys_id ranges).
/// - **Count** (``TableExport/count(range:)``): the filter's count for progress and the summary's
///   ``TableSummary/sourceCount``; a failed count is no failure — unless it failed for a reason that
///   outlasted the retries (overload, timeouts, an unreachable instance): then the table fails at once
///   rather than spend a second retry budget on the first page of an instance that is down.
/// - **Journal** (``TableJournal``): a table whose previous run was interrupted continues from what
///   that run fetched, if the plan is the same; `restart` (`--restart`) discards it.
/// - **Extract** (``TableExport/extract(into:pipeline:alreadyRows:summary:progress:)``): `concurrency`
///   partition tasks, each fetching one sys_id range at a time into its spill part, sharing the
///   instance's ``RequestLimiter`` (lowered on 429, raised again when answers are healthy); a task
///   that runs out of ranges splits the busiest one.
/// - **Join and prepare** (``TableExport/join(_:spills:context:deletions:oldSpills:oldSignpost:)``):
///   the spills, in sys_id order, into every sink — identical bytes whatever the concurrency — and the
///   sinks prepared (staged beside their targets). The run commits them.
/// - **Rejects** (``RejectCollector``): `fail` fails the table, `skip` and `dead_letter` count (and for
///   `dead_letter` write `<output_dir>/<table>.rejects.jsonl`); more than `max` fails it (exit 2).
public struct TableRunner: TableRunning {
    /// The pipeline (source settings and output directory).
    public let configuration: PipelineConfiguration
    /// The instance's request limiter, shared by every table this runner exports.
    let limiter: RequestLimiter
    /// The dictionaries read by ``checkNames(in:tables:)`` and the planner, each table's once.
    let dictionaries = DictionaryCache()
    /// The maps of the coalesced tables written into other instances so far (``InstanceMaps``), for
    /// the references of the tables written after them.
    let instanceMaps = InstanceMaps()
    let decoder: any PageDecoding
    private let coreServiceProvider: (any NowCoreServiceProviding)?

    /// Creates a runner for the tables of `configuration`.
    ///
    /// - Parameters:
    ///   - decoder: the page decoder (Foundation's by default).
    ///   - coreServiceProvider: the HTTP stack, `nil` for libcurl (NowData's default).
    public init(
        configuration: PipelineConfiguration, decoder: any PageDecoding = FastPageDecoder(),
        coreServiceProvider: (any NowCoreServiceProviding)? = nil
    ) {
        self.init(
            configuration: configuration, decoder: decoder, coreServiceProvider: coreServiceProvider,
            maximumConcurrency: configuration.source.concurrency)
    }

    /// A runner with at most `maximumConcurrency` requests in flight (a preview's one, not the source's).
    init(
        configuration: PipelineConfiguration, decoder: any PageDecoding,
        coreServiceProvider: (any NowCoreServiceProviding)?,
        maximumConcurrency: Int
    ) {
        self.configuration = configuration
        self.decoder = decoder
        self.coreServiceProvider = coreServiceProvider
        self.limiter = RequestLimiter(
            maximum: maximumConcurrency,
            maximumCooldown: RequestLimiter.duration(seconds: configuration.source.retry.totalSeconds))
    }

    /// Extracts `table` and prepares `outputs`; throws a ``NowETLError`` naming the table (or `CancellationError`) after
    /// aborting every output. The journal keeps what was fetched.
    public func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        try await run(
            table, outputs: outputs, context: context, restart: restart,
            incremental: table.incremental.map { _ in IncrementalRequest(saved: nil, runStarted: context.runStarted) },
            progress: progress)
    }

    /// Extracts `table` — for an incremental table only the rows of the run's ``IncrementalWindow``
    /// (and the deletions of its deletion window) — and prepares `outputs`, with the table's next
    /// state in ``PreparedTable/incrementalState``. A refusal of the source or a target is told with
    /// who asked (``explaining(_:)``).
    public func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        incremental: IncrementalRequest?, progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        do {
            return try await export(
                table, outputs: outputs, context: context, restart: restart, incremental: incremental,
                progress: progress)
        } catch {
            throw explaining(error)
        }
    }

    /// `error` told as a refusal, naming who asked and what is needed, when the source or a target
    /// refused a request underneath it (HTTP 401, 403: ``NowETLError/refusal(in:accounts:)``); otherwise
    /// as it is. Every error leaving the runner goes through it.
    func explaining(_ error: any Error) -> any Error {
        NowETLError.refusal(in: error, accounts: configuration.accounts) ?? error
    }

    /// The body of ``run(_:outputs:context:restart:incremental:progress:)``.
    private func export(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        incremental: IncrementalRequest?, progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        let name = table.table
        let connection = TableExport.Connection(name, engine: self, progress: progress)
        let directory = TableJournal.directory(outputDirectory: configuration.outputDirectory, table: name)
        var windows: Windows?
        if let request = incremental, let settings = table.incremental {
            // The instance stamps the cursor with its own clock: the signpost follows the earlier clock.
            let instanceNow = try? await connection.service.instanceDate(of: name)
            if let instanceNow {
                let skew = Int(request.runStarted.timeIntervalSince(instanceNow).rounded())
                if abs(skew) > 1 { progress(.clockSkew(table: name, seconds: skew)) }
            }
            windows = try Self.windows(
                of: table, settings: settings, request: request, journal: directory, restart: restart,
                instanceNow: instanceNow)
        }
        if let windows { progress(.window(table: name, windows.rows, deletes: windows.deletes)) }
        // The count needs only the filter: it goes beside the field discovery, and for a full table beside
        // its pages too (``extract(_:alreadyRows:besideCount:progress:)``), instead of adding a round trip
        // of its own before the first page. An incremental table's pages wait for it: it decides the
        // partitions.
        let service = connection.service
        let filter = windows.map { table.query.and($0.rows.terms) } ?? table.query
        let counting = Task { try await TableExport.count(of: name, filter: filter, service: service) }
        defer { counting.cancel() }
        var export = try await TableExport(
            table, outputs: outputs, engine: self, connection: connection, window: windows?.rows)
        var summary = TableSummary.Builder(table: name)
        // Deletions first: the query is the access check, and fails the table before any page.
        var captured: DeletionCapture.Captured?
        if let deletes = windows?.deletes {
            var capture = DeletionCapture(table: name, window: deletes)
            capture.childTables = try await FieldDiscovery(service: export.service, decoder: decoder).descendants(
                of: name)
            captured = try await capture.read(
                source: InstancePageSource(service: export.service), decoder: decoder, limiter: limiter,
                pageSize: configuration.source.pageSize)
            summary.summary.counts[.requests] += captured?.requests ?? 0
        }
        let plannedPartitions = export.plan.partitions
        if windows != nil {
            let counted = try await Self.value(of: counting)
            summary.summary.counts[.requests] += counted.attempts
            if let count = counted.count {
                summary.summary.sourceCount = count
                progress(.counted(table: name, count: count))
                // What changed since last night usually fits a page: one range, not a request per partition.
                if count <= export.plan.pageSize { export.plan.partitions = [SysIDRange()] }
            }
        }
        let (journal, alreadyRejected) = try export.openJournal(
            directory: directory, restart: restart, window: windows?.rows, summary: &summary, progress: progress)
        defer { journal.close() }
        let pipeline = export.pipeline(
            .outputs(deadLetterRunID: export.plan.incremental == nil ? nil : context.runID),
            alreadyRejected: alreadyRejected)
        let prepared: [PreparedOutput]
        var parts: [TableJournal.Part]
        do {
            if windows == nil {
                let extraction = pipeline.extraction(
                    into: journal, concurrency: configuration.source.concurrency, progress: progress)
                let (counters, counted) = try await Self.extract(
                    extraction, alreadyRows: summary.summary.counts[.resumedRows], besideCount: counting,
                    progress: { count in progress(.counted(table: name, count: count)) })
                summary.add(counters)
                summary.summary.counts[.requests] += counted.attempts
                summary.summary.sourceCount = counted.count
            } else {
                try await export.extract(
                    into: journal, pipeline: pipeline, alreadyRows: summary.summary.counts[.resumedRows],
                    summary: &summary, progress: progress)
            }
            parts = journal.allParts
            var spills = journal.spills
            var oldSpills = 0
            if var current = windows, current.catchUpTo != current.rows.signpost {
                let resumedSignpost = current.rows.signpost
                // A rerun finished the window its journal recorded (an older signpost): in the same run it
                // goes on after what that window delivered, up to the run's own signpost.
                let caughtUp = try await catchUp(
                    export, partitions: plannedPartitions, after: current.rows, high: parts.compactMap(\.high).max(),
                    to: current.catchUpTo, journalDirectory: directory, pipeline: pipeline, summary: &summary,
                    progress: progress)
                oldSpills = spills.count
                spills += caughtUp.journal.spills
                parts += caughtUp.journal.allParts
                caughtUp.journal.close()
                current.rows = caughtUp.window
                current.resumedSignpost = resumedSignpost
                windows = current
                // The whole record's rows come up to the signpost the run caught up to.
                for case let sink as WholeRecordSink in pipeline.sinks { sink.extend(to: caughtUp.window.signpost) }
            }
            var context = context
            context.loadID = journal.id
            // Database outputs converge by a scan of the filter when the rows are only what changed.
            context.readsChangesOnly = windows != nil
            context.fullRefresh = windows != nil && incremental?.fullRefresh == true
            let joined = try await export.join(
                pipeline, spills: spills, context: context, deletions: captured?.deletions ?? [],
                oldSpills: oldSpills,
                oldSignpost: windows?.resumedSignpost.flatMap { TableAPIDateFormat.seconds(fromDateTime: $0) })
            prepared = joined.prepared
            summary.add(parts: parts)
            summary.summary.rows += joined.deleted - joined.superseded
            summary.summary.deleted = joined.deleted
            summary.summary.counts[.requests] += joined.scanRequests
        } catch {
            // The sinks are opened by the join, which aborts them when it fails: before it they hold nothing.
            throw Self.tableError(error, table: name)
        }
        let preparedTable = export.prepared(
            pipeline, outputs: prepared, summary: summary, journalDirectory: directory)
        if let windows {
            preparedTable.incrementalState = Self.nextState(
                of: table, windows: windows, high: parts.compactMap(\.high).max(), deletions: captured,
                summary: preparedTable.summary, runID: context.runID)
        }
        progress(.finished(preparedTable.summary))
        return preparedTable
    }

    /// A full table's extraction, beside its count (`counting`, started with the field discovery): the
    /// count's round trip is not on the way to the first page. `counted` hears the count as soon as it
    /// is known (the progress line's total).
    ///
    /// Which failure is the table's:
    /// * a count that fails for a reason that outlasted its retries (``TableExport/count(of:filter:service:)``:
    ///   the instance overloaded, timing out, unreachable) fails the table and stops the pages — unless
    ///   every page was in by then: the table then only lacks its source count;
    /// * pages that fail for such a reason too wait for the count, and its failure is the table's: the
    ///   count, asked first, is the request whose retries ran out first against an instance that keeps
    ///   failing, as when it was asked before the pages;
    /// * pages that fail for any other reason (a refusal, the reject limit, a full disk) fail the table
    ///   at once, and the count is stopped.
    ///
    /// - Throws: the table's failure as above; `CancellationError`.
    static func extract(
        _ extraction: SpilledExtraction, alreadyRows: Int,
        besideCount counting: Task<(count: Int?, attempts: Int), any Error>,
        progress counted: @escaping @Sendable (Int) -> Void
    ) async throws -> (counters: ExtractionCounters, counted: (count: Int?, attempts: Int)) {
        enum Part: Sendable {
            case count(Result<(count: Int?, attempts: Int), any Error>)
            case extracted(Result<ExtractionCounters, any Error>)
        }
        var count: Result<(count: Int?, attempts: Int), any Error>?
        var extracted: Result<ExtractionCounters, any Error>?
        // Whose failure stopped the other: the other's outcome (a cancellation, however it surfaces) is
        // then not the table's.
        var stoppedBy: Failed?
        await withTaskGroup(of: Part.self) { group in
            group.addTask {
                do { return .count(.success(try await value(of: counting))) } catch { return .count(.failure(error)) }
            }
            group.addTask {
                do {
                    return .extracted(.success(try await extraction.run(alreadyRows: alreadyRows)))
                } catch {
                    return .extracted(.failure(error))
                }
            }
            for await part in group {
                switch part {
                case .count(let result):
                    count = result
                    switch result {
                    case .success(let value): if let total = value.count { counted(total) }
                    case .failure(let error):
                        if case .success? = extracted {
                            // Every page is in: the instance answered them all, so a count it gave up on
                            // since is a figure missing from the summary, not a failed table.
                            count = .success((nil, (error as? NowETLError)?.requests ?? 1))
                        } else if stoppedBy == nil {
                            // What the pages journaled stays; the group waits for them to stop.
                            stoppedBy = .count
                            group.cancelAll()
                        }
                    }
                case .extracted(let result):
                    extracted = result
                    if case .failure(let error) = result, stoppedBy == nil, !isTheInstancesFailure(error) {
                        stoppedBy = .pages
                        group.cancelAll()
                    }
                }
            }
        }
        switch (stoppedBy, count, extracted) {
        case (.pages, _, .failure(let error)?), (.count, .failure(let error)?, _):
            throw error
        case (nil, .failure(let error)?, _), (nil, _, .failure(let error)?):
            // Both ran to their end: the count's failure first (the pages failed for the instance too).
            throw error
        case (nil, .success(let value)?, .success(let counters)?):
            return (counters, value)
        default:
            throw CancellationError()
        }
    }

    /// Which side of a table's extraction failed and stopped the other.
    private enum Failed {
        case count
        case pages
    }

    /// Whether `error` is the instance failing for a reason that outlasted the retries (overloaded, timing
    /// out, unreachable), which a count failing beside the pages explains as well.
    private static func isTheInstancesFailure(_ error: any Error) -> Bool {
        guard let error = error as? NowETLError else { return false }
        return error.code == .transient || error.code == .unreachable
    }

    /// The value of `task`, which is cancelled when the caller is.
    static func value<Value: Sendable>(of task: Task<Value, any Error>) async throws -> Value {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// An incremental run's two windows: its rows' and its deletions'.
    struct Windows: Sendable {
        var rows: IncrementalWindow
        var deletes: IncrementalWindow?
        /// The run's own signpost: ``rows``'s, unless that keeps an older one its journal recorded (the
        /// rerun of an interrupted run); after that window the run then catches up to this one.
        var catchUpTo: String
        /// After a catch-up: the signpost of the resumed window that came first.
        var resumedSignpost: String?
    }

    /// What a catch-up read: its window and its journal (open).
    private struct CaughtUp {
        var window: IncrementalWindow
        var journal: TableJournal
    }

    /// Reads the rows changed after the resumed window `resumed` delivered (up to `high`, or from its
    /// lower bound when it delivered nothing) up to the run's own `signpost`, into a journal of its own
    /// (`<table journal>/catchup`, started afresh: a catch-up is small, and the catch-up of a later rerun
    /// has a later signpost anyway). Its rows go to the same outputs after the resumed window's, and the
    /// reject policy counts both.
    private func catchUp(
        _ resumedExport: TableExport, partitions: [SysIDRange], after resumed: IncrementalWindow, high: CursorMark?,
        to signpost: String, journalDirectory: String, pipeline resumedPipeline: TablePipeline,
        summary: inout TableSummary.Builder, progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> CaughtUp {
        let window = IncrementalWindow(
            field: resumed.field, cursor: high?.value ?? resumed.cursor,
            sysID: high.map(\.sysID) ?? resumed.sysID, signpost: signpost)
        progress(.window(table: resumedExport.table.table, window, deletes: nil))
        var export = resumedExport
        export.plan.filter = export.table.query.and(window.terms)
        export.plan.incremental = window
        export.plan.partitions = partitions
        let counted = try await export.count()
        summary.summary.counts[.requests] += counted.attempts
        if let count = counted.count {
            summary.summary.sourceCount = summary.summary.sourceCount.map { $0 + count }
            if count <= export.plan.pageSize { export.plan.partitions = [SysIDRange()] }
        }
        let (journal, _) = try TableJournal.open(
            directory: journalDirectory + "/catchup", fingerprint: export.fingerprint,
            partitions: export.plan.partitions, restart: true, window: window)
        do {
            var pipeline = resumedPipeline
            pipeline.plan = export.plan
            try await export.extract(
                into: journal, pipeline: pipeline, alreadyRows: 0, summary: &summary, progress: progress)
        } catch {
            journal.close()
            throw error
        }
        return CaughtUp(window: window, journal: journal)
    }

    /// The windows of an incremental table's run: after the saved state (none after `--full-refresh`,
    /// which keeps only the deletions' cursor), at most the signpost — the one the table's run journal
    /// recorded when it holds pages of the same lower bound (an interrupted run's rerun, which then
    /// catches up to ``Windows/catchUpTo``), else the one of the run's start on the earlier of the two
    /// clocks, nowetl's and the instance's (`instanceNow`, its `Date` header at the start): a nowetl
    /// clock ahead of the instance's must not put the signpost in the instance's future, where rows
    /// updated during the run still get it. The deletions' window ends at the run's own signpost.
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/incrementalState``, exit 78) when the state was kept for another cursor field.
    static func windows(
        of table: TableConfiguration, settings: IncrementalConfiguration, request: IncrementalRequest,
        journal: String, restart: Bool, instanceNow: Date? = nil
    ) throws(NowETLError) -> Windows {
        let saved = request.saved
        if let saved, !request.fullRefresh, saved.cursorField != settings.cursor {
            throw NowETLError(
                .incrementalState, path: table.table,
                "table \(table.table): its incremental state was kept for cursor \(saved.cursorField), the pipeline "
                    + "now names \(settings.cursor); run it once with --full-refresh (or `nowetl state reset`) to "
                    + "start over with the new cursor")
        }
        let base = request.fullRefresh ? nil : saved
        var window = IncrementalWindow(
            field: settings.cursor, cursor: base?.cursor ?? settings.start,
            sysID: base?.cursor == nil ? nil : base?.sysID,
            signpost: IncrementalWindow.signpost(
                runStarted: min(request.runStarted, instanceNow ?? request.runStarted), lagSeconds: settings.lagSeconds),
            previousSignpost: base?.cursor == nil ? nil : base?.signpost
        )
        // The run's own signpost: everything changed up to it is in the outputs once the run commits.
        let own = window.signpost
        if !restart, let recorded = TableJournal.recordedWindow(directory: journal), recorded.field == window.field,
            recorded.cursor == window.cursor, recorded.sysID == window.sysID
        {
            window.signpost = recorded.signpost
        }
        // (Date-times in this form sort as text; a recorded signpost ahead of this run's clock is kept.)
        let catchUpTo = max(own, window.signpost)
        let deletes = settings.deletes ? DeletionCapture.window(after: saved, signpost: catchUpTo) : nil
        return Windows(rows: window, deletes: deletes, catchUpTo: catchUpTo)
    }

    /// The state an incremental table has once this run commits: the greatest `(cursor, sys_id)`
    /// delivered (the window's lower bound when nothing was), the signpost, the deletions' greatest pair.
    static func nextState(
        of table: TableConfiguration, windows: Windows, high: CursorMark?, deletions: DeletionCapture.Captured?,
        summary: TableSummary, runID: String
    ) -> IncrementalTableState {
        let window = windows.rows
        var state = IncrementalTableState(
            cursorField: window.field, cursor: high?.value ?? window.cursor,
            sysID: high.map(\.sysID) ?? window.sysID, signpost: window.signpost, runID: runID, rows: summary.rows,
            filter: table.filter)
        if let deletes = windows.deletes {
            state.deleted = summary.deleted
            state.deletesCursor = deletions?.high?.value ?? deletes.cursor
            state.deletesSysID = deletions?.high.map(\.sysID) ?? deletes.sysID
        }
        return state
    }

    /// The names of `tables` (every table for none) the instance's dictionary does not know
    /// (``DictionaryNameCheck``); the dictionaries read stay cached for the tables' plans.
    public func checkNames(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [DictionaryNameProblem]
    {
        let service = makeService { _ in }
        do {
            return try await DictionaryNameCheck(
                discovery: FieldDiscovery(service: service, decoder: decoder), cache: dictionaries
            ).problems(in: configuration, tables: tables)
        } catch {
            throw explaining(error)
        }
    }

    /// The order of `tables` from the instance's dictionary (``TableOrder/read(_:cache:discovery:)``),
    /// through the dictionaries the name check already read.
    public func dependencyOrder(of tables: [String]) async throws -> TableOrder {
        let service = makeService { _ in }
        do {
            return try await TableOrder.read(
                tables, cache: dictionaries, discovery: FieldDiscovery(service: service, decoder: decoder))
        } catch {
            throw explaining(error)
        }
    }

    func makeService(events: @escaping @Sendable (TransportEvent) -> Void) -> NowTableService {
        let source = configuration.source
        let service = source.serviceConfiguration(
            maximumConnectionsPerHost: limiter.maximum + 1, eventHandler: events)
        return NowTableService(configuration: service, coreServiceProvider: coreServiceProvider)
    }

    /// `error` as the failure of `table`: an error that names a table already as it is, an output's
    /// error with the table as its context and itself as the cause (`table incident: output: <cause>`,
    /// the exit code its own when it is 69, 75, 77 or 78), any other error as the cause of a failure.
    static func tableError(_ error: any Error, table: String) -> any Error {
        switch error {
        case is CancellationError: return error
        case let error as NowETLError where error.context.table != nil: return error
        case let error as NowETLError: return NowETLError(error.code.forTable, table: table, "output", cause: error)
        default: return NowETLError(.failed, table: table, "", cause: error)
        }
    }
}
