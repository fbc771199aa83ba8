/// One command of a program: its name, what it does, its arguments, options and subcommands.
///
/// The one table a program's command line is declared in: ``CommandLineParser`` parses with it, and the
/// help text, the short usage of an error, the man page and the shell completion scripts are all
/// generated from it, so none of them can drift from what the parser accepts.
public struct CommandSpec: Sendable, Equatable {
    /// The word that selects the command (`run`, `show`); the program's name for the root command.
    public var name: String
    /// One line: what the command does (the help's first line, the man page's and the completion's summary).
    public var abstract: String
    /// Paragraphs after the options, separated by blank lines; a paragraph whose lines start with two
    /// spaces is kept as written (a table, a list of forms), the others are reflowed.
    public var discussion: String
    /// The positional arguments, in order.
    public var arguments: [ArgumentSpec]
    /// The options (`-h`/`--help` is implied and not listed here).
    public var options: [OptionSpec]
    /// The subcommands (`state show|set|reset`); a command with subcommands takes no positional arguments.
    public var subcommands: [CommandSpec]

    /// Creates a command.
    public init(
        _ name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }

    /// The option named `name` (`--table`), if the command has it.
    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The subcommand named `name`, if there is one.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The command at `path` below this one (`["state", "set"]`), `nil` when a name is unknown.
    public func command(at path: [String]) -> CommandSpec? {
        var command = self
        for name in path {
            guard let next = command.subcommand(named: name) else { return nil }
            command = next
        }
        return command
    }

    /// Every command below this one with its path, depth first, parents before their children.
    public var descendants: [(path: [String], command: CommandSpec)] {
        subcommands.flatMap { child in
            [([child.name], child)] + child.descendants.map { ([child.name] + $0.path, $0.command) }
        }
    }
}

/// How a shell completes a value: an option's value or a positional argument.
public enum ValueCompletion: Sendable, Equatable {
    /// Nothing to offer (a table name, a number).
    case none
    /// A file name.
    case file
    /// A directory name.
    case directory
}

/// An option: a flag (`--keep-going`) or one that takes a value (`--table T`).
public struct OptionSpec: Sendable, Equatable {
    /// The long name with its dashes (`--table`).
    public var name: String
    /// The value's placeholder (`T`, `PATH`); `nil` for a flag.
    public var valueName: String?
    /// What the option does, one logical line (reflowed in the help, filled in the man page).
    public var help: String
    /// The values the option accepts (`text`, `json`); empty for any.
    public var choices: [String]
    /// Whether the option may be given more than once (each value is kept); otherwise the last one wins.
    public var isRepeatable: Bool
    /// Whether the command needs the option (the parser says so when it is missing).
    public var isRequired: Bool
    /// How a shell completes the value.
    public var completion: ValueCompletion

    /// A flag: no value.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(
            name: name, valueName: nil, help: help, choices: [], isRepeatable: false, isRequired: false,
            completion: .none)
    }

    /// An option with a value.
    ///
    /// - Parameters:
    ///   - valueName: The placeholder in the usage (`T`, `PATH`); with `choices`, the synopsis shows those.
    ///   - choices: The accepted values; the parser refuses others.
    ///   - repeatable: Each occurrence adds a value (`--table a --table b`).
    ///   - required: The command cannot do without it.
    ///   - completion: What a shell offers for the value (choices are offered anyway).
    public static func value(
        _ name: String, _ valueName: String, help: String, choices: [String] = [], repeatable: Bool = false,
        required: Bool = false, completion: ValueCompletion = .none
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, help: help, choices: choices, isRepeatable: repeatable,
            isRequired: required, completion: completion)
    }

    /// Whether the option takes a value.
    public var takesValue: Bool { valueName != nil }

    /// The option as the synopsis shows it: `[--table T]…`, `--instance URL`, `[--log-format text|json]`.
    public var synopsis: String {
        var text = name
        if let valueName { text += " " + (choices.isEmpty ? valueName : choices.joined(separator: "|")) }
        if !isRequired { text = "[" + text + "]" }
        return isRepeatable ? text + "…" : text
    }

    /// The option as its help row starts: `--table T`, `--keep-going`.
    public var label: String {
        valueName.map { name + " " + $0 } ?? name
    }
}

/// A positional argument (`PIPELINE`, `FILE.xml…`).
public struct ArgumentSpec: Sendable, Equatable {
    /// The placeholder (`PIPELINE`).
    public var name: String
    /// What it is.
    public var help: String
    /// Whether more than one may be given (all are kept, in order).
    public var isRepeatable: Bool
    /// Whether it may be left out.
    public var isOptional: Bool
    /// How a shell completes it.
    public var completion: ValueCompletion
    /// The values it accepts (`bash`, `zsh`, `fish`); empty for any.
    public var choices: [String]

    /// Creates an argument.
    public init(
        _ name: String, help: String, repeatable: Bool = false, optional: Bool = false,
        completion: ValueCompletion = .file, choices: [String] = []
    ) {
        self.name = name
        self.help = help
        self.isRepeatable = repeatable
        self.isOptional = optional
        self.completion = choices.isEmpty ? completion : .none
        self.choices = choices
    }

    /// The argument as the synopsis shows it: `PIPELINE`, `FILE.xml…`, `[NAME]`.
    public var synopsis: String {
        let text = isRepeatable ? name + "…" : name
        return isOptional ? "[" + text + "]" : text
    }
}
