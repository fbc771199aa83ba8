/// What the command line changes in a pipeline file as it is loaded: `--output-dir PATH` and
/// `--var NAME=VALUE` of every command that reads a pipeline.
public struct PipelineOverrides: Equatable, Sendable {
    /// `--output-dir`: replaces the pipeline's `output_dir` (relative to the working directory).
    public var outputDirectory: String?
    /// `--var NAME=VALUE` (repeatable): values for `${NAME}`, before the environment and `.env`.
    public var variables: [String: String]

    /// No override: the pipeline file as written.
    public init(outputDirectory: String? = nil, variables: [String: String] = [:]) {
        self.outputDirectory = outputDirectory
        self.variables = variables
    }
}
