/// A command line parsed against a ``ProgramSpec``: the command selected, its options and arguments.
public struct ParsedCommand: Sendable, Equatable {
    /// One option as given: its name and value (`nil` for a flag).
    public struct Occurrence: Sendable, Equatable {
        /// The option's name (`--table`).
        public var name: String
        /// Its value; `nil` for a flag.
        public var value: String?
    }

    /// The subcommand names below the program (`["state", "set"]`; empty for the program itself).
    public var path: [String]
    /// The options in the order given.
    public var occurrences: [Occurrence]
    /// The positional arguments in order.
    public var arguments: [String]

    /// Every value of the option `name`, in order (a repeatable option's list).
    public func values(_ name: String) -> [String] {
        occurrences.filter { $0.name == name }.compactMap(\.value)
    }

    /// The last value of the option `name`: a later one replaces an earlier one.
    public func value(_ name: String) -> String? {
        values(name).last
    }

    /// Whether the flag (or option) `name` was given.
    public func isSet(_ name: String) -> Bool {
        occurrences.contains { $0.name == name }
    }
}

/// What a command line asks for.
public enum ParseOutcome: Sendable, Equatable {
    /// Run a command.
    case command(ParsedCommand)
    /// Print the help of the command at `path` (`--help`, `-h`, `help COMMAND…`); empty for the program's.
    case help(path: [String])
}

