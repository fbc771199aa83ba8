/// Something in a pipeline file that works but is risky, with the file, line and column it is about.
///
/// Printed before a command does its work, in the compiler form of ``ConfigError`` with `warning:`
/// (`p.yaml:7:22: warning: the secret file …`); a warning never changes the exit code. Like errors,
/// messages name keys and paths, never a secret or an environment variable's value.
public struct ConfigWarning: Sendable, Hashable, CustomStringConvertible {
    /// The file the warning is about: the pipeline file, or the `.env` file beside it.
    public var file: String
    /// The 1-based line, or `nil` when the warning concerns the whole file.
    public var line: Int?
    /// The 1-based column, or `nil` with ``line``.
    public var column: Int?
    /// What is risky and how to fix it.
    public var message: String

    /// Creates a warning.
    public init(file: String, line: Int?, column: Int?, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: warning: message` (or `file: warning: message`).
    public var description: String {
        if let line, let column {
            return "\(file):\(line):\(column): warning: \(message)"
        }
        return "\(file): warning: \(message)"
    }
}
