import Foundation
import Synchronization
import Testing

@testable import NowETL

/// The pipeline's `order:`: its names checked at load with file:line:col, and the order a run then
/// uses without asking the runner for one.
@Suite(.timeLimit(.minutes(2))) struct ConfigTableOrderTests {
    /// Lines 1–10: version, source, three tables and a CSV output; `order:` (if any) is line 11.
    static func pipeline(order: String) -> String {
        """
        version: 1
        source:
          instance: https://acme.service-now.com
          auth: { basic: { user: etl, password: secret } }
        tables:
          - table: incident
          - table: sys_user
          - table: sys_user_group
        outputs:
          - csv: { path: "{table}.csv" }
        \(order)

        """
    }

    @Test func anOrderListingEveryTableLoads() throws {
        let configuration = try PipelineLoader.load(
            text: Self.pipeline(order: "order: [sys_user, sys_user_group, incident]"), file: "p.yaml", environment: [:])
        #expect(configuration.order == ["sys_user", "sys_user_group", "incident"])
        let without = try PipelineLoader.load(text: Self.pipeline(order: ""), file: "p.yaml", environment: [:])
        #expect(without.order == nil)
        // No output kind of today writes into an instance: no dictionary order is needed.
        #expect(!without.needsDependencyOrder)
    }

    static let errors: [(String, String)] = [
        (
            "order: [sys_user, incidnet, sys_user_group]",
            "p.yaml:11:19: error: order[1] names 'incidnet', which is not a table of the pipeline (its tables are "
                + "incident, sys_user, sys_user_group); did you mean 'incident'?"
        ),
        (
            "order: [sys_user, incident, sys_user, sys_user_group]",
            "p.yaml:11:29: error: 'sys_user' appears twice in order (first as order[0])"
        ),
        (
            "order: [sys_user, incident]",
            "p.yaml:11:8: error: order must list every table of the pipeline, each once; it leaves out "
                + "sys_user_group (add it where it is to be written)"
        ),
        (
            "order: []",
            "p.yaml:11:8: error: order must list every table of the pipeline, each once; it leaves out "
                + "incident, sys_user, sys_user_group (add them where they are to be written)"
        ),
        (
            "order:\n  - sys_user\n  - problem\n  - incident\n  - sys_user_group",
            "p.yaml:13:5: error: order[1] names 'problem', which is not a table of the pipeline (its tables are "
                + "incident, sys_user, sys_user_group)"
        ),
        ("order: sys_user", "p.yaml:11:8: error: "),
    ]

    @Test(arguments: errors) func orderMistakesArePositioned(_ order: String, _ expected: String) {
        do {
            let configuration = try PipelineLoader.load(
                text: Self.pipeline(order: order), file: "p.yaml", environment: [:])
            Issue.record("loaded without an error: \(configuration)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
            #expect(error.exitCode == 78)
        }
    }

    @Test func validateShowsTheOrderOfTheFileWithoutAnInstance() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-order-\(UUID()).yaml").path
        try Self.pipeline(order: "order: [sys_user, sys_user_group, incident]").write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (code, captured) = await InProcessNowETL.run(["validate", path], environment: [:])
        #expect(code == 0, "\(captured.standardError)")
        #expect(
            captured.standardOutput
                == "ok: 3 tables, 1 output\ntable order (from the pipeline's order:): sys_user, sys_user_group, incident\n"
        )
    }

    @Test func theRunFollowsTheOrderWithoutAskingTheRunner() async throws {
        let configuration = try PipelineLoader.load(
            text: Self.pipeline(order: "order: [sys_user, sys_user_group, incident]"), file: "p.yaml", environment: [:])
        let runner = OrderAskingRunner()
        let order = try await PipelineRun.tableOrder(
            for: configuration, tables: configuration.tables.map(\.table), runner: runner)
        #expect(order.tables == ["sys_user", "sys_user_group", "incident"])
        #expect(order.basis == .explicit)
        // --table selects, the order stays.
        let selected = try await PipelineRun.tableOrder(
            for: configuration, tables: ["incident", "sys_user"], runner: runner)
        #expect(selected.tables == ["sys_user", "incident"])
        let run = try PipelineRun(
            configuration: configuration, runner: runner, runID: "r", runStarted: Date(),
            tableFilter: ["incident", "sys_user"], order: selected,
            logger: RunLogger(console: CapturedStreams().console))
        #expect(run.tables.map(\.table) == ["sys_user", "incident"])
        // Without order: and without an instance output, pipeline order, and the runner is not asked.
        var plain = configuration
        plain.order = nil
        let pipelineOrder = try await PipelineRun.tableOrder(
            for: plain, tables: plain.tables.map(\.table), runner: runner)
        #expect(pipelineOrder.tables == ["incident", "sys_user", "sys_user_group"])
        #expect(pipelineOrder.basis == .pipeline)
        #expect(runner.asked.withLock { $0 } == 0)
    }
}

/// A runner whose only job is to count how often the run asks it for a dependency order.
private final class OrderAskingRunner: TableRunning {
    let asked = Mutex(0)

    func run(
        _ table: TableConfiguration, outputs: [FileSinkSpec], context: SinkContext, restart: Bool,
        progress: @escaping @Sendable (TableProgress) -> Void
    ) async throws -> PreparedTable {
        throw CancellationError()
    }

    func dependencyOrder(of tables: [String]) async throws -> TableOrder {
        asked.withLock { $0 += 1 }
        return .pipelineOrder(tables.reversed())
    }
}
