extension NowETLCommand {
    /// `nowetl init --instance URL --table T…`: a starter pipeline from the tables' dictionary.
    static func initPipeline(
        _ options: NowETLArguments.InitOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        fail("init is not built yet", code: NowETLExitCode.failed, streams: streams)
    }
}
