/// The one place where `nowetl` makes the real extractor.
extension NowETLCommand {
    /// Makes the ``TableRunning`` that exports a pipeline's tables.
    public typealias TableRunnerFactory = @Sendable (PipelineConfiguration) throws -> any TableRunning

    /// The extractor `nowetl run` uses unless a caller (a test) passes another.
    ///
    /// MERGE POINT: when `TableRunner` lands, replace the body with
    /// `{ configuration in TableRunner(configuration: configuration) }` (add `try` if its initializer
    /// throws). Until then `nowetl run` fails honestly: exit 1, "nowetl run needs the extractor …".
    public static let makeDefaultTableRunner: TableRunnerFactory = { _ in
        throw ExtractorUnavailableError(command: "run")
    }
}
