import Foundation
import NowETL
import Synchronization
import Testing

/// The progress line (pure) and the reporter's choice between live line, periodic log lines and nothing.
@Suite(.timeLimit(.minutes(5))) struct ProgressTests {
    @Test func theLineShowsRowsOfTheCountPercentRatePagesAndETA() {
        let line = ProgressLine(table: "incident", count: 50_000, rows: 12_000, pages: 12, elapsed: 4)
        #expect(line.rendered == "incident  12000/50000 rows  24%  3000 rows/s  12 pages  ETA 0:13")
        #expect(line.secondsRemaining == 38_000.0 / 3000)
    }

    @Test func withoutACountOrTimeTheLineLeavesOutWhatItCannotKnow() {
        #expect(ProgressLine(table: "problem").rendered == "problem  0 rows  0 pages")
        #expect(ProgressLine(table: "p", rows: 10, pages: 1, elapsed: 2).rendered == "p  10 rows  5 rows/s  1 page")
        #expect(ProgressLine(table: "p", count: 0, rows: 0, pages: 0, elapsed: 1).fraction == nil)
    }

    @Test func moreRowsThanCountedMeansNoTimeLeftAndAtMostAHundredPercent() {
        let line = ProgressLine(table: "t", count: 100, rows: 120, pages: 2, elapsed: 1)
        #expect(line.secondsRemaining == 0)
        #expect(line.rendered == "t  120/100 rows  100%  120 rows/s  2 pages  ETA 0:00")
    }

    @Test(arguments: [
        (0.0, "0:00"), (0.2, "0:01"), (59, "0:59"), (61, "1:01"), (3599, "59:59"), (3600, "1:00:00"),
        (86_461, "24:01:01"), (.infinity, "0:00"),
    ])
    func durationsAreMinutesAndSecondsOrHours(_ seconds: Double, _ text: String) {
        #expect(ProgressLine.duration(seconds) == text)
    }

    @Test func theLogFieldsCarryTheSameNumbers() {
        let line = ProgressLine(table: "incident", count: 100, rows: 40, pages: 2, elapsed: 2)
        #expect(
            line.logFields.map { "\($0.0)=\($0.1)" } == [
                "table=incident", "rows=40", "count=100", "pages=2",
                "rows_per_second=20", "eta_seconds=3",
            ])
    }

    @Test(arguments: [
        (ProgressMode.auto, true, ProgressReporter.Style.liveLine(redrawInterval: 0.1)),
        (.auto, false, .logLines(interval: 10)), (.on, false, .liveLine(redrawInterval: 0.1)), (.off, true, .off),
    ])
    func theModeAndTheTerminalChooseTheStyle(_ mode: ProgressMode, _ terminal: Bool, _ style: ProgressReporter.Style) {
        #expect(ProgressReporter.style(for: mode, standardErrorIsTerminal: terminal) == style)
    }

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_709_258_400))
        var now: @Sendable () -> Date { { self.time.withLock { $0 } } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    static func pages(_ reporter: ProgressReporter, _ clock: TestClock, count: Int) {
        reporter.begin(table: "incident")
        reporter.handle(.counted(table: "incident", count: 1000))
        for page in 1...count {
            clock.advance(4)
            reporter.handle(.page(table: "incident", rows: 100, totalRows: page * 100, pages: page))
        }
        reporter.handle(.finished(TableSummary(table: "incident", rows: count * 100)))
    }

    @Test func withoutATerminalProgressIsALogLineAtMostEveryInterval() {
        let captured = CapturedStreams()
        let clock = TestClock()
        let logger = RunLogger(console: captured.console, now: clock.now)
        Self.pages(ProgressReporter(style: .logLines(interval: 10), logger: logger, now: clock.now), clock, count: 6)
        // Pages at 4, 8, 12, 16, 20, 24 s: lines at 12 and 24 s.
        #expect(captured.errorLines.count == 2)
        #expect(
            captured.errorLines[0].hasSuffix(
                "msg=progress table=incident rows=300 count=1000 pages=3 rows_per_second=25 eta_seconds=28"))
        #expect(captured.errorLines[1].contains("rows=600"))
        #expect(!captured.standardError.contains("\r"))
    }

    @Test func onATerminalProgressIsOneLineRedrawnInPlaceAndErasedAtTheEnd() {
        let captured = CapturedStreams(isTerminal: true)
        let clock = TestClock()
        let logger = RunLogger(console: captured.console, now: clock.now)
        Self.pages(
            ProgressReporter(style: .liveLine(redrawInterval: 0.1), logger: logger, now: clock.now), clock, count: 2)
        let erase = "\r\u{1B}[K"
        #expect(
            captured.standardError
                == erase + "incident  0/1000 rows  0%  0 pages" + erase
                + "incident  100/1000 rows  10%  25 rows/s  1 page  ETA 0:36"
                + erase + "incident  200/1000 rows  20%  25 rows/s  2 pages  ETA 0:32" + erase)
    }

    @Test func aLogLineWritesAboveTheLiveLine() {
        let captured = CapturedStreams(isTerminal: true)
        let console = captured.console
        console.setStatus("incident  5 rows")
        console.writeLine("time=x level=info msg=hello")
        console.setStatus(nil)
        #expect(
            captured.standardError
                == "\r\u{1B}[Kincident  5 rows\r\u{1B}[Ktime=x level=info msg=hello\nincident  5 rows\r\u{1B}[K")
    }

    @Test func offShowsNothing() {
        let captured = CapturedStreams()
        let clock = TestClock()
        let logger = RunLogger(console: captured.console, now: clock.now)
        Self.pages(ProgressReporter(style: .off, logger: logger, now: clock.now), clock, count: 6)
        #expect(captured.standardError.isEmpty)
    }
}
