import ArgumentKit

extension NowETLCommand {
    /// `nowetl completion bash|zsh|fish`: the completion script on stdout, generated from
    /// ``NowETLArguments/program`` (the table the parser uses).
    static func completion(_ shell: NowETLArguments.CompletionShell, streams: CommandStreams) -> Int32 {
        let target: ProgramSpec.Shell
        switch shell {
        case .bash: target = .bash
        case .zsh: target = .zsh
        case .fish: target = .fish
        }
        streams.standardOutput(NowETLArguments.program.completionScript(for: target))
        return NowETLExitCode.ok
    }

    /// `nowetl manpage`: nowetl(1) in roff on stdout, generated from ``NowETLArguments/program``.
    static func manpage(streams: CommandStreams) -> Int32 {
        streams.standardOutput(NowETLArguments.program.manPage())
        return NowETLExitCode.ok
    }

    /// `nowetl schema`: the pipeline file's JSON Schema or Markdown reference on stdout (``PipelineSchema``).
    static func schema(_ format: NowETLArguments.SchemaFormat, streams: CommandStreams) -> Int32 {
        switch format {
        case .json: streams.standardOutput(PipelineSchema.jsonSchema())
        case .markdown: streams.standardOutput(PipelineSchema.markdownReference())
        }
        return NowETLExitCode.ok
    }
}
