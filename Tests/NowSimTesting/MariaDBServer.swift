import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway MariaDB server for the tests: the Debian `mariadb-server` binaries, `mariadb-install-db`
/// into a temporary folder, `mariadbd` on a free loopback port and a Unix socket in that folder, stopped
/// (SIGTERM, then SIGKILL) by `stop()` or when the test process exits.
///
/// Grants are checked (no `--skip-grant-tables`): the tests connect over TCP as ``user``, created at start
/// with a generated `password` and every privilege; root has no password and is reachable only through
/// the socket. Durability is off (`innodb_flush_log_at_trx_commit=0`, the doublewrite buffer off):
/// nothing in it must survive a crash of the server — the crash tests kill nowetl, not the server. Use
/// ``shared()`` and one database per test (``createDatabase()``, or ``withMariaDBDatabase(_:)``).
///
/// As root both programs run as `nobody:nogroup` through `setpriv`, like ``PostgresServer``'s. The
/// binaries are `/usr/sbin/mariadbd`, `mariadb-install-db` and `mariadb` (or `MARIADB_BIN_DIR`); when they
/// are missing the start fails (it is not skipped), saying to run `make test`, which installs them.
public final class MariaDBServer: ThrowawayDatabaseServer, @unchecked Sendable {
    // @unchecked: everything is immutable after init; the child guards its own state.
    private let binaries: Binaries
    /// The test user's name.
    public let user = "nowetl_test"
    /// The server's Unix socket.
    public var socket: String { directory.appendingPathComponent("mysqld.sock").path }

    /// How long the bootstrap plus the start may take before it counts as failed.
    public static let startupTimeout: TimeInterval = 90

    private init(child: ChildProcess, binaries: Binaries, port: Int, password: String) {
        self.binaries = binaries
        super.init(child: child, port: port, password: password, stopSignal: SIGTERM)
    }

    /// `mysql://<user>@127.0.0.1:<port>/<database>` (no password in it; loopback: TLS if offered).
    public func url(database: String) -> String { "mysql://\(user)@\(host):\(port)/\(database)" }

    // MARK: - Databases

    /// Creates a database with a fresh name (`test_<random>`) and returns it.
    public func createDatabase() async throws -> MariaDBTestDatabase {
        let name = Self.freshDatabaseName()
        _ = try await sql(database: nil, "CREATE DATABASE \(name)")
        return MariaDBTestDatabase(server: self, name: name, url: url(database: name))
    }

    /// Runs `body` with a fresh database of this server, and drops the database afterwards (also when
    /// `body` throws).
    public func withDatabase<Value>(_ body: (MariaDBTestDatabase) async throws -> Value) async throws -> Value {
        let database = try await createDatabase()
        return try await Self.using(database, named: database.name, drop: dropDatabase, body)
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

    private static let sharedServer = Shared<MariaDBServer>()

    /// The server every test of this process shares (without TLS), started on first use and stopped at
    /// exit.
    public static func shared() async throws -> MariaDBServer {
        try await sharedServer.server { try await offCooperativePool { try startBlocking(tls: nil) } }
    }

    /// Starts a server of its own (not ``shared()``, which has no TLS) that also offers TLS with the server
    /// certificate of `certificates` (issued by their CA for `127.0.0.1` and `localhost`); stop it with
    /// `stop()`.
    public static func startWithTLS(_ certificates: TestCertificates) async throws -> MariaDBServer {
        try await offCooperativePool { try startBlocking(tls: certificates) }
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

    private static func startBlocking(tls: TestCertificates?) throws -> MariaDBServer {
        let binaries = try findBinaries()
        let runAs = try unprivilegedPrefix()
        let directory = temporaryDirectory(runAs: runAs).appendingPathComponent(
            "nowetl-mariadb-\(UUID().uuidString.prefix(8))")
        let data = directory.appendingPathComponent("data").path
        let socket = directory.appendingPathComponent("mysqld.sock").path
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: data, withIntermediateDirectories: true)
        if !runAs.isEmpty { try chownToNobody([directory.path, data]) }
        let cleanUp = { _ = try? fileManager.removeItem(at: directory) }
        var tlsArguments: [String] = []
        if let tls {
            let copies = [tls.caCertificate, tls.serverCertificate, tls.serverKey].map { file in
                (from: file, to: directory.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent).path)
            }
            try installPrivateCopies(copies, runAs: runAs)
            tlsArguments = ["--ssl-ca=\(copies[0].to)", "--ssl-cert=\(copies[1].to)", "--ssl-key=\(copies[2].to)"]
        }

        let install = try runBlocking(
            runAs + [
                binaries.installDB, "--no-defaults", "--datadir=\(data)", "--auth-root-authentication-method=normal",
                "--skip-test-db", "--skip-name-resolve",
            ], directory: directory, timeout: startupTimeout * 2)
        guard install.status == 0 else {
            cleanUp()
            throw MariaDBServerFailure(
                description: "\(install.command) exited with \(install.status)\n\(install.output)")
        }

        let (child, port) = try startOnFreePort(
            "mariadbd", directory: directory, timeout: startupTimeout, cleanUp: cleanUp,
            command: { port in
                runAs + [
                    binaries.server, "--no-defaults", "--datadir=\(data)", "--socket=\(socket)", "--port=\(port)",
                    "--bind-address=127.0.0.1", "--skip-name-resolve", "--pid-file=\(directory.path)/mysqld.pid",
                    "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
                    "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--skip-log-bin",
                    "--max-connections=100", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin",
                ] + tlsArguments
            },
            probe: { _ in
                guard fileManager.fileExists(atPath: socket) else { return nil }
                return [
                    binaries.admin, "--no-defaults", "--socket=\(socket)", "-u", "root", "--connect-timeout=5", "ping",
                ]
            })
        let password = generatedPassword()
        let create = try runBlocking(
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
    }
}

/// One database of a ``MariaDBServer`` for one test.
public typealias MariaDBTestDatabase = ThrowawayTestDatabase<MariaDBServer>

extension ThrowawayTestDatabase where Server == MariaDBServer {
    /// Runs `sql` with the `mariadb` client on this database; returns its output, rows one per line,
    /// columns separated by tabs (batch mode: a newline in a value is `\n`, a tab `\t`, NUL `\0`).
    /// - Throws: ``MariaDBServerFailure`` with what the client printed when it fails.
    public func sql(_ sql: String) async throws -> String {
        try await server.sql(database: name, sql)
    }
}
