import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with a fresh database on the shared throwaway MariaDB server, and drops the database
/// afterwards (also when `body` throws).
///
/// - Throws: ``MariaDBServerFailure`` when the server binaries are missing (run `make test`, which
///   installs them) or the server does not start; whatever `body` throws.
public func withMariaDBDatabase<Value>(_ body: (MariaDBTestDatabase) async throws -> Value) async throws -> Value {
    let server = try await MariaDBServer.shared()
    let database = try await server.createDatabase()
    do {
        let value = try await body(database)
        try? await server.dropDatabase(database.name)
        return value
    } catch {
        try? await server.dropDatabase(database.name)
        throw error
    }
}

/// One database of a ``MariaDBServer`` for one test: where it is and how to log in.
public struct MariaDBTestDatabase: Sendable {
    /// The server it lives on.
    public let server: MariaDBServer
    /// The database name.
    public let name: String

    /// `mysql://<user>@127.0.0.1:<port>/<name>`, without the password.
    public var url: String { server.url(database: name) }
    /// The test user's password (give it separately from ``url``).
    public var password: String { server.password }

    /// Runs `sql` with the `mariadb` client on this database; returns its output, rows one per line,
    /// columns separated by tabs (batch mode: a newline in a value is `\n`, a tab `\t`, NUL `\0`).
    /// - Throws: ``MariaDBServerFailure`` with what the client printed when it fails.
    public func sql(_ sql: String) async throws -> String {
        try await server.sql(database: name, sql)
    }
}

/// A throwaway MariaDB server for the tests: the Debian `mariadb-server` binaries, `mariadb-install-db`
/// into a temporary folder, `mariadbd` on a free loopback port and a Unix socket in that folder, stopped
/// (SIGTERM, then SIGKILL) by ``stop()`` or when the test process exits.
///
/// Grants are checked (no `--skip-grant-tables`): the tests connect over TCP as ``user``, created at start
/// with a generated ``password`` and every privilege; root has no password and is reachable only through
/// the socket. Durability is off (`innodb_flush_log_at_trx_commit=0`, the doublewrite buffer off):
/// nothing in it must survive a crash of the server — the crash tests kill nowetl, not the server. Use
/// ``shared()`` and one database per test (``createDatabase()``, or ``withMariaDBDatabase(_:)``).
///
/// As root both programs run as `nobody:nogroup` through `setpriv`, like ``PostgresServer``'s. The
/// binaries are `/usr/sbin/mariadbd`, `mariadb-install-db` and `mariadb` (or `MARIADB_BIN_DIR`); when they
/// are missing the start fails (it is not skipped), saying to run `make test`, which installs them.
public final class MariaDBServer: @unchecked Sendable {
    // @unchecked: everything is immutable after init; the child guards its own state.
    private let child: ChildProcess
    private let binaries: Binaries
    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The TCP port.
    public let port: Int
    /// The test user's name.
    public let user = "nowetl_test"
    /// The test user's password (generated per server).
    public let password: String
    /// The server's folder (data directory, socket, output); removed on stop.
    public var directory: URL { child.directory }
    /// The server's Unix socket.
    public var socket: String { directory.appendingPathComponent("mysqld.sock").path }

    /// How long the bootstrap plus the start may take before it counts as failed.
    public static let startupTimeout: TimeInterval = 90

    private init(child: ChildProcess, binaries: Binaries, port: Int, password: String) {
        self.child = child
        self.binaries = binaries
        self.port = port
        self.password = password
    }

    deinit { stopBlocking() }

    /// `mysql://<user>@127.0.0.1:<port>/<database>` (no password in it; loopback: TLS if offered).
    public func url(database: String) -> String { "mysql://\(user)@\(host):\(port)/\(database)" }

    // MARK: - Databases

    /// Creates a database with a fresh name (`test_<random>`) and returns it.
    public func createDatabase() async throws -> MariaDBTestDatabase {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        _ = try await sql(database: nil, "CREATE DATABASE \(name)")
        return MariaDBTestDatabase(server: self, name: name)
    }

