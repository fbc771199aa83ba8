extension PipelineRunResult {
    /// Tells how the run (or shard, or merge) went: the summary table on standard output
    /// (``RunSummaryTable``) and, with `--summary-json PATH`, the ``RunReport``; returns the exit code —
    /// the run's, or 1 when the report could not be written after a run that was ok.
    func report(summaryJSON: String?, logger: RunLogger, streams: CommandStreams) -> Int32 {
        streams.standardOutput(RunSummaryTable.render(self))
        NowETLCommand.FinishedRun.current?.record(self, logger: logger)
        var exitCode = self.exitCode
        if let path = summaryJSON {
            do {
                try RunReport(self, logWritesDropped: streams.droppedWrites()).write(toFile: path)
                logger.info("summary written", [("path", path)])
            } catch {
                logger.error("cannot write the summary JSON", [("path", path), ("error", NowETLError.text(of: error))])
                if exitCode == NowETLExitCode.ok { exitCode = NowETLExitCode.failed }
            }
        }
        return exitCode
    }
}
