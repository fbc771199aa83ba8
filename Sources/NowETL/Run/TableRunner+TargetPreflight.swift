extension TableRunner {
    /// The pre-flight of every `instance:` output against its target (``TargetPreflight``), for the
    /// tables named `tables` (every table for none), through the dictionaries the name check read.
    public func checkTargets(in configuration: PipelineConfiguration, tables: [String]) async throws
        -> [TargetPreflightReport]
    {
        let selected = configuration.tables.filter { tables.isEmpty || tables.contains($0.table) }
        let discovery = FieldDiscovery(service: makeService { _ in }, decoder: decoder)
        var reports: [TargetPreflightReport] = []
        do {
            for case .instance(let output) in configuration.outputs {
                reports.append(
                    try await TargetPreflight(
                        output: output, sourceDictionaries: dictionaries, sourceDiscovery: discovery
                    ).check(selected))
            }
        } catch {
            throw explaining(error)
        }
        return reports
    }
}
