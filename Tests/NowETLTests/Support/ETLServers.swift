import NowSimTesting

/// The servers of the extractor tests, each started once on first use: a plain one and one per fault
/// (faults act on the whole server, so tests that run in parallel must not share a faulty one).
enum ETLServers {
    /// The seed of every server: the same incidents everywhere.
    static let seed = seededNowSim("incident=1200", value: 7)

    /// The shared server with `fault` in force (`nil` for none).
    static func get(fault: String? = nil) async throws -> NowSimInstance {
        try await NowSimInstance.shared(arguments: seed + (fault.map { ["--fault", $0] } ?? []))
    }
}
