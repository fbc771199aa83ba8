import Foundation

/// The parsed command line of `nowsim`.
public enum NowSimArguments: Equatable, Sendable {
    /// `nowsim serve …`.
    case serve(ServeOptions)
    /// `nowsim seed --db PATH --seed …`.
    case seed(SeedOptions)
    /// `nowsim import --db PATH FILE.xml…`.
    case `import`(ImportOptions)
    /// `nowsim --help`.
    case help
    /// `nowsim --version`.
    case version

    /// Options of `nowsim serve`.
    public struct ServeOptions: Equatable, Sendable {
        /// `--host`: the address to listen on.
        public var host = "127.0.0.1"
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

    /// The usage text printed by `--help` and after usage errors.
    public static let usage = """
        nowsim — a local ServiceNow instance (Table API, Aggregate API, Batch API, OAuth) backed by SQLite.

        USAGE:
          nowsim serve [--host 127.0.0.1] [--port 8080|0] [--port-file PATH] [--db PATH]
                       [--seed TABLE=N[,TABLE=N…]] [--seed-value S] [--user NAME:PASSWORD[:ROLE…]]…
                       [--oauth-client ID:SECRET]… [--table-acl TABLE=ROLE[+ROLE…]]…
                       [--row-acl USER:TABLE:QUERY]… [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]]
                       [--invalid-query-returns-no-rows] [--threads N] [--quiet] [--fault SPEC]…
                       [--access-token-lifetime S] [--refresh-token-lifetime S]
          nowsim seed --db PATH --seed TABLE=N[,TABLE=N…] [--seed-value S]
          nowsim import --db PATH [--user NAME] FILE.xml [FILE.xml…]
          nowsim --help | --version

        SERVE:
          --host ADDR          address to listen on (default 127.0.0.1)
          --port N             port (default 8080); 0 picks a free port
          --port-file PATH     write the port to PATH once listening
          --db PATH            SQLite database (default: a temporary file removed at exit)
          --seed SPEC          seed tables first, e.g. incident=10000,problem=500
          --seed-value S       seed of the deterministic generator (default 1)
          --user SPEC          an API user NAME:PASSWORD[:ROLE…] (repeatable; default admin:admin:admin)
          --oauth-client SPEC  an OAuth client ID:SECRET (repeatable; default nowsim:nowsim)
          --table-acl SPEC     TABLE=ROLE[+ROLE…]: only callers with one of the roles (or admin) read
                               TABLE and its child tables; others get 403 (repeatable; the most
                               specific table with a rule decides; default: all may read, except
                               sys_audit_delete, admin only); a read of a parent table hides the
                               rows of classes the caller may not read
          --row-acl SPEC       USER:TABLE:ENCODED_QUERY: USER sees only the rows of TABLE (and its
                               children) matching the query; applied after sysparm_limit, so pages
                               come back short; X-Total-Count and Aggregate counts include the hidden
                               rows (min/max/avg/sum and group-by values do not), a hidden record
                               reads as 404 (repeatable; rules for one table OR; an unknown field
                               is exit 64)
          --access-token-lifetime S, --refresh-token-lifetime S
                               OAuth token lifetimes in seconds (default 1800 and 8640000)
          --tls-cert, --tls-key  PEM files: serve HTTPS
          --tls-client-ca PEM  require a client certificate issued by this CA (mutual TLS; else 403)
          --invalid-query-returns-no-rows  emulate glide.invalid_query.returns_no_rows=true
          --threads N          serve with a pool of N threads (default: one thread per connection)
          --quiet              no request log on stderr
          --fault SPEC         misbehave on purpose (repeatable), KIND[:key=value,…] with KIND one of
                               rate-limit[:retry-after=S,date=true]  status[:code=503]  delay:ms=N
                               truncate[:cut=true]  acl-hide:fraction=F[,run=K]
                               invalid-utf8[:field=F,sys_id=S]; every fault takes table=T,
                               every=N, after=N.
                               Also settable at run time: PUT /api/nowsim/faults {"faults":[…]}

        IMPORT:
          Applies unload XML files (<unload><incident action="INSERT_OR_UPDATE">…) as an instance's
          Import XML does: each record keeps its sys_id and is updated when it exists, else inserted;
          every field is stored as given, system fields included (sys_created_on, sys_updated_on,
          sys_created_by, sys_updated_by, sys_mod_count are not regenerated); the element name is the
          class; fields the table lacks are ignored and counted; action="DELETE" deletes by sys_id.
          Each file is one transaction (all or nothing), files in order; a .gz file is read as is.
          Prints one line per table; an error names FILE:LINE and stops (earlier files stay imported).
          --db PATH            the database to import into (created when new)
          --user NAME          for missing sys_created_by/sys_updated_by and sys_audit_delete rows
                               (default admin)
          A running nowsim imports too: POST /api/nowsim/import with the XML as body (admins).

        EXIT CODES:
          0 stopped cleanly (SIGTERM/SIGINT), seeded, imported   1 failed (import: a file that cannot
          be read or imported, nothing of it applied)   64 usage error
        """