    /// Drops `name`.
    public func dropDatabase(_ name: String) async throws {
        _ = try await sql(database: nil, "DROP DATABASE IF EXISTS \(name)")
    }

    /// Runs `sql` with the `mariadb` client as ``user`` over TCP on `database`; returns its standard output.
    /// - Throws: ``MariaDBServerFailure`` with what the client printed when it exits with a failure.
    public func sql(database: String?, _ sql: String) async throws -> String {
        let result = try await Subprocess.run(
            binaries.client,
            [
                "--no-defaults", "--batch", "--skip-column-names", "--default-character-set=utf8mb4", "--protocol=TCP",
                "-h", host, "-P", String(port),
                "-u", user, "--connect-timeout=30", "-e", sql,
            ] + (database.map { [$0] } ?? []), environment: ["MYSQL_PWD": password], timeout: 120)
        guard result.status == 0 else {
            throw MariaDBServerFailure(description: "\(result.command) exited with \(result.status): \(result.output)")
        }
        return result.stdoutText
    }

    // MARK: - Shared server

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedServer: Task<MariaDBServer, any Error>?
    nonisolated(unsafe) private static var running: [MariaDBServer] = []
    nonisolated(unsafe) private static var exitHandlerInstalled = false

    /// The server every test of this process shares, started on first use and stopped at exit.
    public static func shared() async throws -> MariaDBServer {
        let task: Task<MariaDBServer, any Error> = sharedLock.withLock {
            if let sharedServer { return sharedServer }
            let task = Task { try await offCooperativePool { try startBlocking() } }
            sharedServer = task
            return task
        }
        return try await task.value
    }

    private static func registerForExit(_ server: MariaDBServer) {
        sharedLock.withLock {
            running.append(server)
            if !exitHandlerInstalled {
                exitHandlerInstalled = true
                atexit {
                    let servers = MariaDBServer.sharedLock.withLock { MariaDBServer.running }
                    for server in servers { server.stopBlocking() }
                }
            }
        }
    }

    /// Stops the server and removes ``directory``.
    public func stop() async {
        _ = try? await offCooperativePool { self.stopBlocking() }
    }

    private func stopBlocking() {
        Self.sharedLock.withLock { Self.running.removeAll { $0 === self } }
        if child.poll() == nil { child.terminateBlocking(grace: 20) }
        child.removeDirectory()
    }

    // MARK: - Start

    /// Where the programs are.
    private struct Binaries {
        var server: String
        var installDB: String
        var client: String
        var admin: String
    }

