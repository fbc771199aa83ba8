import ArgumentKit
import Foundation

/// The parsed command line of `nowsim`.
public enum NowSimArguments: CommandLineArguments, Equatable, Sendable {
    /// `nowsim serve …`.
    case serve(ServeOptions)
    /// `nowsim seed --db PATH --seed …`.
    case seed(SeedOptions)
    /// `nowsim import --db PATH FILE.xml…`.
    case `import`(ImportOptions)
    /// `nowsim completion bash|zsh|fish`: the shell completion script, on stdout.
    case completion(ProgramSpec.Shell)
    /// `nowsim manpage`: the man page nowsim(1) in roff, on stdout.
    case manpage
    /// `nowsim --help`, `nowsim help`: the overview of every command.
    case help
    /// `nowsim COMMAND --help`, `nowsim help COMMAND`: one command's help.
    case commandHelp(String)
    /// `nowsim --version`.
    case version

    /// Options of `nowsim serve`.
    public struct ServeOptions: Equatable, Sendable {
        /// `--host`: the address to listen on.
        public var host = "127.0.0.1"
        /// `--allow-remote`: a non-loopback `--host` with the default credentials is served (with a warning).
        public var allowRemote = false
        /// `--max-connections`: connections served at once.
        public var maxConnections = HTTPServer.Configuration.defaultMaxConnections
        /// `--port`: the port; 0 picks a free one.
        public var port = 8080
        /// `--port-file`: where to write the port once listening.
        public var portFile: String?
        /// `--db`: the SQLite file; `nil` means a temporary one.
        public var databasePath: String?
        /// `--seed`: the seed plan, `TABLE=N[,…]`.
        public var seed: String?
        /// `--seed-value`: the seed of the deterministic generator.
        public var seedValue: UInt64 = 1
        /// `--sys-id-salt`: mixed into every seeded sys_id; empty for none.
        public var sysIDSalt = ""
        /// `--user`: API users, `NAME:PASSWORD[:ROLE…]`.
        public var users: [String] = []
        /// `--oauth-client`: OAuth clients, `ID:SECRET`.
        public var oauthClients: [String] = []
        /// `--table-acl`: table read ACLs, `TABLE=ROLE[+ROLE…]` (see ``AccessRules/TableRule``).
        public var tableACLs: [String] = []
        /// `--row-acl`: row conditions, `USER:TABLE:ENCODED_QUERY` (see ``AccessRules/RowRule``).
        public var rowACLs: [String] = []
        /// `--tls-cert`: the certificate PEM file.
        public var tlsCertificatePath: String?
        /// `--tls-key`: the private key PEM file.
        public var tlsKeyPath: String?
        /// `--tls-client-ca`: the CA PEM file client certificates must chain to (mutual TLS).
        public var tlsClientCAPath: String?
        /// `--invalid-query-returns-no-rows`.
        public var invalidQueryReturnsNoRows = false
        /// `--threads`: a fixed worker pool instead of a thread per connection.
        public var threads: Int?
        /// `--quiet`: no request log.
        public var quiet = false
        /// `--fault`: misbehaviour specs.
        public var faults: [String] = []
        /// `--access-token-lifetime`, seconds.
        public var accessTokenLifetime = 1800
        /// `--refresh-token-lifetime`, seconds.
        public var refreshTokenLifetime = 8_640_000
        /// The defaults, as if no option were given.
        public init() {}
    }

    /// Options of `nowsim seed`.
    public struct SeedOptions: Equatable, Sendable {
        /// `--db`: the SQLite file to create or extend.
        public var databasePath = ""
        /// `--seed`: the seed plan, `TABLE=N[,…]`.
        public var seed = ""
        /// `--seed-value`: the seed of the deterministic generator.
        public var seedValue: UInt64 = 1
        /// `--sys-id-salt`: mixed into every seeded sys_id; empty for none.
        public var sysIDSalt = ""
        /// The defaults, as if no option were given.
        public init() {}
    }

    /// Options of `nowsim import`.
    public struct ImportOptions: Equatable, Sendable {
        /// `--db`: the SQLite file to import into (created when new).
        public var databasePath = ""
        /// The unload XML files, imported in this order, each in one transaction.
        public var files: [String] = []
        /// `--user`: written to missing `sys_created_by`/`sys_updated_by` and to `sys_audit_delete`.
        public var userName = "admin"
        /// The defaults, as if no option were given.
        public init() {}
    }

