import Foundation
import NowETL
import Testing

/// Log lines: key=value text, JSON lines, levels, redaction.
@Suite(.timeLimit(.minutes(5))) struct RunLoggerTests {
    static let time = Date(timeIntervalSince1970: 1_709_258_404)

    @Test func textLinesAreKeyValueWithQuotesWhereNeeded() {
        let line = RunLogger.line(
            format: .text, time: Self.time, level: .info, message: "table finished",
            fields: [
                ("table", "incident"), ("rows", "2000"), ("path", "out/a b.csv"), ("empty", ""),
                ("error", "said \"no\"\nthen = \\ quit"),
            ])
        #expect(
            line == "time=2024-03-01T02:00:04Z level=info msg=\"table finished\" table=incident rows=2000 "
                + "path=\"out/a b.csv\" empty=\"\" error=\"said \\\"no\\\"\\nthen = \\\\ quit\"")
        #expect(
            RunLogger.line(format: .text, time: Self.time, level: .debug, message: "x", fields: [])
                == "time=2024-03-01T02:00:04Z level=debug msg=x")
    }

    @Test func jsonLinesAreOneObjectEachWithStringFields() throws {
        let line = RunLogger.line(
            format: .json, time: Self.time, level: .warning, message: "tab\there \u{1}",
            fields: [("table", "incident"), ("msg", "shadow"), ("text", "日本語 \"q\" \\")])
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(
            object == [
                "time": "2024-03-01T02:00:04Z", "level": "warning", "msg": "tab\there \u{1}", "table": "incident",
                "field.msg": "shadow", "text": "日本語 \"q\" \\",
            ])
        #expect(
            line.hasPrefix("{\"time\":\"2024-03-01T02:00:04Z\",\"level\":\"warning\",\"msg\":\"tab\\there \\u0001\""))
    }

    @Test func linesBelowTheLevelAreDropped() {
        let captured = CapturedStreams()
        let logger = RunLogger(minimumLevel: .warning, console: captured.console, now: { Self.time })
        logger.debug("d")
        logger.info("i")
        logger.warning("w")
        logger.error("e")
        #expect(captured.errorLines.map { $0.components(separatedBy: " ")[1] } == ["level=warning", "level=error"])
    }

    @Test(arguments: LogFormat.allCases) func secretsNeverReachALine(_ format: LogFormat) {
        let captured = CapturedStreams()
        let logger = RunLogger(
            format: format, secrets: ["hunter2-long", "tok"], console: captured.console, now: { Self.time })
        logger.error("login failed with hunter2-long", [("detail", "Authorization: hunter2-long!"), ("t", "tok")])
        #expect(!captured.standardError.contains("hunter2-long"))
        #expect(captured.standardError.components(separatedBy: "<redacted>").count == 3)
        // Shorter than four characters: not treated as a secret (it would garble every line).
        #expect(captured.standardError.contains("tok"))
    }
}