    private static func findBinaries() throws -> Binaries {
        let folder = ProcessInfo.processInfo.environment["MARIADB_BIN_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let binaries = Binaries(
            server: (folder ?? "/usr/sbin") + "/mariadbd", installDB: (folder ?? "/usr/bin") + "/mariadb-install-db",
            client: (folder ?? "/usr/bin") + "/mariadb", admin: (folder ?? "/usr/bin") + "/mariadb-admin")
        for path in [binaries.server, binaries.installDB, binaries.client, binaries.admin]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw MariaDBServerFailure(
                description: "the MariaDB server is not installed (no \(path)): run `make test`, which installs the "
                    + "Debian packages mariadb-server and libmariadb-dev, or `apt-get install mariadb-server`")
        }
        return binaries
    }

    private static func startBlocking() throws -> MariaDBServer {
        let binaries = try findBinaries()
        let runAs = try PostgresServer.unprivilegedPrefix()
        let temporary = runAs.isEmpty ? FileManager.default.temporaryDirectory : URL(fileURLWithPath: "/tmp")
        let directory = temporary.appendingPathComponent("nowetl-mariadb-\(UUID().uuidString.prefix(8))")
        let data = directory.appendingPathComponent("data").path
        let socket = directory.appendingPathComponent("mysqld.sock").path
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: data, withIntermediateDirectories: true)
        if !runAs.isEmpty { try PostgresServer.chownToNobody([directory.path, data]) }
        let cleanUp = { try? fileManager.removeItem(at: directory) }

        let install = try PostgresServer.runBlocking(
            runAs + [
                binaries.installDB, "--no-defaults", "--datadir=\(data)", "--auth-root-authentication-method=normal",
                "--skip-test-db", "--skip-name-resolve",
            ], directory: directory, timeout: startupTimeout * 2)
        guard install.status == 0 else {
            cleanUp()
            throw MariaDBServerFailure(
                description: "\(install.command) exited with \(install.status)\n\(install.output)")
        }

        var lastFailure = ""
        for _ in 0..<3 {
            let port = try PostgresServer.freePort()
            let words =
                runAs + [
                    binaries.server, "--no-defaults", "--datadir=\(data)", "--socket=\(socket)", "--port=\(port)",
                    "--bind-address=127.0.0.1", "--skip-name-resolve", "--pid-file=\(directory.path)/mysqld.pid",
                    "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
                    "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--skip-log-bin",
                    "--max-connections=100", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin",
                ]
            let child: ChildProcess
            do {
                child = try ChildProcess(words[0], Array(words.dropFirst()), directory: directory, scratch: directory)
            } catch {
                cleanUp()
                throw MariaDBServerFailure(description: "mariadbd did not start: \(error)")
            }
            let password = PostgresServer.generatedPassword()
            switch waitUntilReady(child, binaries: binaries, socket: socket) {
            case .ready:
                let create = try PostgresServer.runBlocking(
                    [
                        binaries.client, "--no-defaults", "--socket=\(socket)", "-u", "root", "-e",
                        "CREATE USER 'nowetl_test'@'%' IDENTIFIED BY '\(password)'; "
                            + "GRANT ALL PRIVILEGES ON *.* TO 'nowetl_test'@'%' WITH GRANT OPTION",
                    ], directory: directory, timeout: 60)
                guard create.status == 0 else {
                    child.terminateBlocking(grace: 5)
                    cleanUp()
                    throw MariaDBServerFailure(description: "creating the test user failed\n\(create.output)")
                }
                let started = MariaDBServer(child: child, binaries: binaries, port: port, password: password)
                registerForExit(started)
                return started
            case .exited(let printed) where printed.contains("Address already in use"):
                lastFailure = printed
                continue
            case .exited(let printed), .timedOut(let printed):
                child.terminateBlocking(grace: 5)
                cleanUp()
                throw MariaDBServerFailure(description: "\(child.command) did not start\n\(printed)")
            }
        }
        cleanUp()
        throw MariaDBServerFailure(description: "mariadbd found no free port after 3 tries\n\(lastFailure)")
    }

    private enum Readiness {
        case ready
        case exited(String)
        case timedOut(String)
    }

    /// Polls `mariadb-admin ping` on the socket until it succeeds, the server exits, or the deadline.
    private static func waitUntilReady(_ child: ChildProcess, binaries: Binaries, socket: String) -> Readiness {
        let deadline = Date().addingTimeInterval(startupTimeout)
        var pause: UInt32 = 50_000
        while true {
            if let status = child.poll() { return .exited("exit status \(status)\n\(child.printed)") }
            if FileManager.default.fileExists(atPath: socket),
                let probe = try? ChildProcess(
                    binaries.admin,
                    ["--no-defaults", "--socket=\(socket)", "-u", "root", "--connect-timeout=5", "ping"])
            {
                let status = probe.waitForExit(timeout: 20) ?? probe.terminateBlocking(grace: 1)
                probe.removeDirectory()
                if status == 0 { return .ready }
            }
            if Date() >= deadline {
                return .timedOut("not accepting connections after \(startupTimeout) s\n\(child.printed)")
            }
            usleep(pause)
            pause = min(pause * 2, 250_000)
        }
    }
}

/// The throwaway MariaDB server could not be found, started or driven; the description says why.
public struct MariaDBServerFailure: Error, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// Creates a failure.
    public init(description: String) { self.description = description }
}
