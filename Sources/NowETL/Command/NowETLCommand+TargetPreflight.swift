extension NowETLCommand {
    /// The pre-flight of the pipeline's `instance:` outputs (``TableRunning/checkTargets(in:tables:)``),
    /// before anything is written: when an output's policy refuses what was found, every finding goes
    /// to standard error, then the error line, and the exit code is returned (78); otherwise the
    /// findings are returned — `run` logs them as warnings, `validate --online` prints them.
    static func checkTargets(
        _ configuration: PipelineConfiguration, runner: any TableRunning, tables: [String], logger: RunLogger,
        streams: CommandStreams
    ) async -> (exit: Exit?, findings: [(target: String, line: String)]) {
        let reports: [TargetPreflightReport]
        do {
            reports = try await runner.checkTargets(in: configuration, tables: tables)
        } catch {
            return (failure(error, logger: logger, streams: streams), [])
        }
        let findings = reports.flatMap { report in report.lines.map { (report.target, logger.redact($0)) } }
        guard let refusal = reports.lazy.compactMap(\.refusal).first else { return (nil, findings) }
        for (target, line) in findings {
            if logger.format == .json {
                logger.error(line, [("target", target)])
            } else {
                streams.standardError.writeLine("nowetl: \(target): \(line)")
            }
        }
        return (failure(refusal, logger: logger, streams: streams), findings)
    }
}
