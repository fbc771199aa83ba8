import Foundation
import NowData
import Synchronization

/// One table's export, built once per table from the engine (``TableRunner``: the pipeline, its
/// request limiter and dictionary cache), the table, its outputs and the mode — the one place where a
/// table's service, plan, stage pipeline and summary are made. Every path drives its halves:
///
/// | path | halves |
/// |---|---|
/// | `nowetl run` | ``extract(into:pipeline:alreadyRows:summary:progress:)``, then ``join(_:spills:context:deletions:oldSpills:oldSignpost:)`` |
/// | `nowetl run --shard I/N` | extract only, into the shard's journal |
/// | `nowetl merge` | join only, over the shards' spills |
/// | `nowetl preview` | ``TablePipeline/stream(isFull:deliver:)`` into a ``MemorySink`` |
///
/// The service it makes reports every transport event to the run's ``RequestLimiter`` (a 429 lowers
/// the concurrency for every table) and to `progress` (the log), and counts the retries for the summary.
struct TableExport {
    /// The engine: configuration, limiter, dictionaries, decoder, HTTP stack.
    let engine: TableRunner
    /// The table.
    let table: TableConfiguration
    /// The outputs; their kinds shape the plan, and a run's or a merge's join writes into them.
    let outputs: [FileSinkSpec]
    /// The table's connection to the instance: its client, the retries it counted, when it was made.
    let connection: Connection
    /// What to fetch, as the outputs need it.
    var plan: TablePlan

    /// The instance's client, made for this table.
    var service: NowTableService { connection.service }

    /// A table's client, made before its plan (an incremental run asks the instance's clock first).
    struct Connection: Sendable {
        /// The client: every transport event goes to the engine's request limiter and to `progress`.
        let service: NowTableService
        fileprivate let retries: RetryCount
        fileprivate let started: ContinuousClock.Instant

        /// Connects `table` through `engine`; `progress` receives the transport events as
        /// ``TableProgress/transport(table:_:)``.
        init(_ table: String, engine: TableRunner, progress: @escaping @Sendable (TableProgress) -> Void) {
            let retries = RetryCount()
            let limiter = engine.limiter
            self.retries = retries
            self.started = ContinuousClock().now
            self.service = engine.makeService { event in
                if case .retry = event { retries.value.add(1, ordering: .relaxed) }
                limiter.observe(event)
                progress(.transport(table: table, event))
            }
        }
    }

