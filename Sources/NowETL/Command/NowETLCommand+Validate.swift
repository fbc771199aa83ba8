import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl validate`: exactly the load step of `run`; with `--online` also every check `run` makes
    /// before its first page — the name check against the instance's dictionary (every table), each
    /// migration target's sign-in and pre-flight (``checkTargets(_:runner:tables:logger:streams:)``),
    /// read access to each table and to `sys_audit_delete` (``TableRunning/checkAccess(in:tables:)``),
    /// each database output's connection — and its table order, still without fetching a page or
    /// writing a file. An order other than the pipeline's is printed after the `ok:` line, with the reasons of a
    /// computed one (`  incident after sys_user (caller_id)`); a pipeline's `order:` offline too.
    static func validate(
        _ pipeline: String, online: Bool, overrides: PipelineOverrides, environment: [String: String],
        streams: CommandStreams, makeTableRunner: TableRunnerFactory
    ) async throws(Exit) -> Int32 {
        let start = try prologue(
            pipeline, overrides: overrides, tables: [], logLevel: .error, environment: environment, streams: streams)
        let (located, configuration, logger) = (start.located, start.configuration, start.logger)
        var checked = ""
        var order: TableOrder?
        var findings: [String] = []
        if online {
            let runner: any TableRunning
            do {
                runner = try makeRunner(
                    configuration, makeTableRunner: makeTableRunner, logger: logger, streams: streams)
            } catch {
                return error.code
            }
            if let exit = await checkNames(located, runner: runner, tables: [], logger: logger, streams: streams) {
                return exit.code
            }
            checked = "; names checked against the dictionary of \(configuration.source.instance.absoluteString)"
            let preflight = await checkTargets(
                configuration, runner: runner, tables: [], logger: logger, streams: streams)
            if let exit = preflight.exit { return exit.code }
            findings = preflight.findings.map { "\($0.target): \($0.line)" }
            // The pre-flight signed in to each target and read each table there: its credentials work.
            for case .instance(let output) in configuration.outputs {
                checked += "; signed in to the target \(output.connection.instance.absoluteString), pre-flight run"
            }
            // What run would otherwise find out only when it gets there: sys_audit_delete, the databases.
            do {
                try await runner.checkAccess(in: configuration, tables: [])
                for output in configuration.outputs {
                    guard let database = output.fileSinkSpec(outputDirectory: configuration.outputDirectory).database
                    else { continue }
                    if let name = try await database.probe() { checked += "; connected to \(name)" }
                }
            } catch {
                return fail(error, logger: logger, streams: streams)
            }
            do {
                order = try await PipelineRun.tableOrder(
                    for: configuration, tables: configuration.tables.map(\.table), runner: runner)
            } catch {
                return fail(error, logger: logger, streams: streams)
            }
        } else if let explicit = configuration.order {
            order = .explicit(explicit, selecting: configuration.tables.map(\.table))
        }
        let tables = configuration.tables.count
        let outputs = configuration.outputs.count
        streams.standardOutput(
            "ok: \(tables) table\(tables == 1 ? "" : "s"), \(outputs) output\(outputs == 1 ? "" : "s")\(checked)\n")
        // What the pre-flight found and the outputs allow (warn, accept): said all the same.
        if !findings.isEmpty {
            streams.standardOutput(findings.map { "pre-flight: " + $0 }.joined(separator: "\n") + "\n")
        }
        // The order matters only when it is not the pipeline's: say which, and why.
        if let order, order.basis != .pipeline {
            streams.standardOutput(order.explanation.joined(separator: "\n") + "\n")
        }
        return NowETLExitCode.ok
    }
}
