import Foundation
import NowSimTesting
import Synchronization
import Testing

@testable import NowETL

/// `source.retry` and the log lines of retries and slow requests: `nowetl run` and `preview` in process
/// (the real extractor) against a real nowsim whose faults the tests switch at run time.
///
/// The suite owns its nowsim (120 incidents, the user `etl`), so its tests run one after another. No
/// assertion is about time: a maintenance window is ended by the test after it saw the retries, and a
/// budget shows in the attempts it allowed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RunRetryLogTests {
    static let password = "Etl-Secret-9"
    static let arguments = [
        "--seed", "incident=120", "--seed-value", "5", "--user", "etl:\(password):admin", "--user", "admin:admin:admin",
    ]

    let server: NowSimInstance

    init() async throws {
        server = try await NowSimInstance.shared(arguments: Self.arguments)
    }

    /// Standard error as lines, with a stream of the lines that contain `signal`.
    final class WatchedStreams: Sendable {
        private let text = Mutex("")
        let signals: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        let signal: String

        init(signal: String = "retrying a request") {
            (signals, continuation) = AsyncStream<Void>.makeStream()
            self.signal = signal
        }

        var lines: [String] { text.withLock { $0 }.split(separator: "\n").map(String.init) }

        /// Ends ``signals`` (the run is over).
        func finish() { continuation.finish() }

        var streams: CommandStreams {
            CommandStreams(
                standardOutput: { _ in },
                standardError: Console { chunk in
                    self.text.withLock { $0 += chunk }
                    if chunk.contains(self.signal) { self.continuation.yield() }
                }, standardErrorIsTerminal: false)
        }
    }

    /// A pipeline file in a fresh directory, with `source` lines added.
    struct Pipeline {
        let directory: URL
        var path: String { directory.appendingPathComponent("pipeline.yaml").path }

        init(source: String, concurrency: Int = 1) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "nowetl-retry-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let text = PipelineYAML(
                auth: PipelineYAML.etlAuth,
                source: ["concurrency: \(concurrency)"] + source.split(separator: "\n").map(String.init),
                outputDirectory: directory.appendingPathComponent("out").path,
                tables: "  - table: incident\n    fields: [number]"
            ).text
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    var environment: [String: String] { ["SN_INSTANCE": server.baseURL.absoluteString, "SN_PASSWORD": Self.password] }

    /// The value of `key` in a text log line (unquoted), if present.
    static func field(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: " \(key)=") else { return nil }
        let rest = line[range.upperBound...]
        if rest.hasPrefix("\"") {
            return rest.dropFirst().split(separator: "\"", maxSplits: 1).first.map(String.init) ?? ""
        }
        return rest.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
    }

    /// Runs `command` (with `arguments` after the pipeline's path) on a ``Pipeline`` of `source` settings
    /// and `concurrency` while the server has `faults` in force: the exit code and the log's lines.
    func run(
        source: String, concurrency: Int = 1, faults: [String], command: String = "run",
        arguments: [String] = ["--progress", "off"]
    ) async throws -> (exit: Int32, lines: [String]) {
        let pipeline = try Pipeline(source: source, concurrency: concurrency)
        defer { pipeline.remove() }
        let watched = WatchedStreams()
        let environment = self.environment
        let exit = try await server.withFaults(faults) {
            await NowETLCommand.main(
                [command, pipeline.path] + arguments, environment: environment, streams: watched.streams)
        }
        return (exit, watched.lines)
    }

    /// ``run(source:concurrency:faults:command:arguments:)``, which must exit 75: the log's lines and its
    /// `table failed` line.
    func runThatFailsWith75(
        source: String, faults: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (lines: [String], failed: String) {
        // At debug level: the retry lines carry the URL, which tells the count from the pages.
        let (exit, lines) = try await run(
            source: source, faults: faults, arguments: ["--progress", "off", "--log-level", "debug"])
        #expect(exit == 75, "\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
        let failed = try #require(lines.first { $0.contains("msg=\"table failed\"") }, sourceLocation: sourceLocation)
        return (lines, failed)
    }

    static func retryLines(_ lines: [String], path: String = "/api/now/table/incident") -> [String] {
        lines.filter { $0.contains("msg=\"retrying a request\"") && ($0.contains(path)) }
    }

    @Test func aMaintenanceWindowIsWaitedOutAndEveryRetryIsALogLine() async throws {
        let pipeline = try Pipeline(
            source: "page_size: 1000\nretry: { attempts: 1000, max_wait_seconds: 0.2, total_seconds: 240 }")
        defer { pipeline.remove() }
        // Signalled by a warning: a request (the count or the page, which go side by side) retried more
        // than RunLogger.retriesLoggedAtInfo times.
        let watched = WatchedStreams(signal: "level=warning msg=\"retrying a request\"")
        try await server.setFaults(["status:code=503,table=incident"])
        let environment = self.environment
        let run = Task {
            let code = await NowETLCommand.main(
                ["run", pipeline.path, "--progress", "off"], environment: environment, streams: watched.streams)
            watched.finish()
            return code
        }
        // The window ends once some request has been retried long enough to warn.
        var seen = 0
        for await _ in watched.signals {
            seen += 1
            break
        }
        try await server.setFaults([])
        let exit = await run.value
        #expect(seen == 1, "the run ended before a retry warned")
        let lines = watched.lines
        #expect(exit == 0, "\(lines.joined(separator: "\n"))")
        let retries = lines.filter { $0.contains("msg=\"retrying a request\"") }
        #expect(retries.count > RunLogger.retriesLoggedAtInfo)
        for line in retries {
            #expect(Self.field("table", in: line) == "incident", "\(line)")
            #expect(Self.field("method", in: line) == "GET", "\(line)")
            #expect(Self.field("reason", in: line) == "HTTP 503", "\(line)")
            // The URL is for --log-level debug (aPermanentlyFailingInstance… shows it there).
            #expect(Self.field("url", in: line) == nil, "\(line)")
            #expect(Double(Self.field("wait_seconds", in: line) ?? "") != nil, "\(line)")
            let attempt = Int(Self.field("attempt", in: line) ?? "") ?? 0
            #expect(attempt >= 2, "\(line)")
            let level = attempt - 1 <= RunLogger.retriesLoggedAtInfo ? "level=info" : "level=warning"
            #expect(line.contains(level), "\(line)")
        }
        // Some request (the count, or the page beside it) kept going long enough to warn.
        #expect(retries.contains { $0.contains("level=warning") })
        #expect(!lines.joined().contains(Self.password))
        let finished = try #require(lines.first { $0.contains("msg=\"table finished\"") })
        #expect(Self.field("rows", in: finished) == "120", "\(finished)")
    }

    @Test func aPermanentlyFailingInstanceFailsWithExit75WhenTheBudgetIsSpent() async throws {
        let (lines, failed) = try await runThatFailsWith75(
            source: "page_size: 1000\nretry: { attempts: 1000, max_wait_seconds: 0.2, total_seconds: 4 }",
            faults: ["status:code=503,table=incident"])
        #expect(Self.field("exit_code", in: failed) == "75")
        let error = Self.field("error", in: failed) ?? ""
        #expect(error.contains("HTTP 503"), "\(failed)")
        // The count goes first, beside the pages; it failed after its budget and the table failed with
        // it (the pages, which retried beside it, were stopped), not after a second budget.
        #expect(error.contains("counting the records"), "\(failed)")
        // The count's attempts, from the error, match its retry lines: the budget ended them, long
        // before the 1000 attempts (which would take minutes of waits up to 0.2 s). An error after a
        // single attempt names no count.
        let attempts = Self.attempts(in: error) ?? 1
        #expect(attempts < 1000, "\(failed)")
        let countRetries = Self.retryLines(lines, path: "/api/now/stats/incident")
        #expect(countRetries.count == attempts - 1, "\(countRetries.joined(separator: "\n"))")
        #expect(countRetries.compactMap { Self.field("attempt", in: $0) } == (1..<attempts).map { String($0 + 1) })
    }

    @Test func aPageRefusedFailsTheTableAtOnceWhileItsCountIsStillRetrying() async throws {
        // The pages are refused (403: no retry); the count beside them keeps getting 503s with a budget
        // of minutes. The refusal is the table's failure, at once: the count is stopped, not waited for.
        let (exit, lines) = try await run(
            source: "page_size: 1000\nretry: { attempts: 1000, max_wait_seconds: 0.2, total_seconds: 600 }",
            faults: ["status:code=403,table=incident,api=table", "status:code=503,table=incident,api=stats"])
        #expect(exit == 77, "\(lines.joined(separator: "\n"))")
        let failed = try #require(lines.first { $0.contains("msg=\"table failed\"") }, "\(lines)")
        let error = Self.field("error", in: failed) ?? ""
        #expect(error.contains("403"), "\(failed)")
        #expect(!error.contains("counting the records"), "\(failed)")
    }

    @Test func aCountThatFailsAfterEveryPageIsInOnlyLeavesTheSourceCountOut() async throws {
        // The count (the Aggregate API) answers 503 after 5 s, with no retry; the pages are in long
        // before. The table is whole: it only lacks the figure the count would have given.
        let (exit, lines) = try await run(
            source: "page_size: 1000\nretry: { attempts: 1 }",
            faults: ["delay:ms=5000,table=incident,api=stats", "status:code=503,table=incident,api=stats"])
        #expect(exit == 0, "\(lines.joined(separator: "\n"))")
        let finished = try #require(lines.first { $0.contains("msg=\"table finished\"") }, "\(lines)")
        #expect(Self.field("rows", in: finished) == "120", "\(finished)")
        #expect(Self.field("source_count", in: finished) == nil, "\(finished)")
    }

    @Test func theAttemptLimitEndsThePageRetries() async throws {
        // The count (the Aggregate API) is answered; every page request (the Table API) gets 503.
        let (lines, failed) = try await runThatFailsWith75(
            source: "page_size: 1000\nretry: { attempts: 3, max_wait_seconds: 0.1, total_seconds: 600 }",
            faults: ["status:code=503,table=incident,api=table"])
        #expect(Self.field("error", in: failed)?.contains("fetching a page") == true, "\(failed)")
        #expect(Self.attempts(in: Self.field("error", in: failed) ?? "") == 3, "\(failed)")
        #expect(Self.retryLines(lines, path: "/api/now/stats/incident").isEmpty)
        let pageRetries = Self.retryLines(lines)
        #expect(pageRetries.compactMap { Self.field("attempt", in: $0) } == ["2", "3"])
        // Under --log-level debug the URLs are there: in the retry lines, and beside the error line,
        // which names only the method and the table.
        let base = server.baseURL.absoluteString + "/api/now/table/incident?"
        #expect(pageRetries.allSatisfy { Self.field("url", in: $0)?.hasPrefix(base) == true }, "\(pageRetries)")
        let request = try #require(lines.first { $0.contains("msg=\"the failed request\"") }, "\(lines)")
        #expect(Self.field("url", in: request)?.hasPrefix(base) == true, "\(request)")
        #expect(request.contains("level=debug") && Self.field("table", in: request) == "incident")
        let error = Self.field("error", in: failed) ?? ""
        #expect(error.contains("HTTP 503 for GET table incident (3 attempts)"), "\(failed)")
        #expect(!error.contains(server.baseURL.absoluteString), "\(failed)")
        #expect(pageRetries.allSatisfy { $0.contains("level=info") }, "the first two retries are info")
    }

    @Test func aSlowRequestIsAWarningLine() async throws {
        let (exit, lines) = try await run(
            source: "page_size: 1000\ntimeout_seconds: 60\nslow_request_seconds: 1",
            faults: ["delay:ms=2500,table=incident"])
        #expect(exit == 0, "\(lines.joined(separator: "\n"))")
        let slow = lines.filter { $0.contains("msg=\"request has no answer yet\"") }
        #expect(!slow.isEmpty, "\(lines.joined(separator: "\n"))")
        for line in slow {
            #expect(line.contains("level=warning"), "\(line)")
            #expect(Self.field("table", in: line) == "incident")
            #expect(Self.field("attempt", in: line) == "1")
            #expect(Self.field("method", in: line) == "GET")
            #expect(Self.field("url", in: line) == nil, "the URL is for --log-level debug: \(line)")
            #expect((Int(Self.field("waited_seconds", in: line) ?? "") ?? 0) >= 1, "\(line)")
        }
    }

    @Test func rateLimitRetriesAreLoggedAndStillLowerTheConcurrency() async throws {
        let (exit, lines) = try await run(
            source: "page_size: 20", concurrency: 2, faults: ["rate-limit:every=3,retry-after=0,table=incident"])
        #expect(exit == 0, "\(lines.joined(separator: "\n"))")
        let throttled = lines.filter { $0.contains("msg=\"retrying a request\"") && $0.contains("reason=\"HTTP 429\"") }
        #expect(!throttled.isEmpty)
        let finished = try #require(lines.first { $0.contains("msg=\"table finished\"") })
        #expect(Self.field("lowest_concurrency", in: finished) == "1", "the limiter still sees the 429s: \(finished)")
        #expect(Self.field("rows", in: finished) == "120")
    }

    @Test func previewLogsItsRetries() async throws {
        let (exit, lines) = try await run(
            source: "retry: { attempts: 10, max_wait_seconds: 0.1, total_seconds: 60 }",
            faults: ["status:code=502,every=2,table=incident"], command: "preview", arguments: ["--rows", "3"])
        #expect(exit == 0, "\(lines.joined(separator: "\n"))")
        let retries = lines.filter { $0.contains("msg=\"retrying a request\"") }
        #expect(!retries.isEmpty, "\(lines.joined(separator: "\n"))")
        #expect(retries.allSatisfy { $0.contains("reason=\"HTTP 502\"") && $0.contains("table=incident") })
    }

    /// `N` of `N attempts` in an error text.
    static func attempts(in text: String) -> Int? {
        guard let range = text.range(of: " attempts") else { return nil }
        let digits = text[..<range.lowerBound].reversed().prefix { $0.isNumber }
        return Int(String(digits.reversed()))
    }
}
