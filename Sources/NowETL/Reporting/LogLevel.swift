/// The severity of a log line: `--log-level debug|info|warning|error`.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Details for finding a problem.
    case debug
    /// What the run is doing (the default threshold).
    case info
    /// Something unexpected that does not stop the run.
    case warning
    /// Something that fails a table or the run.
    case error

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
