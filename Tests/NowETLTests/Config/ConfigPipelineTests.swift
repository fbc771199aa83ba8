import Foundation
import NowData
import NowETL
import NowSimTesting
import Testing

/// Valid pipeline files decode to exactly the values they say, defaults included.
@Suite(.timeLimit(.minutes(5))) struct ConfigPipelineTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/config")

    /// Loads a pipeline of the incident table into `out` with `outputs` (a flow sequence, or a block that
    /// starts on its own line) and `line` at the top level.
    static func loadIncident(outputs: String, _ line: String = "") throws -> PipelineConfiguration {
        let text = """
            version: 1
            source:
              instance: https://acme.service-now.com
              auth: { basic: { user: etl, password: x } }
            tables: [{ table: incident }]
            output_dir: out
            \(line)
            outputs: \(outputs)

            """
        return try PipelineLoader.load(text: text, file: "p.yaml", environment: [:])
    }

    static let environment = [
        "SN_INSTANCE": "https://acme.service-now.com", "SN_USER": "etl.user", "SN_PASSWORD": "hunter2",
    ]

    @Test func theIssueExampleDecodes() throws {
        let path = Self.fixtures.appendingPathComponent("issue-example.yaml").path
        let pipeline = try PipelineLoader.load(path: path, environment: Self.environment)

        #expect(pipeline.version == 1)
        // Relative to the pipeline file's directory, not to the working directory.
        #expect(pipeline.outputDirectory == Self.fixtures.path + "/out")
        #expect(pipeline.publish == .inPlace)
        #expect(pipeline.source.instance == URL(string: "https://acme.service-now.com")!)
        #expect(pipeline.source.auth == .basic(user: "etl.user", password: Secret("hunter2")))
        #expect(pipeline.source.concurrency == 4)
        #expect(pipeline.source.pageSize == 1000)
        #expect(pipeline.source.timeoutSeconds == 120)
        #expect(pipeline.source.allowInsecureHTTP == false)

        #expect(pipeline.tables.count == 1)
        let incident = try #require(pipeline.table(named: "incident"))
        #expect(incident.filter == "active=true^priority<=2")
        #expect(incident.query == (try EncodedQuery(parsing: "active=true^priority<=2")))
        #expect(incident.query.groups.first?.terms.count == 2)
        #expect(
            incident.fields == ["number", "short_description", "caller_id", "state", "opened_at", "sys_updated_on"])
        #expect(incident.displayValue == .all)
        #expect(incident.displayValue.readOptions == [.actualValues, .displayValues])
        #expect(
            incident.columns == [
                ColumnConfiguration(name: "caller", path: "caller_id.display_value"),
                ColumnConfiguration(name: "caller_sys_id", path: "caller_id.value"),
                ColumnConfiguration(name: "opened", path: "opened_at.value", type: .dateTime),
            ])
        #expect(incident.reject == .fail)

        #expect(pipeline.outputs.map(\.kind) == [.csv, .xml, .json])
        guard case .csv(let csv) = pipeline.outputs[0], case .xml(let xml) = pipeline.outputs[1],
            case .json(let json) = pipeline.outputs[2]
        else {
            Issue.record("outputs in the wrong order: \(pipeline.outputs)")
            return
        }
        #expect(csv.file.path.text == "{table}-{run_date}.csv.gz")
        #expect(csv.file.compression == .gzipDefault && csv.file.split == .none)
        #expect(csv.options.delimiter == "," && csv.options.header && csv.options.nullText == "")
        #expect(!csv.options.byteOrderMark && csv.options.formulaGuard && csv.options.lineEnding == .crlf)  // guard on
        #expect(
            try csv.file.path.resolve(table: "incident", runDate: "2026-11-29", runID: "r1")
                == "incident-2026-11-29.csv.gz")
        #expect(xml.file.path.text == "{table}.xml" && xml.file.compression == .none && xml.options.format == .unload)
        #expect(
            json.file.path.text == "{table}.jsonl.gz" && json.file.compression == .gzipDefault
                && json.options.layout == .lines && !json.options.decimalsAsNumbers)

        // The outputs map to sink specs as they are.
        let spec = pipeline.outputs[0].fileSinkSpec(outputDirectory: pipeline.outputDirectory)
        #expect(spec.format == .csv(csv.options))
        #expect(
            spec.options
                == FileSinkOptions(
                    outputDirectory: Self.fixtures.path + "/out", path: csv.file.path, compression: .gzipDefault,
                    split: .none))
        #expect(pipeline.outputs[1].fileSinkSpec(outputDirectory: "o").format == .xml(XMLSinkOptions(format: .unload)))
        #expect(pipeline.outputs[2].fileSinkSpec(outputDirectory: "o").format == .json(JSONSinkOptions()))
    }

    @Test func everyKeyWithNonDefaultValuesDecodes() throws {
        try withScratchDirectory { (secrets: URL) in
            try "s3cr3t\n".write(to: secrets.appendingPathComponent("client_secret"), atomically: true, encoding: .utf8)

            let pipeline = try PipelineLoader.load(
                path: Self.fixtures.appendingPathComponent("everything.yaml").path,
                environment: ["SECRETS_DIR": secrets.path])

            let source = pipeline.source
            #expect(source.instance == URL(string: "http://127.0.0.1:8080")!)
            #expect(
                source.auth
                    == .oauth(
                        .init(
                            clientID: "nowetl", clientSecret: Secret("s3cr3t"),
                            grant: .password(user: "etl.user", password: Secret("changeme")))))
            #expect(source.concurrency == 8 && source.pageSize == 500 && source.timeoutSeconds == 30.5)
            #expect(pipeline.outputDirectory == Self.fixtures.path + "/exports/nightly")
            #expect(pipeline.fileMode == 0o600)

            let incident = pipeline.tables[0]
            #expect(incident.filter == "active=true^sys_updated_on>=javascript:gs.daysAgoStart(1)")
            #expect(incident.fields == ["number", "caller_id", "opened_at", "sys_id"])
            #expect(incident.displayValue == .display)
            #expect(incident.columns?.map(\.type) == [.string, .dateTime, .string])
            #expect(incident.reject == RejectPolicy(mode: .deadLetter, maximum: 25))
            let user = pipeline.tables[1]
            #expect(user.table == "sys_user" && user.filter == "" && user.query == EncodedQuery())
            #expect(user.fields == nil && user.columns == nil && user.displayValue == .actual)
            #expect(user.reject == RejectPolicy(mode: .skip, maximum: nil, invalidUTF8: .replace))
            #expect(incident.reject.invalidUTF8 == .reject)

            guard case .csv(let csv) = pipeline.outputs[0], case .xml(let xml) = pipeline.outputs[1],
                case .json(let array) = pipeline.outputs[2], case .json(let lines) = pipeline.outputs[3]
            else {
                Issue.record("unexpected outputs: \(pipeline.outputs)")
                return
            }
            #expect(csv.options.delimiter == ";" && !csv.options.header && csv.options.nullText == "NULL")
            #expect(csv.options.byteOrderMark && csv.options.formulaGuard && csv.options.lineEnding == .lf)
            #expect(csv.file.compression == .gzip(level: 9))
            #expect(csv.file.split == .rows(100_000))
            #expect(
                try csv.file.path.resolve(table: "incident", runDate: "2026-11-29", runID: "r-7", part: 12)
                    == "csv/incident-r-7-0012.csv.gz")
            #expect(xml.options.format == .records && xml.file.compression == .none)
            #expect(array.options.layout == .array && array.file.compression == .none)
            #expect(array.file.split == .bytes(1_048_576) && !array.options.decimalsAsNumbers)
            // A split output without {part}: the part number goes before the extension.
            #expect(
                try array.file.path.resolve(table: "incident", runDate: "2026-11-29", runID: "r-7", part: 2)
                    == "json/incident-2026-11-29-0002.json")
            #expect(lines.options.layout == .lines && lines.options.decimalsAsNumbers)
            #expect(lines.file.compression == .gzip(level: 1))
        }
    }

    @Test func secretsNeverPrint() throws {
        let pipeline = try PipelineLoader.load(
            path: Self.fixtures.appendingPathComponent("issue-example.yaml").path, environment: Self.environment)
        #expect(Secret("hunter2").description == "<redacted>")
        for text in [String(describing: pipeline), String(reflecting: pipeline), "\(pipeline.source.auth)"] {
            #expect(!text.contains("hunter2"))
        }
        var dumped = ""
        dump(pipeline, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(pipeline.source.auth.description == "basic(user: etl.user)")
    }

    @Test func loopbackHTTPNeedsNoOptInAndOtherHTTPDoes() throws {
        func load(_ instance: String, allow: Bool) throws(ConfigError) -> PipelineConfiguration {
            try PipelineLoader.load(
                text: """
                    version: 1
                    source:
                      instance: \(instance)
                      allow_insecure_http: \(allow)
                      auth: { basic: { user: admin, password: admin } }
                    tables: [{ table: incident }]
                    outputs: [{ csv: { path: "{table}.csv" } }]
                    """, file: "p.yaml", environment: [:])
        }
        #expect(
            try load("http://localhost:8080", allow: false).source.instance.absoluteString == "http://localhost:8080")
        #expect(try load("http://intranet.example", allow: true).source.allowInsecureHTTP)
        #expect(throws: ConfigError.self) { try load("http://intranet.example", allow: false) }
        #expect(try load("HTTPS://Acme.Service-Now.com/", allow: false).source.instance.scheme == "https")
    }

    @Test(arguments: [
        "http://127.attacker.example", "http://127.0.0.1.nip.io:8080", "http://127.1", "http://localhost.example",
    ])
    func plainHTTPToANameThatLooksLoopbackIsRefused(instance: String) throws {
        let text = """
            version: 1
            source:
              instance: \(instance)
              auth: { basic: { user: admin, password: admin } }
            tables: [{ table: incident }]
            outputs: [{ csv: { path: "{table}.csv" } }]
            """
        #expect {
            try PipelineLoader.load(text: text, file: "p.yaml", environment: [:])
        } throws: { error in
            "\(error)".contains("plain http") && "\(error)".contains("p.yaml:3:")
        }
        for loopback in ["http://127.0.0.1:8080", "http://127.255.0.9", "http://[::1]:8080"] {
            let text = text.replacingOccurrences(of: instance, with: loopback)
            #expect(throws: Never.self) { try PipelineLoader.load(text: text, file: "p.yaml", environment: [:]) }
        }
    }

    @Test func pathTemplatesRenderAndConfine() throws {
        let template = try OutputPathTemplate("daily/{run_date}/{table}-{run_id}.csv")
        #expect(template.segments.count == 7)
        #expect(template.contains(.table) && template.contains(.runDate) && !template.contains(.part))
        #expect(
            try template.resolve(table: "incident", runDate: "2026-11-29", runID: "abc")
                == "daily/2026-11-29/incident-abc.csv")
        #expect(try OutputPathTemplate(".a..b/{table}...csv").text == ".a..b/{table}...csv")
        // One spelling per file: even '..' that stays inside output_dir is refused.
        for bad in [
            "", "/abs/{table}", "{table}/", "../x", "./../x", "a/../{table}.csv", "{table", "x}", "{TABLE}.csv",
        ] {
            #expect(throws: OutputPathTemplate.ParseError.self, "\(bad)") { try OutputPathTemplate(bad) }
        }
    }

    @Test(arguments: [
        ("publish: { mode: directories, keep: 3 }", PublishConfiguration(mode: .directories, keep: 3)),
        ("publish: { mode: directories }", PublishConfiguration(mode: .directories, keep: 7)),
        ("publish: { mode: in_place }", PublishConfiguration.inPlace),
        ("publish: {}", PublishConfiguration.inPlace),
        ("", PublishConfiguration.inPlace),
    ])
    func publishModeDecodes(line: String, expected: PublishConfiguration) throws {
        let pipeline = try Self.loadIncident(outputs: #"[{ csv: { path: "{table}.csv" } }]"#, line)
        #expect(pipeline.publish == expected)
    }

    @Test(arguments: [("", true), (", formula_guard: true", true), (", formula_guard: false", false)])
    func formulaGuardIsOnUnlessTurnedOff(setting: String, expected: Bool) throws {
        let pipeline = try Self.loadIncident(outputs: #"[{ csv: { path: "{table}.csv""# + setting + " } }]")
        guard case .csv(let csv) = try #require(pipeline.outputs.first) else {
            Issue.record("not a CSV output: \(pipeline.outputs)")
            return
        }
        #expect(csv.options.formulaGuard == expected)
    }

    @Test func dateTimeFormatDecodesOnEveryFileOutput() throws {
        let pipeline = try Self.loadIncident(
            outputs: """

                  - csv: { path: "{table}.csv", datetime_format: iso8601 }
                  - json: { path: "{table}.jsonl", datetime_format: iso8601 }
                  - xml: { path: "{table}.records.xml", format: records, datetime_format: iso8601 }
                  - xml: { path: "{table}.xml" }
                  - csv: { path: "{table}.plain.csv", datetime_format: instance }
                """)
        guard pipeline.outputs.count == 5, case .csv(let csv) = pipeline.outputs[0],
            case .json(let json) = pipeline.outputs[1], case .xml(let records) = pipeline.outputs[2],
            case .xml(let unload) = pipeline.outputs[3], case .csv(let plain) = pipeline.outputs[4]
        else {
            Issue.record("unexpected outputs: \(pipeline.outputs)")
            return
        }
        #expect(csv.options.dateTimeFormat == .iso8601 && json.options.dateTimeFormat == .iso8601)
        #expect(records.options.dateTimeFormat == .iso8601 && unload.options.dateTimeFormat == .instance)
        #expect(plain.options.dateTimeFormat == .instance)
    }
}
