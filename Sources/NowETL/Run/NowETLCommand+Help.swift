extension NowETLCommand {
    /// `nowetl completion bash|zsh|fish`: the completion script on stdout.
    static func completion(_ shell: NowETLArguments.CompletionShell, streams: CommandStreams) -> Int32 {
        fail("completion is not built yet", code: NowETLExitCode.failed, streams: streams)
    }

    /// `nowetl manpage`: nowetl(1) in roff on stdout.
    static func manpage(streams: CommandStreams) -> Int32 {
        fail("manpage is not built yet", code: NowETLExitCode.failed, streams: streams)
    }
}
