import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// The extraction engine through the one pipeline value with a scripted page source: concurrency,
/// work stealing over a skewed key space, the spill join that makes the bytes independent of both, and
/// a failed extraction resumed from its journal without fetching again what it had.
@Suite(.timeLimit(.minutes(3))) struct ExtractConcurrencyTests {
    static func specs(_ directory: String) throws -> [FileSinkSpec] {
        [
            FileSinkSpec(
                format: .csv(CSVSinkOptions()),
                options: FileSinkOptions(outputDirectory: directory, path: try OutputPathTemplate("{table}.csv"))),
            FileSinkSpec(
                format: .xml(XMLSinkOptions()),
                options: FileSinkOptions(outputDirectory: directory, path: try OutputPathTemplate("{table}.xml"))),
            FileSinkSpec(
                format: .json(JSONSinkOptions(layout: .array)),
                options: FileSinkOptions(outputDirectory: directory, path: try OutputPathTemplate("{table}.json.gz"))),
        ]
    }

    struct Export {
        var files: [String: Data] = [:]
        var pages = 0
        var splits = 0
        var hidden = 0
        var pageSizeReductions = 0
    }

    /// Extracts and joins `source` at `concurrency` (over `partitions` planned ranges, by default one per
    /// task), returns the staged outputs' bytes (then aborts them).
    static func export(
        _ source: ScriptedPageSource, concurrency: Int, partitions: Int? = nil, pageSize: Int = 50,
        directory: String, journalDirectory: String? = nil
    ) async throws -> Export {
        let journalDirectory = journalDirectory ?? directory + "/.journal-\(concurrency)-\(partitions ?? 0)"
        let plan = ScriptedPlan.incident(pageSize: pageSize, partitions: partitions ?? concurrency)
        let (journal, _) = try TableJournal.open(
            directory: journalDirectory, fingerprint: "test", partitions: plan.partitions, restart: false)
        defer { journal.close() }
        let pipeline = TablePipeline(
            plan: plan, source: source, rejects: RejectCollector(table: "incident", policy: .fail),
            limiter: RequestLimiter(maximum: concurrency), sinks: try specs(directory).map { $0.makeSink() })
        let counters = try await pipeline.extract(
            into: journal, concurrency: concurrency, alreadyRows: 0, progress: { _ in })
        let prepared = try await pipeline.join(
            from: journal,
            context: SinkContext(table: "incident", runID: "r", runStarted: Date(timeIntervalSince1970: 1_700_000_000))
        ).prepared
        var export = Export(
            pages: counters.snapshot[.pages], splits: counters.snapshot[.rangeSplits],
            hidden: journal.allParts.reduce(0) { $0 + $1.hidden },
            pageSizeReductions: counters.snapshot[.pageSizeReductions])
        for staged in prepared.flatMap(\.staged) {
            export.files[(staged.targetPath as NSString).lastPathComponent] = try SinkTestSupport.read(
                staged.temporaryPath)
        }
        await pipeline.abort()
        return export
    }

    @Test func theBytesAreTheSameWhateverTheConcurrencyAndTheSplits() async throws {
        try await withScratchDirectory { (directory: String) in
            let source = ScriptedPageSource(count: 1_500, skew: true, delay: .milliseconds(1))
            let one = try await Self.export(source, concurrency: 1, directory: directory)
            #expect(one.files.count == 3)
            let csv = try await SinkTestSupport.pythonCSV(try #require(one.files["incident.csv"]))
            #expect(csv.count == 1_501)
            #expect(csv.dropFirst().map { $0[0] } == source.records.map(\.sysID), "every record once, in sys_id order")
            for concurrency in [3, 8] {
                let many = try await Self.export(source, concurrency: concurrency, directory: directory)
                for (name, bytes) in one.files {
                    #expect(
                        many.files[name] == bytes, "\(name) at concurrency \(concurrency) differs from concurrency 1")
                }
                if concurrency == 8 {
                    #expect(many.splits > 0, "90 % of the keys in one sixteenth of the key space: ranges get split")
                }
            }
            #expect(source.mostInFlight <= 8)
            #expect(source.mostInFlight > 1, "partitions overlap")
        }
    }

    /// Fewer unfinished ranges than tasks (a resumed journal, here one range for four tasks): the idle
    /// tasks wait for a range to show how much it has left, then split it, so all of them work.
    @Test func oneRangeIsSharedByEveryTask() async throws {
        try await withScratchDirectory { (directory: String) in
            let single = ScriptedPageSource(count: 1_000, delay: .milliseconds(2))
            let reference = try await Self.export(single, concurrency: 1, directory: directory)
            let shared = ScriptedPageSource(count: 1_000, delay: .milliseconds(2))
            let split = try await Self.export(shared, concurrency: 4, partitions: 1, directory: directory)
            #expect(split.splits > 0)
            #expect(shared.mostInFlight > 1, "the other tasks took parts of the one range")
            #expect(shared.mostInFlight <= 4)
            #expect(split.files == reference.files)
        }
    }

    @Test func aFailedExtractionResumesFromItsJournalWithoutFetchingTheSamePagesAgain() async throws {
        try await withScratchDirectory { (directory: String) in
            let clean = try await Self.export(ScriptedPageSource(count: 800), concurrency: 4, directory: directory)
            let source = ScriptedPageSource(count: 800)
            source.fail(fromRequest: 10)
            let journal = directory + "/.journal-resume"
            await #expect(throws: NowETLError.self) {
                _ = try await Self.export(source, concurrency: 4, directory: directory, journalDirectory: journal)
            }
            let failedRequests = source.requests
            let again = ScriptedPageSource(count: 800)
            let resumed = try await Self.export(again, concurrency: 4, directory: directory, journalDirectory: journal)
            #expect(resumed.files == clean.files, "a resumed extraction writes the same bytes")
            #expect(
                again.requests < clean.pages,
                "resumed after \(failedRequests) requests: \(again.requests) requests, a clean run needs \(clean.pages)"
            )
        }
    }

    /// Runs of hidden records longer than a page (keyset pages come back empty while visible records
    /// follow) and pages the "instance" gives up on above a size: every visible record is exported once,
    /// the bytes do not depend on the concurrency, and the hidden-record figure is exact.
    @Test func hiddenRunsAndCancelledPagesLoseNoVisibleRecord() async throws {
        try await withScratchDirectory { (directory: String) in
            let source = ScriptedPageSource(count: 1_200, skew: true, hiddenRuns: (fraction: 0.6, run: 120))
            let visible = source.visible
            try #require(visible.count > 100 && visible.count < 1_100, "\(visible.count) visible")
            source.cancelPages(above: 20)
            let one = try await Self.export(source, concurrency: 1, directory: directory)
            let csv = try await SinkTestSupport.pythonCSV(try #require(one.files["incident.csv"]))
            #expect(csv.dropFirst().map { $0[0] } == visible.map(\.sysID), "every visible record once, in sys_id order")
            #expect(one.hidden == source.records.count - visible.count)
            #expect(one.pageSizeReductions >= 1, "pages of 50 were cancelled and retried smaller")
            #expect(source.cancelled >= 1)
            for concurrency in [8] {
                let many = try await Self.export(source, concurrency: concurrency, directory: directory)
                for (name, bytes) in one.files {
                    #expect(
                        many.files[name] == bytes, "\(name) at concurrency \(concurrency) differs from concurrency 1")
                }
                #expect(many.hidden == one.hidden, "concurrency \(concurrency)")
            }
        }
    }

    /// A page the instance keeps giving up on is halved down to the floor (50 → 25 → 12 → 6 → 3) and
    /// asked there up to three more times: seven cancellations in a row are survived, eight fail the
    /// table with the instance's error.
    @Test func aPageCancelledAtTheFloorIsAskedAgainThenFails() async throws {
        try await withScratchDirectory { (directory: String) in
            let survived = ScriptedPageSource(count: 200)
            survived.cancelNext(7)
            let export = try await Self.export(survived, concurrency: 1, directory: directory)
            let csv = try await SinkTestSupport.pythonCSV(try #require(export.files["incident.csv"]))
            #expect(csv.dropFirst().map { $0[0] } == survived.records.map(\.sysID))
            #expect(survived.cancelled == 7)
            #expect(export.pageSizeReductions == 4, "four halvings, then retries at the floor")

            let failed = ScriptedPageSource(count: 200)
            failed.cancelNext(8)
            await #expect {
                _ = try await Self.export(failed, concurrency: 1, directory: directory + "/failed")
            } throws: { error in
                (error as? NowETLError)?.description.contains("transaction cancelled") == true
            }
            #expect(failed.cancelled == 8)
        }
    }

    /// From a source that sends no `X-Total-Count` (the scripted one never does; ExtractRangeEndTests has
    /// nowsim's), a range without hidden records ends after two counts (beyond the cursor, which decides
    /// the end, and the whole range, for the figure), and the figure is 0.
    @Test func aRangeWithoutHiddenRecordsEndsAfterTwoCounts() async throws {
        try await withScratchDirectory { (directory: String) in
            let source = ScriptedPageSource(count: 300)
            let export = try await Self.export(source, concurrency: 1, partitions: 3, directory: directory)
            #expect(export.hidden == 0)
            #expect(source.counts == 6, "two counts per range")
            #expect(source.requests == export.pages)
        }
    }
}
