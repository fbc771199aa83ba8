/// Whether to show live progress: `--progress auto|on|off`.
public enum ProgressMode: String, Sendable, Hashable, CaseIterable {
    /// A live line when standard error is a terminal, periodic log lines otherwise (the default).
    case auto
    /// A live line, even when standard error is not a terminal.
    case on
    /// Neither live line nor periodic progress lines (start, finish and errors are still logged).
    case off
}