    /// `nowsim --help`: every command's usage and summary, and the exit codes.
    public static var usage: String { program.help(for: []) }

    /// A command-line mistake: one line of why, printed with the command's short usage; exit code 64.
    public typealias UsageError = CommandLineUsageError<NowSimArguments>

    /// The arguments of a parsed command line: its values checked and converted.
    public static func converted(_ parsed: ParsedCommand) throws(UsageError) -> NowSimArguments {
        switch parsed.path.first ?? "" {
        case "serve":
            var options = ServeOptions()
            options.host = parsed.value("--host") ?? options.host
            options.allowRemote = parsed.isSet("--allow-remote")
            options.maxConnections =
                try integer(parsed, "--max-connections", range: 1...65536) ?? options.maxConnections
            options.port = try integer(parsed, "--port", range: 0...65535) ?? options.port
            options.portFile = parsed.value("--port-file")
            options.databasePath = parsed.value("--db")
            options.seed = parsed.value("--seed")
            options.seedValue = try seedValue(parsed) ?? options.seedValue
            options.sysIDSalt = parsed.value("--sys-id-salt") ?? ""
            options.users = parsed.values("--user")
            options.oauthClients = parsed.values("--oauth-client")
            options.tableACLs = parsed.values("--table-acl")
            options.rowACLs = parsed.values("--row-acl")
            options.tlsCertificatePath = parsed.value("--tls-cert")
            options.tlsKeyPath = parsed.value("--tls-key")
            options.tlsClientCAPath = parsed.value("--tls-client-ca")
            options.invalidQueryReturnsNoRows = parsed.isSet("--invalid-query-returns-no-rows")
            options.threads = try integer(parsed, "--threads", range: 1...1024)
            options.quiet = parsed.isSet("--quiet")
            options.faults = parsed.values("--fault")
            options.accessTokenLifetime =
                try integer(parsed, "--access-token-lifetime", range: 1...31_536_000) ?? options.accessTokenLifetime
            options.refreshTokenLifetime =
                try integer(parsed, "--refresh-token-lifetime", range: 1...315_360_000)
                ?? options.refreshTokenLifetime
            if (options.tlsCertificatePath == nil) != (options.tlsKeyPath == nil) {
                throw UsageError(description: "--tls-cert and --tls-key go together")
            }
            if options.tlsClientCAPath != nil, options.tlsCertificatePath == nil {
                throw UsageError(description: "--tls-client-ca needs --tls-cert and --tls-key")
            }
            if let threads = options.threads, threads > options.maxConnections {
                throw UsageError(
                    description: "--max-connections \(options.maxConnections) is below --threads \(threads): "
                        + "every thread of the pool needs a connection")
            }
            return .serve(options)
        case "seed":
            var options = SeedOptions()
            options.databasePath = parsed.value("--db") ?? ""
            options.seed = parsed.value("--seed") ?? ""
            options.seedValue = try seedValue(parsed) ?? options.seedValue
            options.sysIDSalt = parsed.value("--sys-id-salt") ?? ""
            return .seed(options)
        case "import":
            var options = ImportOptions()
            options.databasePath = parsed.value("--db") ?? ""
            options.userName = parsed.value("--user") ?? options.userName
            options.files = parsed.arguments
            return .import(options)
        case "completion":
            guard let shell = parsed.arguments.first.flatMap(ProgramSpec.Shell.init(rawValue:)) else {
                throw UsageError(description: "completion needs one shell: bash, zsh or fish")
            }
            return .completion(shell)
        case "manpage":
            return .manpage
        default:
            // The program itself: only --version is an option of it (the parser wants a command otherwise).
            return parsed.isSet("--version") ? .version : .help
        }
    }

    private static func integer(_ parsed: ParsedCommand, _ name: String, range: ClosedRange<Int>)
        throws(UsageError) -> Int?
    {
        guard let text = parsed.value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                description: "\(name) needs a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return number
    }

    private static func seedValue(_ parsed: ParsedCommand) throws(UsageError) -> UInt64? {
        guard let text = parsed.value("--seed-value") else { return nil }
        guard let number = UInt64(text) else {
            throw UsageError(description: "--seed-value needs a non-negative integer, got '\(text)'")
        }
        return number
    }
}
