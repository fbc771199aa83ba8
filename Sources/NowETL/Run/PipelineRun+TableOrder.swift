extension PipelineRun {
    /// The order a run writes `tables` (the selected tables, in pipeline order) in: the pipeline's
    /// `order:` when it has one; the dependency order the runner computes from the instance's dictionary
    /// (``TableRunning/dependencyOrder(of:)``) when ``PipelineConfiguration/needsDependencyOrder``;
    /// otherwise pipeline order, without reading anything.
    ///
    /// - Throws: the runner's error when the dictionary cannot be read, ``NowETLError`` (``NowETLError/Code/tableCycle``, exit 78)
    ///   when the tables reference each other in a cycle.
    public static func tableOrder(
        for configuration: PipelineConfiguration, tables: [String], runner: any TableRunning
    ) async throws -> TableOrder {
        if let order = configuration.order { return .explicit(order, selecting: tables) }
        guard configuration.needsDependencyOrder else { return .pipelineOrder(tables) }
        return try await runner.dependencyOrder(of: tables)
    }
}
