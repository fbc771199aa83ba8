import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// Names checked against nowsim's dictionary before the first page (`nowetl run`, `nowetl validate
/// --online`): typos are exit 78 with file:line:col and a suggestion, and nothing is written.
@Suite(.timeLimit(.minutes(5))) struct DictionaryNameCheckTests {
    /// Whether the run left anything in the directory besides the pipeline file.
    static func leftovers(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "pipeline.yaml" }.sorted()
    }

    struct TypoCase: Sendable, CustomTestStringConvertible {
        var name: String
        var tableYAML: String
        /// `pipeline.yaml:LINE:COL: error: …` prefix and message fragments expected on stderr.
        var position: String
        var fragments: [String]
        var testDescription: String { name }
    }

    static let typoCases: [TypoCase] = [
        TypoCase(
            name: "misspelt filter field",
            tableYAML: """
                  - table: incident
                    filter: active=true^prioirty=1
                """,
            position: "pipeline.yaml:9:25:",
            fragments: ["unknown field 'prioirty' in tables[0].filter", "did you mean 'priority'?"]),
        TypoCase(
            name: "misspelt field",
            tableYAML: """
                  - table: incident
                    fields: [number, short_descripton]
                """,
            position: "pipeline.yaml:9:22:",
            fragments: [
                "unknown field 'short_descripton' in tables[0].fields[1]",
                "incident (or task, which it extends) has no such field", "did you mean 'short_description'?",
            ]),
        TypoCase(
            name: "misspelt value form of a reference",
            tableYAML: """
                  - table: incident
                    fields: [number, caller_id]
                    display_value: all
                    columns:
                      - { name: number, path: number.value }
                      - { name: caller, path: caller_id.display_valu }
                """,
            position: "pipeline.yaml:13:41:",
            fragments: [
                "unknown field 'display_valu' of 'caller_id.display_valu' in tables[0].columns[1].path",
                "'caller_id' refers to sys_user", "did you mean 'display_value'?",
            ]),
        TypoCase(
            name: "misspelt dot-walk in a filter",
            tableYAML: """
                  - table: incident
                    filter: "caller_id.manger.active=true"
                """,
            position: "pipeline.yaml:9:24:",
            fragments: [
                "unknown field 'manger' of 'caller_id.manger.active' in tables[0].filter", "did you mean 'manager'?",
            ]),
        TypoCase(
            name: "display value under display_value false",
            tableYAML: """
                  - table: incident
                    columns:
                      - { name: state, path: state.display_value }
                """,
            position: "pipeline.yaml:10:36:",
            fragments: ["'state.display_value' in tables[0].columns[0].path is always empty under display_value: false"]
        ),
        TypoCase(
            name: "misspelt table",
            tableYAML: """
                  - table: incidnet
                """,
            position: "pipeline.yaml:8:12:",
            fragments: [
                "table 'incidnet' is not in the instance's sys_db_object (no such table); did you mean 'incident'?"
            ]),
    ]

    @Test(arguments: typoCases) func aTypoIsExit78AtItsPositionWithASuggestionAndNothingIsWritten(_ typo: TypoCase)
        async throws
    {
        let server = try await ETLServers.get()
        let (directory, path) = try TemporaryPipeline.online(tableYAML: typo.tableYAML)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["run", path, "--progress", "off"], environment: TemporaryPipeline.environment(server))
        #expect(code == 78, "\(captured.standardError)")
        let line = try #require(captured.errorLines.first { $0.contains("error:") }, "\(captured.standardError)")
        #expect(line.hasPrefix(directory.appendingPathComponent(typo.position).path), "\(line)")
        for fragment in typo.fragments { #expect(line.contains(fragment), "\(line)") }
        #expect(captured.standardError.contains("nothing was fetched or written"))
        #expect(captured.standardOutput.isEmpty)
        #expect(try Self.leftovers(in: directory) == [])

        // validate --online finds the same problem; plain validate, which asks no instance, does not.
        let (online, onlineStreams) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(online == 78)
        #expect(onlineStreams.errorLines.first { $0.contains("error:") } == line)
        let (offline, _) = await InProcessNowETL.run(
            ["validate", path], environment: TemporaryPipeline.environment(server))
        #expect(offline == 0)
        #expect(try Self.leftovers(in: directory) == [])
    }

    @Test func everyProblemOfAPipelineIsReportedAtOnceInFileOrder() async throws {
        let server = try await ETLServers.get()
        let (directory, path) = try TemporaryPipeline.online(
            tableYAML: """
                  - table: incident
                    filter: active=true^prioirty=1
                    fields: [number, short_descripton, caller_id]
                    display_value: all
                    columns:
                      - { name: number, path: number.value }
                      - { name: caller, path: caller_id.display_valu }
                  - table: problem
                    filter: stat=1
                """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(code == 78, "\(captured.standardError)")
        let positions = captured.errorLines.filter { $0.contains("error:") }.map {
            String($0.dropFirst(directory.path.count + 1).prefix { $0 != " " })
        }
        #expect(
            positions == [
                "pipeline.yaml:9:25:", "pipeline.yaml:10:22:", "pipeline.yaml:14:41:", "pipeline.yaml:16:13:",
            ], "\(captured.standardError)")
        #expect(captured.standardError.contains("4 names are not in the instance's dictionary"))
        #expect(try Self.leftovers(in: directory) == [])
    }

    static let validTable = """
          - table: incident
            filter: active=true^caller_id.active=true^ORpriority<=2^ORDERBYnumber
            fields: [number, short_description, caller_id, caller_id.manager.name, assignment_group.name, sys_class_name]
            display_value: all
            columns:
              - { name: sys_id, path: sys_id.value }
              - { name: number, path: number.value }
              - { name: caller, path: caller_id.display_value }
              - { name: caller_link, path: caller_id.link }
              - { name: manager, path: caller_id.manager.name.display_value }
              - { name: group, path: assignment_group.name }
              - { name: class, path: sys_class_name.value }
        """

    @Test func inheritedFieldsDotWalksAndValueFormsPassAndTheRunExports() async throws {
        let server = try await ETLServers.get()
        // ORDERBY is refused at load (rows come in sys_id order); the check itself reads sort fields too.
        let (directory, path) = try TemporaryPipeline.online(
            tableYAML: Self.validTable.replacingOccurrences(of: "^ORDERBYnumber", with: ""))
        defer { try? FileManager.default.removeItem(at: directory) }
        let (online, onlineStreams) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(online == 0, "\(onlineStreams.standardError)")
        #expect(onlineStreams.standardOutput.hasPrefix("ok: 1 table, 1 output; names checked against"))
        #expect(try Self.leftovers(in: directory) == [])
        let (code, captured) = await InProcessNowETL.run(
            ["run", path, "--progress", "off"], environment: TemporaryPipeline.environment(server))
        #expect(code == 0, "\(captured.standardError)")
        let csv = try String(contentsOfFile: directory.appendingPathComponent("out/incident.csv").path, encoding: .utf8)
        #expect(csv.hasPrefix("sys_id,number,caller,caller_link,manager,group,class"))
        #expect(csv.split(whereSeparator: \.isNewline).count > 1)
    }

    @Test func sortFieldsAreCheckedToo() async throws {
        let server = try await ETLServers.get()
        let sorted = try TableConfiguration(table: "incident", filter: "active=true^ORDERBYnumbr")
        let problems = try await DictionaryNameCheck(
            discovery: FieldDiscovery(service: IncidentEdits.service(server))
        ).problems(in: sorted, at: 0)
        #expect(problems.count == 1)
        #expect(problems.first?.place == .filter)
        #expect(problems.first?.utf8Offset == 19)
        #expect(problems.first?.message.contains("did you mean 'number'?") == true)
    }

    /// Tags, catalog variables and walks into a child class are resolved by the instance, not through
    /// sys_dictionary: they pass, while a misspelt field beside them is still found.
    @Test func pathsTheInstanceResolvesOutsideTheDictionaryPass() async throws {
        let server = try await ETLServers.get()
        let table = try TableConfiguration(
            table: "task",
            filter: "sys_tags.0123456789abcdef0123456789abcdef=0123456789abcdef0123456789abcdef"
                + "^ref_incident.caller_id.user_nameSTARTSWITHa^variables.requested_for=x^prioirty=1")
        let problems = try await DictionaryNameCheck(
            discovery: FieldDiscovery(service: IncidentEdits.service(server))
        ).problems(in: table, at: 0)
        #expect(problems.count == 1, "\(problems.map(\.message))")
        #expect(problems.first?.message.contains("did you mean 'priority'?") == true)
    }

    @Test func aUserWhoMayNotReadTheDictionaryGetsExit77AndAClearMessage() async throws {
        let server = try await ETLServers.get(fault: "status:code=403,table=sys_dictionary")
        let (directory, path) = try TemporaryPipeline.online(tableYAML: "  - table: incident\n    fields: [number]\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["validate", path, "--online"], ["run", path, "--progress", "off"]] {
            let (code, captured) = await InProcessNowETL.run(
                arguments, environment: TemporaryPipeline.environment(server))
            #expect(code == 77, "\(captured.standardError)")
            #expect(
                captured.standardError.contains("cannot check the pipeline's names against the instance's dictionary"),
                "\(captured.standardError)")
            #expect(
                captured.standardError.contains("read access to table sys_dictionary: HTTP 403"),
                "\(captured.standardError)")
            #expect(captured.standardError.contains("read ACLs of both allow"))
            #expect(try Self.leftovers(in: directory) == [])
        }
    }

    /// A wrong password is not an ACL: the message says the credentials were refused and points at
    /// `source.auth`, not at read access to the dictionary; the password never appears.
    @Test func refusedCredentialsSayCheckSourceAuth() async throws {
        let server = try await ETLServers.get()
        let (directory, path, _) = try TemporaryPipeline.write(
            "auth",
            PipelineYAML(auth: "{ basic: { user: admin, password: wr0ng-Secret } }", tables: "  - table: incident\n"))
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["validate", path, "--online"], ["run", path, "--progress", "off"], ["preview", path]] {
            let (code, captured) = await InProcessNowETL.run(
                arguments, environment: TemporaryPipeline.environment(server))
            #expect(code == 77, "\(arguments[0]): \(captured.standardError)")
            #expect(
                captured.standardError.contains("the instance refused the credentials of user admin: HTTP 401"),
                "\(captured.standardError)")
            #expect(captured.standardError.contains("check source.auth"))
            #expect(!captured.standardError.contains("read access to"))
            #expect(!captured.standardError.contains("wr0ng-Secret"))
        }
    }

    @Test func theRealBinaryExits78WithThePositionAndWritesNothing() async throws {
        let server = try await ETLServers.get()
        let (directory, _) = try TemporaryPipeline.online(
            tableYAML: "  - table: incident\n    filter: active=true^prioirty=1\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["run", "pipeline.yaml", "--progress", "off"], ["validate", "pipeline.yaml", "--online"]] {
            let result = try await NowETLProcess.run(
                arguments, in: directory, environment: TemporaryPipeline.environment(server)
            )
            .textual
            #expect(result.status == 78, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "pipeline.yaml:9:25: error: unknown field 'prioirty' in tables[0].filter: incident (or task, "
                        + "which it extends) has no such field; did you mean 'priority'?"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try Self.leftovers(in: directory) == [])
        }
        let valid = try await NowETLProcess.run(
            ["validate", "pipeline.yaml"], in: directory, environment: TemporaryPipeline.environment(server)
        ).textual
        #expect(valid.status == 0)
    }

    @Test(arguments: RepositoryPipelines.files) func everyPipelineFileIsValidAgainstNowSimsDictionary(
        _ path: String
    ) async throws {
        let server = try await ETLServers.get()
        // validate --online connects to a database output: the throwaway PostgreSQL stands in for it.
        try await withPostgresDatabase { database in
            try await withScratchDirectory { (secrets: URL) in
                for name in ["sn_password", "target_password"] {
                    try "admin\n".write(to: secrets.appendingPathComponent(name), atomically: true, encoding: .utf8)
                }
                try (database.password + "\n").write(
                    to: secrets.appendingPathComponent("pg_password"), atomically: true, encoding: .utf8)
                // nowsim's default OAuth client (incident-oauth.yaml).
                try "nowsim\n".write(
                    to: secrets.appendingPathComponent("sn_client_secret"), atomically: true, encoding: .utf8)
                let environment = [
                    "SN_INSTANCE": server.baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin",
                    "NOWETL_SECRETS": secrets.path, "PG_URL": database.url,
                    // validate --online checks a migration's target too: the same nowsim.
                    "TARGET_INSTANCE": server.baseURL.absoluteString, "TARGET_USER": "admin",
                ]
                let (code, captured) = await InProcessNowETL.run(
                    ["validate", "--online", path], environment: environment)
                #expect(code == 0, "\(captured.standardError)")
                #expect(captured.standardOutput.contains("names checked against"))
            }
        }
    }

    @Test func eachTablesDictionaryIsReadOnceForTheCheckAndThePlan() async throws {
        try await withNowSim(arguments: ["--seed", "incident=30", "--user", "admin:admin:admin"], logRequests: true) {
            server in
            let (directory, path) = try TemporaryPipeline.online(
                tableYAML: """
                      - table: incident
                        filter: caller_id.active=true^caller_id.manager.active=true
                        fields: [number, caller_id.name, caller_id.manager.name, assignment_group.name]
                        display_value: all
                    """)
            defer { try? FileManager.default.removeItem(at: directory) }
            let (code, captured) = await InProcessNowETL.run(
                ["run", path, "--progress", "off"], environment: TemporaryPipeline.environment(server))
            #expect(code == 0, "\(captured.standardError)")
            // incident (with task), sys_user (caller_id, and again through manager), sys_user_group: one
            // sys_dictionary read each, though the check walks sys_user three times and the plan
            // (display_value: all) asks for incident's fields again.
            let reads = server.requestLog.filter { $0.contains(" GET /api/now/table/sys_dictionary?") }
            #expect(reads.count == 3, "\(reads.joined(separator: "\n"))")
        }
    }
}