/// A command line the spec does not accept: which command it was for and one line of why.
public struct ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The subcommand names of the command the error is about (empty for the program).
    public var path: [String]
    /// What is wrong, one line.
    public var message: String

    /// Creates an error.
    public init(path: [String], message: String) {
        self.path = path
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Parses command lines against a ``ProgramSpec``, as swift-argument-parser does.
///
/// - `--opt value` and `--opt=value`; a separate value may not start with `--` (write `--opt=--x`).
/// - Options before, between and after positional arguments; `--` ends the options (a file `-x.yaml`).
/// - `-h`/`--help` anywhere before `--`, and `help COMMAND…`, ask for that command's help.
/// - A repeatable option keeps every value; another option's last value wins.
/// - An unknown option or command name suggests the nearest known one.
public struct CommandLineParser: Sendable {
    /// The program.
    public var program: ProgramSpec

    /// Creates a parser.
    public init(program: ProgramSpec) {
        self.program = program
    }

    /// Parses `arguments` (without the program's name).
    ///
    /// - Throws: ``ArgumentError`` naming the command the mistake is in.
    public func parse(_ arguments: [String]) throws(ArgumentError) -> ParseOutcome {
        var command = program.root
        var path: [String] = []
        var index = 0
        // Descend through the subcommands while the command has some.
        while !command.subcommands.isEmpty, index < arguments.count {
            let token = arguments[index]
            if token == "--help" || token == "-h" { return .help(path: path) }
            if path.isEmpty, token == "help" {
                return .help(path: try helpPath(Array(arguments[(index + 1)...])))
            }
            if token.hasPrefix("-") {
                // Options of a command with subcommands (the program's `--version`).
                if !command.options.isEmpty { break }
                throw missingSubcommand(command, path: path)
            }
            guard let next = command.subcommand(named: token) else {
                throw unknownSubcommand(token, of: command, path: path)
            }
            path.append(token)
            command = next
            index += 1
        }
        let rest = Array(arguments[index...])
        if !command.subcommands.isEmpty, rest.isEmpty { throw missingSubcommand(command, path: path) }
        let options = rest.prefix { $0 != "--" }
        if options.contains("--help") || options.contains("-h") { return .help(path: path) }
        return .command(try parseLeaf(rest, of: command, path: path))
    }

    /// The command path after `help`: every word must name a subcommand of the one before.
    private func helpPath(_ words: [String]) throws(ArgumentError) -> [String] {
        var command = program.root
        var path: [String] = []
        for word in words {
            guard let next = command.subcommand(named: word) else {
                if command.subcommands.isEmpty {
                    throw ArgumentError(path: path, message: "unexpected argument '\(word)' after help")
                }
                throw unknownSubcommand(word, of: command, path: path)
            }
            path.append(word)
            command = next
        }
        return path
    }

    /// Options and positional arguments of `command`.
    private func parseLeaf(_ tokens: [String], of command: CommandSpec, path: [String]) throws(ArgumentError)
        -> ParsedCommand
    {
        var parsed = ParsedCommand(path: path, occurrences: [], arguments: [])
        var index = 0
        var optionsEnded = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                parsed.arguments.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            var name = token
            var inline: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                inline = String(token[token.index(after: equals)...])
            }
            guard let option = command.option(named: name) else {
                throw unknownOption(name, of: command, path: path)
            }
            guard option.takesValue else {
                if inline != nil { throw ArgumentError(path: path, message: "\(name) takes no value") }
                parsed.occurrences.append(.init(name: name, value: nil))
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < tokens.count, !tokens[index].hasPrefix("--") else {
                    throw ArgumentError(path: path, message: "\(name) needs a value")
                }
                value = tokens[index]
                index += 1
            }
            guard !value.isEmpty else { throw ArgumentError(path: path, message: "\(name) needs a non-empty value") }
            if !option.choices.isEmpty, !option.choices.contains(value) {
                throw ArgumentError(
                    path: path, message: "\(name) takes \(option.choices.joined(separator: "|")), got '\(value)'")
            }
            parsed.occurrences.append(.init(name: name, value: value))
        }
        try checkArguments(parsed.arguments, of: command, path: path)
        for option in command.options where option.isRequired && !parsed.isSet(option.name) {
            throw ArgumentError(path: path, message: "missing \(option.label)")
        }
        return parsed
    }

    /// Enough positional arguments, and not too many.
    private func checkArguments(_ arguments: [String], of command: CommandSpec, path: [String])
        throws(ArgumentError)
    {
        let required = command.arguments.filter { !$0.isOptional }
        if arguments.count < required.count {
            let missing = required[arguments.count]
            throw ArgumentError(path: path, message: "missing argument \(missing.name) (\(missing.help))")
        }
        let unbounded = command.arguments.contains { $0.isRepeatable }
        if !unbounded, arguments.count > command.arguments.count {
            let extra = arguments[command.arguments.count]
            let message =
                extra.hasPrefix("-") && extra != "-"
                ? "unexpected argument '\(extra)' (after --)" : "unexpected argument '\(extra)'"
            throw ArgumentError(path: path, message: message)
        }
        for (index, argument) in arguments.enumerated() {
            let spec = command.arguments[min(index, command.arguments.count - 1)]
            if !spec.choices.isEmpty, !spec.choices.contains(argument) {
                throw ArgumentError(
                    path: path, message: "\(spec.name) takes \(spec.choices.joined(separator: "|")), got '\(argument)'")
            }
        }
    }

    private func missingSubcommand(_ command: CommandSpec, path: [String]) -> ArgumentError {
        let names = Self.list(command.subcommands.map(\.name))
        return ArgumentError(
            path: path, message: path.isEmpty ? "missing command: \(names)" : "missing subcommand: \(names)")
    }

    private func unknownSubcommand(_ name: String, of command: CommandSpec, path: [String]) -> ArgumentError {
        let names = command.subcommands.map(\.name)
        let kind = path.isEmpty ? "command" : "subcommand"
        if let nearest = NearestName.find(name, among: names) {
            return ArgumentError(path: path, message: "unknown \(kind) '\(name)'; did you mean \(nearest)?")
        }
        return ArgumentError(path: path, message: "unknown \(kind) '\(name)'; use \(Self.list(names))")
    }

    private func unknownOption(_ name: String, of command: CommandSpec, path: [String]) -> ArgumentError {
        let names = command.options.map(\.name) + ["--help"]
        if let nearest = NearestName.find(name, among: names) {
            return ArgumentError(path: path, message: "unknown option '\(name)'; did you mean \(nearest)?")
        }
        return ArgumentError(path: path, message: "unknown option '\(name)'")
    }

    /// `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
