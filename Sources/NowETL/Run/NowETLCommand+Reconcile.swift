import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl reconcile`: compares the selected tables of the pipeline's source with its `instance`
    /// output (``PipelineReconciliation``), prints the summary on stdout and writes the JSON report
    /// with `--report`. Exit 0 when every table is equal, 1 when one differs, the failure's code (69,
    /// 75, 77, 78) when it could not finish.
    static func reconcile(
        _ options: NowETLArguments.ReconcileOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        guard let configuration = load(options.pipeline, environment: environment, streams: streams) else {
            return NowETLExitCode.configuration
        }
        let tables: [TableConfiguration]
        do {
            tables = try PipelineRun.selectTables(options.tables, from: configuration)
        } catch {
            streams.standardError.writeLine("nowetl: \(error.description)")
            return error.exitCode
        }
        let target: ReconcileTarget
        do {
            target = try reconcileTarget(of: configuration, pipeline: options.pipeline)
        } catch {
            return fail(String(describing: error), code: NowETLExitCode.code(for: error), streams: streams)
        }
        let logger = RunLogger(
            format: .text, minimumLevel: .warning, secrets: configuration.secretValues + target.secrets,
            console: streams.standardError)
        let reconciliation = PipelineReconciliation(
            configuration: configuration, target: target.service, tables: tables, secrets: target.secrets,
            transportEvents: { logger.log($0, table: nil) })
        let report = await reconciliation.run()
        streams.standardOutput(logger.redact(report.text()))
        var exitCode = report.exitCode
        if let path = options.report {
            do {
                try report.write(toFile: path)
            } catch {
                streams.standardError.writeLine(logger.redact("nowetl: cannot write the report \(path): \(error)"))
                if exitCode == NowETLExitCode.ok { exitCode = NowETLExitCode.failed }
            }
        }
        return exitCode
    }

    /// The instance `nowetl reconcile` compares the source with, and the secrets of its sign-in (kept
    /// out of every message and the report).
    struct ReconcileTarget: Sendable {
        /// The target's client.
        var service: NowTableService
        /// Its credentials' values.
        var secrets: [String]
    }

    /// The target of `nowetl reconcile`: the pipeline's `instance` output.
    ///
    /// WIRE-UP POINT — the only place that reads the target from the pipeline. The `instance` output
    /// type (its connection settings and the `NowTableService` built from them) is not on this
    /// branch yet; until it is, every pipeline lacks one and this is exit 78.
    ///
    /// - Throws: ``PipelineRunError`` (exit 78) when the pipeline has no `instance` output.
    static func reconcileTarget(of configuration: PipelineConfiguration, pipeline: String) throws(PipelineRunError)
        -> ReconcileTarget
    {
        throw PipelineRunError(
            "\(pipeline): reconcile compares the source with the pipeline's instance output "
                + "(outputs: - instance: …), and the pipeline has none",
            exitCode: NowETLExitCode.configuration)
    }
}
