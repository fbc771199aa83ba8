import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The table order against nowsim's seeded dictionary: computed through the real ``TableRunner``
/// (referenced tables first, classes of the task hierarchy, a cycle the dictionary gains), and a
/// pipeline's `order:` shown by `validate --online` and followed by `run`.
@Suite(.timeLimit(.minutes(5))) struct TableOrderOnlineTests {
    static func configuration(_ server: NowSimInstance, tables: [String], order: [String]? = nil) throws
        -> PipelineConfiguration
    {
        let text = PipelineYAML(
            server, outputDirectory: nil, settings: order.map { ["order: [\($0.joined(separator: ", "))]"] } ?? [],
            tables: tables.map { "  - table: \($0)" }.joined(separator: "\n")
        ).text
        return try PipelineLoader.load(text: text, file: "p.yaml", environment: [:])
    }

    @Test func usersAndGroupsComeBeforeIncidents() async throws {
        let server = try await ETLServers.get()
        let tables = ["incident", "sys_user_group", "sys_user"]
        let runner = TableRunner(configuration: try Self.configuration(server, tables: tables))
        let order = try await runner.dependencyOrder(of: tables)
        #expect(order.tables == ["sys_user", "sys_user_group", "incident"])
        #expect(
            order.dependencies.map(\.description) == [
                "sys_user_group after sys_user (manager)",
                "incident after sys_user (assigned_to, caller_id, closed_by, opened_by, resolved_by)",
                "incident after sys_user_group (assignment_group)",
            ])
    }

    @Test func problemsComeBeforeTheIncidentsThatReferenceThem() async throws {
        let server = try await ETLServers.get()
        // incident.problem_id → problem is definite; problem.parent → task (which may be an incident)
        // would close a cycle and is left out; incident.parent → task joins problem_id.
        let tables = ["incident", "problem"]
        let runner = TableRunner(configuration: try Self.configuration(server, tables: tables))
        let order = try await runner.dependencyOrder(of: tables)
        #expect(order.tables == ["problem", "incident"])
        #expect(order.dependencies.map(\.description) == ["incident after problem (parent → task, problem_id)"])
    }

    @Test func aCycleInTheDictionaryIsReportedWithItsTablesAndFields() async throws {
        try await withNowSim(arguments: ["--seed", "incident=5", "--user", "admin:admin:admin"]) { server in
            // sys_user_group.manager → sys_user already; a reference back from sys_user closes a cycle.
            let row =
                #"{"name":"sys_user","element":"u_home_group","internal_type":"reference","reference":"sys_user_group","column_label":"Home group"}"#
            let created = try await server.request("POST", "/api/now/table/sys_dictionary", body: Data(row.utf8))
            #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let tables = ["incident", "sys_user", "sys_user_group"]
            let runner = TableRunner(configuration: try Self.configuration(server, tables: tables))
            let error = await #expect(throws: NowETLError.self) { try await runner.dependencyOrder(of: tables) }
            #expect(error?.context.tables == ["sys_user", "sys_user_group"])
            #expect(
                error?.description.hasPrefix(
                    "the tables sys_user, sys_user_group reference each other in a cycle: "
                        + "sys_user.u_home_group → sys_user_group, then sys_user_group.manager → sys_user; ") == true)
            #expect(error?.exitCode == 78)
            // An explicit order decides instead: the dictionary is not read for it.
            let ordered = try Self.configuration(
                server, tables: tables, order: ["sys_user_group", "sys_user", "incident"])
            let order = try await PipelineRun.tableOrder(
                for: ordered, tables: tables, runner: TableRunner(configuration: ordered))
            #expect(order.tables == ["sys_user_group", "sys_user", "incident"])
        }
    }

    @Test func validateOnlineShowsAnExplicitOrderAndRunFollowsIt() async throws {
        let server = try await ETLServers.get()
        let (directory, path) = try TemporaryPipeline.online(
            tableYAML: """
                  - table: incident
                    fields: [number, caller_id]
                  - table: sys_user
                    fields: [user_name]
                order: [sys_user, incident]
                """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(code == 0, "\(captured.standardError)")
        #expect(
            captured.standardOutput.hasSuffix(
                "names checked against the dictionary of \(server.baseURL.absoluteString)\n"
                    + "table order (from the pipeline's order:): sys_user, incident\n"))
        let (runCode, run) = await InProcessNowETL.run(
            ["run", path, "--progress", "off", "--log-format", "json"],
            environment: TemporaryPipeline.environment(server))
        #expect(runCode == 0, "\(run.standardError)")
        // The tables ran in the order's order: sys_user's table line comes before incident's in the log.
        let lines = run.errorLines
        let user = lines.firstIndex { $0.contains(#""table":"sys_user""#) }
        let incident = lines.firstIndex { $0.contains(#""table":"incident""#) }
        #expect(user != nil && incident != nil)
        #expect((user ?? Int.max) < (incident ?? Int.max), "\(run.standardError)")
        #expect(
            lines.contains {
                $0.contains(#""msg":"table order""#) && $0.contains(#""basis":"explicit""#)
                    && $0.contains(#""tables":"sys_user,incident""#)
            }, "\(run.standardError)")
    }

    /// A migration's tables listed backwards: with an instance output the order is computed from the
    /// dictionary, and `validate --online` shows it with its reasons. (The target is the source itself:
    /// `validate --online` runs the target's pre-flight, so the target must answer.)
    @Test func anInstanceOutputOrdersAMigrationsTablesByTheirReferences() async throws {
        let server = try await ETLServers.get()
        let (directory, path) = try TemporaryPipeline.online(
            tableYAML: """
                  - table: incident
                  - table: sys_user_group
                  - table: sys_user
                """,
            outputYAML: """
                  - instance:
                      instance: ${SN_INSTANCE}
                      auth: { basic: { user: admin, password: admin } }
                """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(code == 0, "\(captured.standardError)")
        #expect(
            captured.standardOutput.contains(": sys_user, sys_user_group, incident\n"), "\(captured.standardOutput)")
        #expect(captured.standardOutput.contains("incident after sys_user ("), "\(captured.standardOutput)")
    }
}
