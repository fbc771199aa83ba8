import Foundation
import NowETL
import NowSimTesting
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

    @Test func jsonLinesWriteNumbersAsNumbersAndBooleansAsBooleans() async throws {
        let captured = CapturedStreams()
        let logger = RunLogger(
            format: .json, secrets: ["hunter2-long"], console: captured.console, now: { Self.time })
        logger.info(
            "table finished",
            [
                ("table", "incident"), ("rows", 2000), ("outputs", 2), ("exit_code", Int32(78)), ("resumed", true),
                ("deletes", false), ("seconds", LogValue.decimal("1.25")), ("not_a_number", LogValue.decimal("1.")),
                ("text_of_digits", "0012"), ("error", "login hunter2-long failed"),
            ])
        let rows = try await SinkTestSupport.pythonJSON(Data(captured.standardError.utf8), array: false)
        #expect(
            rows == [
                [
                    ["time", "str", "2024-03-01T02:00:04Z"], ["level", "str", "info"],
                    ["msg", "str", "table finished"],
                    ["table", "str", "incident"], ["rows", "int", "2000"], ["outputs", "int", "2"],
                    ["exit_code", "int", "78"], ["resumed", "bool", "true"], ["deletes", "bool", "false"],
                    ["seconds", "float", "1.25"], ["not_a_number", "str", "1."], ["text_of_digits", "str", "0012"],
                    ["error", "str", "login <redacted> failed"],
                ]
            ])
    }

    /// A time that is none (not finite, negative) and number text that is no JSON number: `null` in JSON
    /// lines, which Python's `json.loads` reads (strictly: no `NaN`), and `-` in text lines.
    @Test func aNumberThatIsNoneIsNullInJSONAndADashInText() async throws {
        let fields: [(String, any LogFieldValue)] = [
            ("seconds", LogValue.seconds(1.5)), ("nan", LogValue.seconds(.nan)),
            ("infinite", LogValue.seconds(.infinity)), ("negative", LogValue.seconds(-1)),
            ("huge", LogValue.seconds(1e300)), ("raw_nan", LogValue.number("nan")), ("raw_dash", LogValue.number("-")),
            ("raw_secret", LogValue.number("hunter2-long")), ("raw_ok", LogValue.number("-0.5e3")),
        ]
        let json = CapturedStreams()
        RunLogger(format: .json, secrets: ["hunter2-long"], console: json.console, now: { Self.time })
            .info("table finished", fields)
        let rows = try await SinkTestSupport.pythonJSON(Data(json.standardError.utf8), array: false)
        #expect(
            rows.first?.dropFirst(3) == [
                ["seconds", "float", "1.5"], ["nan", "null", ""], ["infinite", "null", ""], ["negative", "null", ""],
                ["huge", "null", ""], ["raw_nan", "null", ""], ["raw_dash", "null", ""], ["raw_secret", "null", ""],
                ["raw_ok", "float", "-500.0"],
            ])
        let text = CapturedStreams()
        RunLogger(secrets: ["hunter2-long"], console: text.console, now: { Self.time }).info("x", fields)
        #expect(
            text.errorLines == [
                "time=2024-03-01T02:00:04Z level=info msg=x seconds=1.5 nan=- infinite=- negative=- huge=- "
                    + "raw_nan=- raw_dash=- raw_secret=- raw_ok=-0.5e3"
            ])
    }

    /// JSON log lines escape text as the JSON sink does (one escaper), and Python reads it back; what
    /// a terminal would act on (DEL, C1 and bidirectional controls) they escape as `\uXXXX` besides.
    @Test func jsonLinesEscapeTextAsTheJSONSinkDoes() async throws {
        let texts = SinkTestSupport.awkwardTexts + ["del \u{7F} bs \u{8} ff \u{C} ls \u{2028}", ""]
        try await withScratchDirectory { (directory: String) in
            let sink = JSONSink(options: try SinkTestSupport.options(directory, "t.jsonl"))
            try await SinkTestSupport.export(
                texts.map { Row(values: [.string($0)]) }, schema: RowSchema(names: ["text"]), into: sink)
            let written = String(decoding: try SinkTestSupport.read(directory + "/t.jsonl"), as: UTF8.self)
                .split(separator: "\n").map { $0.dropFirst("{\"text\":".count).dropLast() }
            #expect(written.count == texts.count)
            let captured = CapturedStreams()
            let logger = RunLogger(format: .json, console: captured.console, now: { Self.time })
            for text in texts { logger.info("m", [("text", text)]) }
            let logged = captured.standardError.split(separator: "\n").map {
                $0.dropFirst(#"{"time":"2024-03-01T02:00:04Z","level":"info","msg":"m","text":"#.count).dropLast()
            }
            #expect(logged.count == texts.count)
            for (index, pair) in zip(logged, written).enumerated() {
                let expected = pair.1.replacingOccurrences(of: "\u{7F}", with: "\\u007f")
                #expect(pair.0 == expected, "text \(index)")
            }
            let rows = try await SinkTestSupport.pythonJSON(Data(captured.standardError.utf8), array: false)
            #expect(rows.map { $0.last ?? [] } == texts.map { ["text", "str", $0] })
        }
    }

    /// OAuth tokens obtained while running (handed over by NowData's credentialObserver) are redacted by
    /// every logger, also one made before the token existed.
    @Test func tokensObtainedWhileRunningAreRedacted() {
        let captured = CapturedStreams()
        let logger = RunLogger(secrets: ["configured-password"], console: captured.console, now: { Self.time })
        let token = "tok-\(UUID().uuidString)"
        RuntimeSecrets.add(token)
        logger.error("the server echoed Bearer \(token)", [("detail", "token=\(token) pw=configured-password")])
        #expect(!captured.standardError.contains(token))
        #expect(!captured.standardError.contains("configured-password"))
        #expect(captured.standardError.contains("Bearer <redacted>"))
    }

    /// Text from an instance cannot drive the terminal: an error text with ESC sequences, C1 controls
    /// and a right-to-left override comes out escaped in text lines, JSON lines (which still read back
    /// as the same text) and plain console lines.
    @Test func terminalControlsInInstanceTextAreEscapedEverywhere() async throws {
        let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J cleared \u{9B}31m red \u{202E}gpj.exe\r\u{8}"
        for format in [LogFormat.text, .json] {
            let captured = CapturedStreams()
            let logger = RunLogger(format: format, console: captured.console, now: { Self.time })
            logger.error("table failed", [("error", hostile)])
            captured.console.writeLine("nowetl: \(hostile)")
            let output = captured.standardError
            for control in ["\u{1B}", "\u{7}", "\u{9B}", "\u{202E}", "\r", "\u{8}"] {
                #expect(!output.contains(control), "\(format): \(control.unicodeScalars.map(\.value))")
            }
            if format == .json {
                let first = String(output.split(separator: "\n")[0])
                let rows = try await SinkTestSupport.pythonJSON(Data((first + "\n").utf8), array: false)
                #expect(rows.first?.last == ["error", "str", hostile])
            }
        }
    }

    @Test func textLinesWriteTypedFieldsAsTheirText() {
        let captured = CapturedStreams()
        let logger = RunLogger(secrets: ["hunter2-long"], console: captured.console, now: { Self.time })
        logger.info(
            "x", [("rows", 2000), ("resumed", true), ("seconds", LogValue.decimal("0.50")), ("e", "hunter2-long")])
        #expect(
            captured.errorLines == [
                "time=2024-03-01T02:00:04Z level=info msg=x rows=2000 resumed=true seconds=0.50 e=<redacted>"
            ])
    }

    @Test(arguments: [
        ("0", true), ("-0", true), ("12.5", true), ("-1e-7", true), ("2E+3", true), ("1.", false), (".5", false),
        ("012", false), ("+1", false), ("", false), ("1e", false), ("-", false), ("NaN", false), ("1_000", false),
    ])
    func jsonNumberTextFollowsRFC8259(text: String, isNumber: Bool) {
        #expect((LogValue.decimal(text) == .number(text)) == isNumber)
    }
}
