import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for the tests: the Debian `postgresql` binaries, `initdb` into a
/// temporary folder, `postgres` on a free loopback port, stopped (fast shutdown, SIGINT) by `stop()`
/// or when the test process exits.
///
/// The cluster has one superuser, ``superuser``, with a generated `password` and SCRAM authentication
/// for every connection, UTF8 encoding and the `C` locale; `fsync` is off (nothing in it must survive a
/// crash). Use ``shared()`` and one database per test (``createDatabase()``, or ``withPostgresDatabase(_:)``).
///
/// As root, which `initdb` and `postgres` refuse to run as, both run as `nobody:nogroup` through
/// `setpriv` (util-linux), with the folder chowned to that user; psql and pg_isready run as the caller.
/// The binaries come from `POSTGRES_BIN_DIR`, else the newest `/usr/lib/postgresql/<version>/bin`; when
/// they are missing the start fails (it is not skipped), saying to run `make test`, which installs them.
public final class PostgresServer: ThrowawayDatabaseServer, @unchecked Sendable {
    // @unchecked: everything is immutable after init; the child guards its own state.
    /// Where `initdb`, `postgres`, `psql` and `pg_isready` are.
    public let binDirectory: String
    /// The superuser's name.
    public var superuser: String { Self.superuserName }
    private static let superuserName = "nowetl_test"
    /// The postmaster's process id.
    public var pid: pid_t { child.pid }

    /// How long initdb plus the start may take before it counts as failed.
    public static let startupTimeout: TimeInterval = 60

    /// Stopped with SIGINT, PostgreSQL's fast shutdown (SIGTERM would be its smart shutdown, which waits
    /// for sessions).
    private init(child: ChildProcess, binDirectory: String, port: Int, password: String) {
        self.binDirectory = binDirectory
        super.init(child: child, port: port, password: password, stopSignal: SIGINT)
    }

    /// `postgres://<superuser>@127.0.0.1:<port>/<database>?sslmode=disable` (no password in it).
    public func url(database: String) -> String {
        "postgres://\(superuser)@\(host):\(port)/\(database)?sslmode=disable"
    }

    // MARK: - Databases

    /// Creates a database with a fresh name (`test_<n>_<random>`) and returns it.
    /// - Throws: ``PostgresServerFailure`` with what psql printed.
    public func createDatabase() async throws -> PostgresTestDatabase {
        let name = Self.freshDatabaseName()
        _ = try await psql(database: "postgres", "CREATE DATABASE \(name)")
        return PostgresTestDatabase(server: self, name: name, url: url(database: name))
    }

    /// Runs `body` with a fresh database of this server, and drops the database afterwards (also when
    /// `body` throws).
    public func withDatabase<Value>(_ body: (PostgresTestDatabase) async throws -> Value) async throws -> Value {
        let database = try await createDatabase()
        return try await Self.using(database, named: database.name, drop: dropDatabase, body)
    }

