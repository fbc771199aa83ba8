/// The one place where `nowetl` makes the real extractor.
extension NowETLCommand {
    /// Makes the ``TableRunning`` that exports a pipeline's tables.
    public typealias TableRunnerFactory = @Sendable (PipelineConfiguration) throws -> any TableRunning

    /// The extractor `nowetl run` uses unless a caller (a test) passes another: ``TableRunner``.
    public static let makeDefaultTableRunner: TableRunnerFactory = { configuration in
        TableRunner(configuration: configuration)
    }
}
