/// One attempt of a chaos run to die: ChaosTests and IncrementalRunTests kill their runs so.
enum RunKill: CustomStringConvertible {
    /// SIGKILL from the test at a random instant: a seeded fraction of the clean run's duration.
    case random
    /// `NOWETL_CRASH_AT=<point>`: the binary kills itself there.
    case at(String)

    var description: String {
        switch self {
        case .random: "random"
        case .at(let point): point
        }
    }
}