    /// A command-line mistake, reported with the usage text and exit code 64.
    public struct UsageError: Error, CustomStringConvertible, Equatable {
        /// What is wrong.
        public var description: String
    }

    /// Parses `arguments` (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> NowSimArguments {
        guard let command = arguments.first else { throw UsageError(description: "missing command") }
        var rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help": return .help
        case "--version": return .version
        case "serve":
            var options = ServeOptions()
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--host": options.host = try value(of: flag, from: &rest)
                case "--port": options.port = try integer(of: flag, from: &rest, range: 0...65535)
                case "--port-file": options.portFile = try value(of: flag, from: &rest)
                case "--db": options.databasePath = try value(of: flag, from: &rest)
                case "--seed": options.seed = try value(of: flag, from: &rest)
                case "--seed-value": options.seedValue = try seedValue(from: &rest)
                case "--user": options.users.append(try value(of: flag, from: &rest))
                case "--oauth-client": options.oauthClients.append(try value(of: flag, from: &rest))
                case "--table-acl": options.tableACLs.append(try value(of: flag, from: &rest))
                case "--row-acl": options.rowACLs.append(try value(of: flag, from: &rest))
                case "--tls-cert": options.tlsCertificatePath = try value(of: flag, from: &rest)
                case "--tls-key": options.tlsKeyPath = try value(of: flag, from: &rest)
                case "--tls-client-ca": options.tlsClientCAPath = try value(of: flag, from: &rest)
                case "--invalid-query-returns-no-rows": options.invalidQueryReturnsNoRows = true
                case "--threads": options.threads = try integer(of: flag, from: &rest, range: 1...1024)
                case "--quiet": options.quiet = true
                case "--fault": options.faults.append(try value(of: flag, from: &rest))
                case "--access-token-lifetime":
                    options.accessTokenLifetime = try integer(of: flag, from: &rest, range: 1...31_536_000)
                case "--refresh-token-lifetime":
                    options.refreshTokenLifetime = try integer(of: flag, from: &rest, range: 1...315_360_000)
                default: throw UsageError(description: "unknown option '\(flag)' for serve")
                }
            }
            if (options.tlsCertificatePath == nil) != (options.tlsKeyPath == nil) {
                throw UsageError(description: "--tls-cert and --tls-key go together")
            }
            if options.tlsClientCAPath != nil, options.tlsCertificatePath == nil {
                throw UsageError(description: "--tls-client-ca needs --tls-cert and --tls-key")
            }
            return .serve(options)
        case "seed":
            var options = SeedOptions()
            while !rest.isEmpty {
                let flag = rest.removeFirst()
                switch flag {
                case "--db": options.databasePath = try value(of: flag, from: &rest)
                case "--seed": options.seed = try value(of: flag, from: &rest)
                case "--seed-value": options.seedValue = try seedValue(from: &rest)
                default: throw UsageError(description: "unknown option '\(flag)' for seed")
                }
            }
            if options.databasePath.isEmpty { throw UsageError(description: "seed needs --db PATH") }
            if options.seed.isEmpty { throw UsageError(description: "seed needs --seed TABLE=N[,…]") }
            return .seed(options)
        case "import":
            var options = ImportOptions()
            while !rest.isEmpty {
                let argument = rest.removeFirst()
                switch argument {
                case "--db": options.databasePath = try value(of: argument, from: &rest)
                case "--user": options.userName = try value(of: argument, from: &rest)
                case "--":
                    options.files += rest
                    rest = []
                default:
                    if argument.hasPrefix("-") && argument != "-" {
                        throw UsageError(description: "unknown option '\(argument)' for import")
                    }
                    options.files.append(argument)
                }
            }
            if options.databasePath.isEmpty { throw UsageError(description: "import needs --db PATH") }
            if options.files.isEmpty { throw UsageError(description: "import needs at least one FILE.xml") }
            return .import(options)
        default:
            throw UsageError(description: "unknown command '\(command)'")
        }
    }

    private static func value(of flag: String, from rest: inout [String]) throws(UsageError) -> String {
        guard !rest.isEmpty else { throw UsageError(description: "\(flag) needs a value") }
        return rest.removeFirst()
    }

    private static func integer(of flag: String, from rest: inout [String], range: ClosedRange<Int>)
        throws(UsageError) -> Int
    {
        let text = try value(of: flag, from: &rest)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                description: "\(flag) needs a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return number
    }

    private static func seedValue(from rest: inout [String]) throws(UsageError) -> UInt64 {
        let text = try value(of: "--seed-value", from: &rest)
        guard let number = UInt64(text) else {
            throw UsageError(description: "--seed-value needs a non-negative integer, got '\(text)'")
        }
        return number
    }
}
