/// A program's parsed command line as one value, parsed by the one ``parse(_:)`` every program shares.
///
/// A program provides its ``ProgramSpec``, the values for a help request, how it reports a mistake and
/// how one parsed command becomes its value (``converted(_:)``: checking and converting that command's
/// option values). Everything else is the same for every program: ``CommandLineParser`` runs the spec,
/// `--help`/`help COMMAND` become ``help`` or ``commandHelp(_:)``, and every mistake — the parser's or
/// ``converted(_:)``'s — is reported against the command it is in, so its usage error shows that
/// command's usage.
public protocol CommandLineArguments {
    /// A command-line mistake as the program reports it (exit code 64).
    associatedtype UsageError: Error, CustomStringConvertible

    /// The program's commands and options.
    static var program: ProgramSpec { get }

    /// The value for `PROGRAM --help` and `PROGRAM help`: the overview of every command.
    static var help: Self { get }

    /// The value for `PROGRAM COMMAND --help` and `PROGRAM help COMMAND`.
    ///
    /// - Parameter command: The command's path below the program, joined by spaces (`"state set"`).
    static func commandHelp(_ command: String) -> Self

    /// The program's usage error for `error`: its message, about the command at its path.
    static func usageError(_ error: ArgumentError) -> UsageError

    /// The value of a parsed command line: its option values checked and converted.
    ///
    /// - Throws: The program's usage error; ``parse(_:)`` reports its description against the parsed
    ///   command, whichever command the error itself names.
    static func converted(_ parsed: ParsedCommand) throws(UsageError) -> Self
}

extension CommandLineArguments {
    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: The program's usage error, about the command the mistake is in (the program itself when
    ///   no command was recognised).
    public static func parse(_ arguments: [String]) throws(UsageError) -> Self {
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser(program: program).parse(arguments)
        } catch {
            throw usageError(error)
        }
        switch outcome {
        case .help(let path): return path.isEmpty ? help : commandHelp(path.joined(separator: " "))
        case .command(let parsed):
            do {
                return try converted(parsed)
            } catch {
                throw usageError(ArgumentError(path: parsed.path, message: error.description))
            }
        }
    }
}

/// A command-line mistake of the program of `Arguments`: one line of why and the command it is in,
/// printed with that command's short usage (the usage error of nowetl and nowsim; exit code 64).
public struct CommandLineUsageError<Arguments: CommandLineArguments>: Error, CustomStringConvertible, Equatable {
    /// What is wrong.
    public var description: String
    /// The command the mistake is in (`"run"`, `"state set"`; empty for the program itself).
    public var command: String

    /// Creates an error.
    public init(description: String, command: String = "") {
        self.description = description
        self.command = command
    }

    /// What the program prints: `nowetl run: why`, then that command's usage and where its help is.
    public var text: String {
        Arguments.program.errorText(
            for: ArgumentError(path: command.split(separator: " ").map(String.init), message: description))
    }
}

extension CommandLineArguments where UsageError == CommandLineUsageError<Self> {
    /// The program's usage error for `error`: its message, about the command at its path.
    public static func usageError(_ error: ArgumentError) -> UsageError {
        UsageError(description: error.message, command: error.path.joined(separator: " "))
    }
}
