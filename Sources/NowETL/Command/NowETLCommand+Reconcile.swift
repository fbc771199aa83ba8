import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl reconcile`: compares the selected tables of the pipeline's source with its `instance`
    /// output (``PipelineReconciliation``), prints the summary on stdout and writes the JSON report
    /// with `--report`. Exit 0 when every table is equal, 1 when one differs, the failure's code (69,
    /// 75, 77, 78) when it could not finish.
    static func reconcile(
        _ options: NowETLArguments.ReconcileOptions, environment: [String: String], streams: CommandStreams
    ) async throws(Exit) -> Int32 {
        let start = try prologue(
            options.pipeline, overrides: options.overrides, tables: options.tables, logLevel: .warning,
            environment: environment, streams: streams)
        let (configuration, tables, logger) = (start.configuration, start.tables, start.logger)
        let target: ReconcileTarget
        let maps: ReconcileMaps?
        do {
            target = try reconcileTarget(
                of: configuration, pipeline: options.pipeline, events: { logger.log($0, table: nil) })
            // A coalescing output: the maps of the last committed migration pair its records.
            maps = try ReconcileMaps.committed(
                matching: target.matching, outputDirectory: configuration.outputDirectory)
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        var reconciliation = PipelineReconciliation(
            configuration: configuration, target: target.service, tables: tables, secrets: target.secrets,
            transportEvents: { logger.log($0, table: nil) })
        reconciliation.maps = maps
        let report = await reconciliation.run()
        streams.standardOutput(logger.redact(report.text()))
        var exitCode = report.exitCode
        if let path = options.report {
            do {
                try report.write(toFile: path)
            } catch {
                streams.standardError.writeLine(
                    logger.redact(NowETLError.text(of: error, after: "nowetl: cannot write the report \(path)")))
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
        /// The output's matching rules (`coalesce:` and the rest).
        var matching = InstanceMatching()
    }

    /// The target of `nowetl reconcile`: the pipeline's `instance` output, reached with its connection
    /// settings (sign-in, timeouts, retries, TLS, proxy) through ``InstanceOutputConfiguration/serviceConfiguration(eventHandler:)``,
    /// its transport events (retries, slow requests) going to `events`.
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/configuration``, exit 78) when the pipeline has no `instance` output, or several
    ///   (which one to compare with would be a guess).
    static func reconcileTarget(
        of configuration: PipelineConfiguration, pipeline: String,
        events: (@Sendable (TransportEvent) -> Void)? = nil
    ) throws(NowETLError) -> ReconcileTarget {
        let outputs = configuration.outputs.compactMap { output -> InstanceOutputConfiguration? in
            if case .instance(let instance) = output { return instance }
            return nil
        }
        guard let output = outputs.first else {
            throw NowETLError(
                .configuration,
                "\(pipeline): reconcile compares the source with the pipeline's instance output "
                    + "(outputs: - instance: …), and the pipeline has none")
        }
        guard outputs.count == 1 else {
            let targets = outputs.map(\.connection.instance.absoluteString).joined(separator: ", ")
            throw NowETLError(
                .configuration,
                "\(pipeline): reconcile compares the source with one instance output, and the pipeline has "
                    + "\(outputs.count) (\(targets)); keep one in a copy of the pipeline for each")
        }
        // The target's pages are the source's size (the walks go in lockstep): the same bound on an answer.
        var service = output.serviceConfiguration(eventHandler: events)
        service.maximumResponseBytes = configuration.source.maximumResponseBytes
        return ReconcileTarget(
            service: NowTableService(configuration: service), secrets: output.connection.secretValues,
            matching: output.options.matching)
    }
}