    /// Drops `name`, disconnecting its sessions first.
    public func dropDatabase(_ name: String) async throws {
        _ = try await psql(database: "postgres", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Runs `psql -X -At -v ON_ERROR_STOP=1 -c <sql>` as the superuser on `database`; returns its standard
    /// output (rows one per line, columns separated by `|`).
    /// - Throws: ``PostgresServerFailure`` with what psql printed when it exits with a failure.
    public func psql(database: String, _ sql: String) async throws -> String {
        let result = try await Subprocess.run(
            binDirectory + "/psql",
            [
                "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", String(port), "-U", superuser, "-d",
                database, "-c", sql,
            ],
            environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "30"], timeout: 120)
        guard result.status == 0 else {
            throw PostgresServerFailure(description: "\(result.command) exited with \(result.status): \(result.output)")
        }
        return result.stdoutText
    }

    // MARK: - Start

    private static let sharedServer = Shared<PostgresServer>()

    /// The server every test of this process shares, started on first use and stopped at exit.
    public static func shared() async throws -> PostgresServer {
        try await sharedServer.server { try await start() }
    }

    /// Initializes a cluster in a temporary folder and starts a server on it (on a thread of its own),
    /// waiting until `pg_isready` reports that it accepts connections.
    ///
    /// - Throws: ``PostgresServerFailure`` when the binaries are missing, `initdb` fails, or the server
    ///   exits or does not accept connections within ``startupTimeout``.
    public static func start() async throws -> PostgresServer {
        try await offCooperativePool { try startBlocking(tls: nil) }
    }

    /// Starts a server of its own (not ``shared()``, which has no TLS) that also offers TLS with the server
    /// certificate of `certificates` (issued by their CA for `127.0.0.1` and `localhost`); stop it with
    /// `stop()`.
    public static func startWithTLS(_ certificates: TestCertificates) async throws -> PostgresServer {
        try await offCooperativePool { try startBlocking(tls: certificates) }
    }

    private static func startBlocking(tls: TestCertificates?) throws -> PostgresServer {
        let binDirectory = try findBinDirectory()
        let runAs = try unprivilegedPrefix()
        let directory = temporaryDirectory(runAs: runAs).appendingPathComponent("nowetl-postgres-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data").path
        let sockets = directory.appendingPathComponent("sockets").path
        let passwordFile = directory.appendingPathComponent("password").path
        let password = generatedPassword()
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        chmod(passwordFile, 0o600)
        if !runAs.isEmpty { try chownToNobody([directory.path, sockets, passwordFile]) }
        let certificate = directory.appendingPathComponent("server.crt").path
        let key = directory.appendingPathComponent("server.key").path
        var tlsArguments: [String] = []
        if let tls {
            try installPrivateCopies([(tls.serverCertificate, certificate), (tls.serverKey, key)], runAs: runAs)
            tlsArguments = ["-c", "ssl=on", "-c", "ssl_cert_file=\(certificate)", "-c", "ssl_key_file=\(key)"]
        }
        let cleanUp = { _ = try? fileManager.removeItem(at: directory) }

        let initdb = try runBlocking(
            runAs + [
                binDirectory + "/initdb", "-D", data, "-U", superuserName, "--auth=scram-sha-256",
                "--pwfile=\(passwordFile)", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
            ], directory: directory, timeout: startupTimeout * 2)
        guard initdb.status == 0 else {
            cleanUp()
            throw PostgresServerFailure(description: "\(initdb.command) exited with \(initdb.status)\n\(initdb.output)")
        }

        let (child, port) = try startOnFreePort(
            "postgres", directory: directory, timeout: startupTimeout, cleanUp: cleanUp,
            command: { port in
                runAs + [
                    binDirectory + "/postgres", "-D", data, "-p", String(port), "-k", sockets,
                    "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off", "-c", "max_connections=60", "-c", "shared_buffers=32MB",
                ] + tlsArguments
            },
            probe: { port in [binDirectory + "/pg_isready", "-q", "-h", "127.0.0.1", "-p", String(port), "-t", "5"] })
        let started = PostgresServer(child: child, binDirectory: binDirectory, port: port, password: password)
        registerForExit(started)
        return started
    }

    /// `POSTGRES_BIN_DIR`, else the newest `/usr/lib/postgresql/<version>/bin` holding `initdb`.
    private static func findBinDirectory() throws -> String {
        let fileManager = FileManager.default
        if let folder = ProcessInfo.processInfo.environment["POSTGRES_BIN_DIR"], !folder.isEmpty {
            guard fileManager.isExecutableFile(atPath: folder + "/initdb") else {
                throw PostgresServerFailure(description: "POSTGRES_BIN_DIR=\(folder) holds no initdb")
            }
            return folder
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fileManager.contentsOfDirectory(atPath: root)) ?? [])
            .filter { fileManager.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
            .sorted { (Double($0) ?? 0) > (Double($1) ?? 0) }
        guard let newest = versions.first else {
            throw PostgresServerFailure(
                description: "the PostgreSQL server is not installed (no \(root)/<version>/bin/initdb): run "
                    + "`make test`, which installs the Debian package postgresql, or `apt-get install postgresql`")
        }
        return "\(root)/\(newest)/bin"
    }
}

/// One database of a ``PostgresServer`` for one test (its user the superuser).
public typealias PostgresTestDatabase = ThrowawayTestDatabase<PostgresServer>

extension ThrowawayTestDatabase where Server == PostgresServer {
    /// Runs `psql -X -At -v ON_ERROR_STOP=1 -c <sql>` on this database and returns its standard output.
    /// - Throws: ``PostgresServerFailure`` with what psql printed when it fails.
    public func psql(_ sql: String) async throws -> String {
        try await server.psql(database: name, sql)
    }
}
