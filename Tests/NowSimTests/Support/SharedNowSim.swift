import NowSimTesting

/// The nowsim shared by the read-only tests, seeded once (deterministically) for the whole run.
enum SharedNowSim {
    static let seedArguments = [
        "--seed",
        "sys_user=120,sys_user_group=12,core_company=20,cmn_location=25,cmdb_ci=150,incident=1500,problem=200,change_request=200",
        "--seed-value", "42",
    ]

    /// The shared instance, started on first use and stopped when the test process exits.
    static func get() async throws -> NowSimInstance {
        try await NowSimInstance.shared(arguments: seedArguments)
    }
}

/// A nowsim of its own for a suite that writes: `incidents` seeded incidents (seed `value`), an
/// `admin` (password `admin`) and a read-only `reader` (password `pw`).
enum WritableNowSim {
    static func start(incidents: Int, value: Int) async throws -> NowSimInstance {
        try await NowSimInstance.start(arguments: [
            "--seed", "incident=\(incidents)", "--seed-value", "\(value)", "--user", "admin:admin:admin", "--user",
            "reader:pw:snc_read_only",
        ])
    }
}
