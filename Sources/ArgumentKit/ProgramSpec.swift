/// A whole program: its root command (whose subcommands are the program's commands) and what its man
/// page says besides the commands.
public struct ProgramSpec: Sendable, Equatable {
    /// A term the man page explains: an exit code, an environment variable or a file.
    public struct Entry: Sendable, Equatable {
        /// The exit code, the variable's name or the file's path, as the man page shows it.
        public var name: String
        /// What it means or does.
        public var meaning: String
        /// Creates an entry.
        public init(_ name: String, _ meaning: String) {
            self.name = name
            self.meaning = meaning
        }

        /// Creates the entry of an exit code.
        public init(_ code: Int32, _ meaning: String) {
            self.init(String(code), meaning)
        }
    }

    /// The program's command: its name is the program's, its options are the global ones (`--version`),
    /// its subcommands the program's commands.
    public var root: CommandSpec
    /// The version, for the man page's header.
    public var version: String
    /// The exit codes (the man page's EXIT STATUS).
    public var exitCodes: [Entry]
    /// The exit codes as `--help` shows them, appended to the program's help as written.
    public var exitCodesHelp: String
    /// The environment variables the program reads (ENVIRONMENT).
    public var environment: [Entry]
    /// The files it reads or writes (FILES).
    public var files: [Entry]
    /// Related man pages (`nowsim(1)`).
    public var seeAlso: [String]

    /// Creates a program.
    public init(
        root: CommandSpec, version: String, exitCodes: [Entry], exitCodesHelp: String,
        environment: [Entry] = [], files: [Entry] = [], seeAlso: [String] = []
    ) {
        self.root = root
        self.version = version
        self.exitCodes = exitCodes
        self.exitCodesHelp = exitCodesHelp
        self.environment = environment
        self.files = files
        self.seeAlso = seeAlso
    }

    /// The program's name (`nowetl`).
    public var name: String { root.name }

    /// The command at `path`, `nil` when a name is unknown.
    public func command(at path: [String]) -> CommandSpec? {
        root.command(at: path)
    }

    /// The command line that selects the command at `path`: `nowetl state set`.
    public func fullName(_ path: [String]) -> String {
        ([name] + path).joined(separator: " ")
    }
}
