import ArgumentKit
import Foundation
import NowSQLite

/// Runs `nowsim` commands; the executable only passes `CommandLine.arguments` and exits with the code.
public enum NowSimCommand {
    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        let parsed: NowSimArguments
        do {
            parsed = try NowSimArguments.parse(arguments)
        } catch {
            printError(error.text)
            return 64
        }
        switch parsed {
        case .help:
            print(NowSimArguments.usage)
            return 0
        case .commandHelp(let command):
            print(NowSimArguments.program.help(for: command.split(separator: " ").map(String.init)))
            return 0
        case .completion(let shell):
            print(NowSimArguments.program.completionScript(for: shell), terminator: "")
            return 0
        case .manpage:
            print(NowSimArguments.program.manPage(), terminator: "")
            return 0
        case .version:
            print("nowsim \(nowsimVersion)")
            return 0
        case .seed(let options):
            return runSeed(options)
        case .import(let options):
            return runImport(options)
        case .serve(let options):
            return runServe(options)
        }
    }

    static func printError(_ message: String) {
        RequestLog.write(message + "\n", to: STDERR_FILENO)
    }

    private static func runSeed(_ options: NowSimArguments.SeedOptions) -> Int32 {
        do {
            let plan = try SeedPlan(parsing: options.seed)
            try Database.create(at: options.databasePath)
            try seed(
                databasePath: options.databasePath, plan: plan, seedValue: options.seedValue,
                sysIDSalt: options.sysIDSalt)
            return 0
        } catch let error as SeedPlanError {
            printError(NowSimArguments.UsageError(description: "--seed: \(error)", command: "seed").text)
            return 64
        } catch {
            printError("nowsim: seeding \(options.databasePath) failed: \(error)")
            return 1
        }
    }

    /// Imports the files in order, one transaction each; stops at the first that fails.
    private static func runImport(_ options: NowSimArguments.ImportOptions) -> Int32 {
        let importer: UnloadImporter
        let connection: SQLiteConnection
        do {
            try Database.create(at: options.databasePath)
            connection = try SQLiteConnection(path: options.databasePath)
            importer = UnloadImporter(
                catalog: try Catalog.load(from: connection), importedBy: options.userName, now: Date())
        } catch {
            printError("nowsim: cannot open \(options.databasePath): \(error)")
            return 1
        }
        for (index, file) in options.files.enumerated() {
            do {
                let report = try importer.importFile(atPath: file, into: connection)
                print("\(file): imported \(report.records) record\(report.records == 1 ? "" : "s")")
                for line in report.description.split(separator: "\n") { print("  \(line)") }
            } catch {
                let imported = options.files[..<index]
                printError(
                    "nowsim: import: \(error)\nnowsim: nothing of \(file) was imported"
                        + (imported.isEmpty ? "" : "; imported before it: \(imported.joined(separator: ", "))"))
                return 1
            }
        }
        return 0
    }

    private static func seed(databasePath: String, plan: SeedPlan, seedValue: UInt64, sysIDSalt: String) throws {
        let report = try Seeder.seed(
            databaseAt: databasePath, plan: plan, seedValue: seedValue, sysIDSalt: sysIDSalt, progress: nil)
        printError("nowsim: seeded\n\(report)")
    }

    /// Gives every API user a `sys_user` row (with its roles), as an instance has for its accounts.
    private static func ensureUsers(_ users: [APIUser], databasePath: String) throws {
        let connection = try SQLiteConnection(path: databasePath)
        try connection.transaction {
            for user in users {
                let parts = user.userName == "admin" ? ["System", "Administrator"] : [user.userName, ""]
                try Seeder.ensureUser(
                    connection: connection, userName: user.userName, firstName: parts[0], lastName: parts[1],
                    roles: user.roles)
            }
        }
    }

    /// The well-known credentials among `users` and `clients`, described for a warning (never a
    /// password other than the published default).
    static func defaultCredentials(users: [APIUser], clients: [OAuthClient]) -> [String] {
        let admin = APIUser.defaultAdmin
        let client = OAuthClient.defaultClient
        var found: [String] = []
        if users.contains(where: { $0.userName == admin.userName && $0.password == admin.password }) {
            found.append("user \(admin.userName)/\(admin.password)")
        }
        if clients.contains(where: { $0.clientID == client.clientID && $0.clientSecret == client.clientSecret }) {
            found.append("OAuth client \(client.clientID)/\(client.clientSecret)")
        }
        return found
    }

    private static func runServe(_ options: NowSimArguments.ServeOptions) -> Int32 {
        // Validate everything cheap before touching the database.
        let users: [APIUser]
        let clients: [OAuthClient]
        let plan: SeedPlan?
        let faults: [Fault]
        let accessRules: AccessRules
        do {
            users = try options.users.isEmpty ? [.defaultAdmin] : options.users.map { try APIUser(parsing: $0) }
            clients =
                try options.oauthClients.isEmpty
                ? [.defaultClient] : options.oauthClients.map { try OAuthClient(parsing: $0) }
            plan = try options.seed.map { try SeedPlan(parsing: $0) }
            faults = try options.faults.map { try Fault(parsing: $0) }
            accessRules = AccessRules(
                tableRules: try options.tableACLs.map { try AccessRules.TableRule(parsing: $0) },
                rowRules: try options.rowACLs.map { try AccessRules.RowRule(parsing: $0) })
        } catch {
            printError(NowSimArguments.UsageError(description: "\(error)", command: "serve").text)
            return 64
        }
        let defaults = defaultCredentials(users: users, clients: clients)
        if ListenAddress.isLoopback(host: options.host) == false, !defaults.isEmpty {
            // Checked before anything is bound: the default credentials are printed in docs/nowsim.md and
            // give admin rights, so whoever reaches the port could read and change every table.
            guard options.allowRemote else {
                printError(
                    NowSimArguments.UsageError(
                        description: "refusing to listen on \(options.host), which is not a loopback address, "
                            + "with the default \(defaults.joined(separator: " and ")): anyone who reaches it gets "
                            + "admin rights; give your own --user and --oauth-client, or --allow-remote to do it anyway",
                        command: "serve"
                    )
                    .text)
                return 64
            }
            let rule = String(repeating: "!", count: 72)
            printError(
                """
                \(rule)
                nowsim: WARNING: listening on \(options.host), which is not a loopback address, with the default
                nowsim: WARNING: \(defaults.joined(separator: " and ")) (--allow-remote).
                nowsim: WARNING: anyone who reaches this port can read and change every table as admin.
                \(rule)
                """)
        }

        let temporary = options.databasePath == nil
        let databasePath =
            options.databasePath
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "nowsim-\(getpid())-\(UUID().uuidString).sqlite"
            )
            .path
        defer {
            if temporary {
                for suffix in ["", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: databasePath + suffix)
                }
            }
        }
        let server: HTTPServer
        do {
            try Database.create(at: databasePath)
            if let plan {
                try seed(
                    databasePath: databasePath, plan: plan, seedValue: options.seedValue, sysIDSalt: options.sysIDSalt)
            }
            try ensureUsers(users, databasePath: databasePath)

            // One thread per connection by default, so that a slow request (an injected delay) does not
            // hold up the other connections a pool thread serves; --threads asks for a fixed pool.
            var configuration = HTTPServer.Configuration(
                host: options.host, port: options.port, threadPerConnection: options.threads == nil,
                maxConnections: options.maxConnections)
            if let threads = options.threads { configuration.threadPoolSize = threads }
            if let certificate = options.tlsCertificatePath, let key = options.tlsKeyPath {
                try configuration.loadTLS(certificateFile: certificate, keyFile: key)
            }
            if let clientCA = options.tlsClientCAPath { try configuration.loadTLSClientCA(file: clientCA) }
            let instance = try NowSimInstance(
                databasePath: databasePath,
                settings: InstanceSettings(invalidQueryReturnsNoRows: options.invalidQueryReturnsNoRows),
                connections: max(8, configuration.threadPoolSize + 2),
                authenticator: Authenticator(
                    users: users, clients: clients, accessTokenLifetime: TimeInterval(options.accessTokenLifetime),
                    refreshTokenLifetime: TimeInterval(options.refreshTokenLifetime)),
                faults: FaultInjector(faults: faults), accessRules: accessRules)
            if let unknown = accessRules.unknownTables(in: instance.catalog).first {
                printError(
                    NowSimArguments.UsageError(
                        description: "--table-acl/--row-acl: unknown table '\(unknown)'", command: "serve"
                    )
                    .text)
                return 64
            }
            if let problem = accessRules.unknownFields(in: instance.catalog).first {
                printError(NowSimArguments.UsageError(description: "--row-acl: \(problem)", command: "serve").text)
                return 64
            }
            server = HTTPServer(
                configuration: configuration, handler: instance, log: options.quiet ? nil : RequestLog())
            let signals = ShutdownSignals()
            let port = try server.start()
            let scheme = configuration.usesTLS ? "https" : "http"
            let host = options.host.contains(":") ? "[\(options.host)]" : options.host
            printError("nowsim \(nowsimVersion) listening on \(scheme)://\(host):\(port)")
            printError("nowsim: database \(databasePath)\(temporary ? " (temporary)" : "")")
            if options.users.isEmpty { printError("nowsim: user admin / password admin (role admin)") }
            if options.oauthClients.isEmpty { printError("nowsim: OAuth client_id nowsim / client_secret nowsim") }
            for fault in faults { printError("nowsim: fault \(fault)") }
            for rule in accessRules.tableRules { printError("nowsim: table ACL \(rule)") }
            for rule in accessRules.rowRules { printError("nowsim: row ACL \(rule)") }
            if let portFile = options.portFile { try writePortFile(portFile, port: port) }
            let signal = signals.wait()
            printError("nowsim: signal \(signal), stopping")
            // Delayed requests are answered (503) at once; the others get a few seconds to finish.
            instance.beginShutdown()
            server.stop(grace: .seconds(5))
            return 0
        } catch {
            printError("nowsim: \(error)")
            return 1
        }
    }
}
