import NowSimTesting

/// The nowsim shared by the integration tests: started on first use, seeded deterministically, with
/// an admin and a read-only user.
enum SharedNowSim {
    static let arguments = [
        "--seed", "incident=300,problem=50", "--seed-value", "3",
        "--user", "reader:pw:snc_read_only", "--user", "admin:admin:admin",
    ]

    /// The shared server, stopped when the test process exits.
    static func get() async throws -> NowSimInstance {
        try await NowSimInstance.shared(arguments: arguments)
    }
}