    /// Requests retried by NowData's transport for one table.
    fileprivate final class RetryCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Plans `table` as its outputs need it (``FileSinkSpec/PlanNeeds``: unload columns for XML unload,
    /// typed columns for a database, the migration's fields for an instance, ISO date-times where a
    /// format writes them, the NUL check for PostgreSQL); `window` adds an incremental run's bounds.
    ///
    /// - Throws: ``NowETLError`` naming the table (the dictionary could not be read, or lists no fields).
    init(
        _ table: TableConfiguration, outputs: [FileSinkSpec], engine: TableRunner, connection: Connection,
        window: IncrementalWindow? = nil
    ) async throws {
        let needs = outputs.reduce(into: FileSinkSpec.PlanNeeds()) { $0.formUnion($1.planNeeds) }
        var plan = try await TablePlanner(
            discovery: FieldDiscovery(service: connection.service, decoder: engine.decoder),
            source: engine.configuration.source, cache: engine.dictionaries
        ).plan(
            table, unload: needs.contains(.unloadColumns), typed: needs.contains(.typedColumns),
            migration: needs.contains(.migrationFields), dateTimeFields: needs.contains(.iso8601DateTimes),
            window: window)
        plan.refusesNUL = needs.contains(.refusesNUL)
        self.engine = engine
        self.table = table
        self.outputs = outputs
        self.connection = connection
        self.plan = plan
    }

    /// The stages a pipeline writes into.
    enum Stages {
        /// The outputs' sinks, and for `reject: dead_letter` the dead-letter file beside them (one per
        /// run, `runID`, for an incremental table: its rejects are passed by its state).
        case outputs(deadLetterRunID: String?)
        /// None: extraction into a journal only (a shard).
        case journalOnly
        /// A preview's rows in memory; rejects fail (`reject: fail`) or are left out, never written.
        case preview(MemorySink)
    }

    /// The one assembly of the table's stage pipeline: the instance's pages → the decoder → the
    /// transformer → the reject collector (which counts `alreadyRejected` of a resumed journal against
    /// `reject.max`) → `stages`.
    func pipeline(_ stages: Stages, alreadyRejected: Int = 0) -> TablePipeline {
        var policy = table.reject
        var sinks: [any RecordSink] = []
        switch stages {
        case .outputs: sinks = outputs.map { $0.makeSink(maps: engine.instanceMaps) }
        case .journalOnly: break
        case .preview(let rows):
            sinks = [rows]
            policy = RejectPolicy(mode: table.reject.mode == .fail ? .fail : .skip)
        }
        var pipeline = TablePipeline(
            plan: plan, source: InstancePageSource(service: service), decoder: engine.decoder,
            rejects: RejectCollector(table: table.table, policy: policy, alreadyRejected: alreadyRejected),
            limiter: engine.limiter, sinks: sinks)
        // Beside the outputs: output_dir, or the run's own directory in publish mode.
        let fileOutput = outputs.first(where: \.writesFiles)
        let directory = fileOutput?.options.outputDirectory ?? engine.configuration.outputDirectory
        if case .outputs(let runID) = stages, table.reject.mode == .deadLetter {
            pipeline.deadLetters = DeadLetterFile(outputDirectory: directory, table: table.table, runID: runID)
        }
        let targets = outputs.compactMap { output -> InstanceSinkOptions? in
            if case .instance(let options) = output.format { return options }
            return nil
        }
        if case .outputs = stages, !table.wholeRecord.isEmpty, fileOutput != nil || !targets.isEmpty {
            // Last, so that it prepares after the rows' outputs (a migration's records come first).
            pipeline.sinks.append(
                WholeRecordSink(
                    WholeRecordSink.Setup(
                        table: table, plan: plan, service: service, limiter: engine.limiter,
                        files: fileOutput.map { (directory, $0.options.fileMode) },
                        journalDirectory: TableJournal.directory(
                            outputDirectory: engine.configuration.outputDirectory, table: table.table),
                        targets: targets, maps: engine.instanceMaps)))
        }
        return pipeline
    }

    /// The instance's count of `range` for the plan's filter — the whole filter through the Aggregate API
    /// for the whole key space — `nil` when the instance gave up on it or refused it,
    /// and the requests it took either way. A count is for progress and the summary: a failed one is no
    /// failure, unless it failed for a reason that outlasted the retries (overload, timeouts, an
    /// unreachable instance): then the table fails at once rather than spend a second retry budget on
    /// the first page of an instance that is down.
    ///
    /// - Throws: ``NowETLError`` naming the table (transient or unreachable), `CancellationError`.
    func count(range: SysIDRange = SysIDRange()) async throws -> (count: Int?, attempts: Int) {
        if range != SysIDRange() {
            do {
                let counted = try await InstancePageSource(service: service).count(of: plan, range: range, after: nil)
                return (counted.count, counted.attempts)
            } catch let error as NowETLError where [.transient, .unreachable].contains(error.code) {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                return (nil, 1)
            }
        }
        return try await Self.count(of: plan.table, filter: plan.filter, service: service)
    }

    /// The instance's count of `filter` on `table` through the Aggregate API, as
    /// ``count(range:)`` counts the whole key space. It needs neither the plan nor the dictionary, so
    /// a run asks it beside the table's field discovery.
    ///
    /// - Throws: ``NowETLError`` naming the table (transient or unreachable), `CancellationError`.
    static func count(of table: String, filter: EncodedQuery, service: NowTableService) async throws -> (
        count: Int?, attempts: Int
    ) {
        do {
            let counted = try await service.count(
                from: table, filter: filter == EncodedQuery() ? nil : Filter(encodedQuery: filter))
            return (counted.count, counted.attempts)
        } catch {
            // The requests of a count given up on still count.
            let attempts = error.context?.attempts ?? 1
            switch error {
            case .transactionCancelled, .truncatedResponse: return (nil, attempts)
            default: break
            }
            guard error.classification == .transient || error.classification == .unreachable else {
                return (nil, attempts)
            }
            throw NowETLError(table: table, during: "counting the records", error)
        }
    }

    /// Opens the table's run journal in `directory` (resuming the one a rerun left, unless `restart`),
    /// adds the parts it resumes to `summary` and reports the opening to `progress`.
    ///
    /// The caller closes the journal. `fingerprint` is this export's unless a caller keys it further
    /// (a shard adds its run key).
    ///
    /// - Returns: the journal, and the records its resumed parts already rejected.
    /// - Throws: ``NowETLError`` naming the table.
    func openJournal(
        directory: String, fingerprint: String? = nil, restart: Bool, window: IncrementalWindow? = nil,
        keySpace: SysIDRange = SysIDRange(), summary: inout TableSummary.Builder,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) throws -> (journal: TableJournal, alreadyRejected: Int) {
        let journal: TableJournal
        let opening: ResumeState
        do {
            (journal, opening) = try TableJournal.open(
                directory: directory, fingerprint: fingerprint ?? self.fingerprint, partitions: plan.partitions,
                restart: restart, window: window, keySpace: keySpace)
        } catch {
            throw TableRunner.tableError(error, table: table.table)
        }
        let resumed = journal.allParts
        summary.addResumed(resumed)
        progress(.journal(table: table.table, opening))
        return (journal, resumed.reduce(0) { $0 + $1.rejects })
    }

    /// The extract half: every unfinished part of `journal` fetched into its spill by `pipeline`, the
    /// counters added to `summary`.
    ///
    /// - Throws: ``NowETLError`` naming the table or `CancellationError`; the journal keeps what was fetched.
    func extract(
        into journal: TableJournal, pipeline: TablePipeline, alreadyRows: Int, summary: inout TableSummary.Builder,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws {
        let counters = try await pipeline.extract(
            into: journal, concurrency: engine.configuration.source.concurrency, alreadyRows: alreadyRows,
            progress: progress)
        summary.add(counters)
    }

    /// The join half: `spills` replayed in sys_id order into `pipeline`'s sinks, which are then prepared
    /// (``TablePipeline/join(spills:context:deletions:oldSpills:oldSignpost:)``).
    ///
    /// - Throws: ``NowETLError`` naming the table or `CancellationError`, after aborting the pipeline's sinks.
    func join(
        _ pipeline: TablePipeline, spills: [(path: String, length: Int)], context: SinkContext,
        deletions: [DeletionCapture.Deletion] = [], oldSpills: Int = 0, oldSignpost: Int? = nil
    ) async throws -> TablePipeline.Joined {
        do {
            try await handChoiceLabels(to: pipeline)
            return try await pipeline.join(
                spills: spills, context: context, deletions: deletions, oldSpills: oldSpills, oldSignpost: oldSignpost)
        } catch {
            await pipeline.abort()
            throw TableRunner.tableError(error, table: table.table)
        }
    }

    /// The table's prepared outputs, their summary finished (seconds, concurrency, lowest concurrency,
    /// retries, the files and tables they will be once committed).
    func prepared(
        _ pipeline: TablePipeline, outputs prepared: [PreparedOutput], summary: TableSummary.Builder,
        journalDirectory: String
    ) -> PreparedTable {
        var summary = summary
        for case let sink as WholeRecordSink in pipeline.sinks { summary.summary.counts.add(sink.counts) }
        for load in prepared.flatMap(\.artifacts).compactMap(\.databaseTable) {
            summary.summary.counts[.pruned] += load.pruned
            summary.summary.counts[.backfilled] += load.backfilled
        }
        let preparedTable = PreparedTable(
            summary: finished(summary), outputs: prepared, sinks: pipeline.sinks, deadLetters: pipeline.deadLetters,
            journalDirectory: journalDirectory)
        preparedTable.summary.files = preparedTable.files
        preparedTable.summary.databaseTables = preparedTable.databaseTables
        preparedTable.summary.instanceTables = preparedTable.instanceTables
        return preparedTable
    }

    /// `summary` with what this export measured itself: its retries, its time, the concurrency.
    func finished(_ summary: TableSummary.Builder) -> TableSummary {
        var summary = summary
        summary.summary.concurrency = engine.configuration.source.concurrency
        if summary.measuredHere {
            summary.summary.counts[.retries] += connection.retries.value.load(ordering: .relaxed)
            summary.summary.lowestConcurrency = engine.limiter.lowestLimit
        }
        let elapsed = ContinuousClock().now - connection.started
        summary.summary.seconds =
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary.summary
    }

    /// What makes two runs' rows the same: instance, table, filter, page size, display values, columns.
    /// A journal written under another fingerprint is not resumed, a shard's is not merged.
    var fingerprint: String { Self.fingerprint(of: plan, instance: engine.configuration.source.instance) }

    /// ``fingerprint`` of `plan` against `instance`.
    static func fingerprint(of plan: TablePlan, instance: URL) -> String {
        var text = "v1\n\(instance.absoluteString)\n\(plan.table)\n\(plan.filter)\n"
        text += "\(plan.pageSize)\n\(plan.displayValue)\n\(plan.readConfiguration.queryItems)\n"
        for column in plan.columns {
            text += "\(column.path.text)\t\(column.schema.name)\t\(column.schema.type.rawValue)"
            text += "\t\(column.schema.isReference)"
            // Added only when set, so journals of plans without it keep their fingerprint.
            text += column.schema.isDateTimeField ? "\tdatetime_field" : ""
            // Rows of a column with a display column carry display values in the spill.
            text += column.schema.hasDisplayColumn ? "\tdisplay_column\n" : "\n"
        }
        // The unload columns are cells of the spilled rows too: a journal without them cannot serve.
        for column in plan.unloadColumns {
            text += "unload\t\(column.path.text)\t\(column.schema.name)\t\(column.schema.isReference)\n"
        }
        // A journal spilled without the NUL check would hand PostgreSQL rows it cannot store (added only
        // when set, like datetime_field).
        if plan.refusesNUL { text += "refuses_nul\n" }
        return SHA256.hash(Array(text.utf8)).hexString
    }
}

extension TableSummary {
    /// The one way a table's summary is added up, whichever path ran it: the counters of this process's
    /// extractions, the journal's parts (what was fetched, resumed or not), a shard's manifest entry.
    struct Builder {
        /// The summary so far.
        var summary: TableSummary
        /// Whether this process fetched the table, so its retries and its request limiter's lowest
        /// concurrency are the table's (false for a merge: the shards fetched, their entries say).
        var measuredHere = true

        /// An empty summary of `table`.
        init(table: String) {
            summary = TableSummary(table: table)
        }

        /// Adds what one extraction counted (a resumed window's and its catch-up's add up).
        mutating func add(_ counters: ExtractionCounters) {
            summary.counts.add(counters.snapshot)
        }

        /// Adds the rows, rejects and hidden rows of journaled `parts` (resumed and fetched).
        mutating func add(parts: [TableJournal.Part]) {
            summary.rows += parts.reduce(0) { $0 + $1.rows }
            summary.rejects += parts.reduce(0) { $0 + $1.rejects }
            summary.hiddenRows += parts.reduce(0) { $0 + $1.hidden }
        }

        /// Adds the pages of `parts` a previous, interrupted run had fetched.
        mutating func addResumed(_ parts: [TableJournal.Part]) {
            summary.counts[.resumedPages] += parts.reduce(0) { $0 + $1.pages }
            summary.counts[.resumedRows] += parts.reduce(0) { $0 + $1.rows }
        }

        /// Adds another extraction's summary of the table (a shard's, from its manifest entry): its
        /// counts and figures add up, its lowest concurrency is the lowest of both.
        mutating func add(_ other: TableSummary) {
            summary.rows += other.rows
            summary.rejects += other.rejects
            summary.hiddenRows += other.hiddenRows
            summary.counts.add(other.counts)
            if let lowest = other.lowestConcurrency {
                summary.lowestConcurrency = min(summary.lowestConcurrency ?? lowest, lowest)
            }
        }
    }
}
