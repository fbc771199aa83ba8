import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with a fresh database on the shared throwaway PostgreSQL server, and drops the database
/// afterwards (also when `body` throws).
///
/// - Throws: ``PostgresServerFailure`` when the server binaries are missing (run `make test`, which
///   installs them) or the server does not start; whatever `body` throws.
public func withPostgresDatabase<Value>(_ body: (PostgresTestDatabase) async throws -> Value) async throws -> Value {
    let server = try await PostgresServer.shared()
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

/// One database of a ``PostgresServer`` for one test: where it is and how to log in as the superuser.
public struct PostgresTestDatabase: Sendable {
    /// The server it lives on.
    public let server: PostgresServer
    /// The database name.
    public let name: String

    /// `postgres://<superuser>@127.0.0.1:<port>/<name>?sslmode=disable`, without the password.
    public var url: String { server.url(database: name) }
    /// The superuser's password (give it separately from ``url``).
    public var password: String { server.password }

    /// Runs `psql -X -At -v ON_ERROR_STOP=1 -c <sql>` on this database and returns its standard output.
    /// - Throws: ``PostgresServerFailure`` with what psql printed when it fails.
    public func psql(_ sql: String) async throws -> String {
        try await server.psql(database: name, sql)
    }
}

/// A throwaway PostgreSQL server for the tests: the Debian `postgresql` binaries, `initdb` into a
/// temporary folder, `postgres` on a free loopback port, stopped (fast shutdown, SIGINT) by ``stop()``
/// or when the test process exits.
///
/// The cluster has one superuser, ``superuser``, with a generated ``password`` and SCRAM authentication
/// for every connection, UTF8 encoding and the `C` locale; `fsync` is off (nothing in it must survive a
/// crash). Use ``shared()`` and one database per test (``createDatabase()``, or ``withPostgresDatabase(_:)``).
///
/// As root, which `initdb` and `postgres` refuse to run as, both run as `nobody:nogroup` through
/// `setpriv` (util-linux), with the folder chowned to that user; psql and pg_isready run as the caller.
/// The binaries come from `POSTGRES_BIN_DIR`, else the newest `/usr/lib/postgresql/<version>/bin`; when
/// they are missing the start fails (it is not skipped), saying to run `make test`, which installs them.
public final class PostgresServer: @unchecked Sendable {
    // @unchecked: everything is immutable after init; the child guards its own state.
    private let child: ChildProcess
    /// Where `initdb`, `postgres`, `psql` and `pg_isready` are.
    public let binDirectory: String
    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The TCP port.
    public let port: Int
    /// The superuser's name.
    public var superuser: String { Self.superuserName }
    private static let superuserName = "nowetl_test"
    /// The superuser's password (generated per server).
    public let password: String
    /// The cluster's folder (data directory, socket directory, output); removed on stop.
    public var directory: URL { child.directory }
    /// The postmaster's process id.
    public var pid: pid_t { child.pid }

    /// How long initdb plus the start may take before it counts as failed.
    public static let startupTimeout: TimeInterval = 60

    private init(child: ChildProcess, binDirectory: String, port: Int, password: String) {
        self.child = child
        self.binDirectory = binDirectory
        self.port = port
        self.password = password
    }

    deinit { stopBlocking() }

    /// `postgres://<superuser>@127.0.0.1:<port>/<database>?sslmode=disable` (no password in it).
    public func url(database: String) -> String {
        "postgres://\(superuser)@\(host):\(port)/\(database)?sslmode=disable"
    }

    // MARK: - Databases

    /// Creates a database with a fresh name (`test_<n>_<random>`) and returns it.
    /// - Throws: ``PostgresServerFailure`` with what psql printed.
    public func createDatabase() async throws -> PostgresTestDatabase {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        _ = try await psql(database: "postgres", "CREATE DATABASE \(name)")
        return PostgresTestDatabase(server: self, name: name)
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

    // MARK: - Shared server

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedServer: Task<PostgresServer, any Error>?

    /// The server every test of this process shares, started on first use and stopped at exit.
    public static func shared() async throws -> PostgresServer {
        let task: Task<PostgresServer, any Error> = sharedLock.withLock {
            if let sharedServer { return sharedServer }
            let task = Task { try await start() }
            sharedServer = task
            return task
        }
        return try await task.value
    }

    // MARK: - Start and stop

    /// Servers not stopped yet; the exit handler stops them.
    nonisolated(unsafe) private static var running: [PostgresServer] = []
    nonisolated(unsafe) private static var exitHandlerInstalled = false

    /// Remembers `server` so that the process's exit stops it with a fast shutdown (SIGINT). This handler
    /// is installed after the first child's (``ChildProcessTracker``'s SIGTERM would be PostgreSQL's
    /// smart shutdown, which waits for sessions), so it runs first.
    private static func registerForExit(_ server: PostgresServer) {
        sharedLock.withLock {
            running.append(server)
            if !exitHandlerInstalled {
                exitHandlerInstalled = true
                atexit {
                    let servers = PostgresServer.sharedLock.withLock { PostgresServer.running }
                    for server in servers { server.stopBlocking() }
                }
            }
        }
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
    /// ``stop()``.
    public static func startWithTLS(_ certificates: TestCertificates) async throws -> PostgresServer {
        try await offCooperativePool { try startBlocking(tls: certificates) }
    }

    /// Stops the server (SIGINT: fast shutdown, sessions are ended), waits for it on a thread of its own
    /// and removes ``directory``.
    public func stop() async {
        _ = try? await offCooperativePool { self.stopBlocking() }
    }

    private func stopBlocking() {
        Self.sharedLock.withLock { Self.running.removeAll { $0 === self } }
        if child.poll() == nil {
            kill(child.pid, SIGINT)
            if child.waitForExit(timeout: 30) == nil { child.terminateBlocking(grace: 5) }
        }
        child.removeDirectory()
    }

    private static func startBlocking(tls: TestCertificates?) throws -> PostgresServer {
        let binDirectory = try findBinDirectory()
        let runAs = try unprivilegedPrefix()
        // As root the folder must be reachable by nobody: under /tmp, not a private TMPDIR.
        let temporary = runAs.isEmpty ? FileManager.default.temporaryDirectory : URL(fileURLWithPath: "/tmp")
        let directory = temporary.appendingPathComponent("nowetl-postgres-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data").path
        let sockets = directory.appendingPathComponent("sockets").path
        let passwordFile = directory.appendingPathComponent("password").path
        let password = generatedPassword()
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        chmod(passwordFile, 0o600)
        // postgres accepts a key only if its owner (the server's user) alone can read it.
        let certificate = directory.appendingPathComponent("server.crt").path
        let key = directory.appendingPathComponent("server.key").path
        var tlsArguments: [String] = []
        if let tls {
            try fileManager.copyItem(atPath: tls.serverCertificate, toPath: certificate)
            try fileManager.copyItem(atPath: tls.serverKey, toPath: key)
            chmod(key, 0o600)
            tlsArguments = ["-c", "ssl=on", "-c", "ssl_cert_file=\(certificate)", "-c", "ssl_key_file=\(key)"]
        }
        if !runAs.isEmpty {
            try chownToNobody([directory.path, sockets, passwordFile] + (tls == nil ? [] : [certificate, key]))
        }
        let cleanUp = { try? fileManager.removeItem(at: directory) }

        let initdb = try runBlocking(
            runAs + [
                binDirectory + "/initdb", "-D", data, "-U", superuserName, "--auth=scram-sha-256",
                "--pwfile=\(passwordFile)", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
            ], directory: directory, timeout: startupTimeout * 2)
        guard initdb.status == 0 else {
            cleanUp()
            throw PostgresServerFailure(description: "\(initdb.command) exited with \(initdb.status)\n\(initdb.output)")
        }

        // A free port can be taken by someone else before postgres binds it: then try another.
        var lastFailure = ""
        for _ in 0..<3 {
            let port = try freePort()
            let server =
                [
                    binDirectory + "/postgres", "-D", data, "-p", String(port), "-k", sockets,
                    "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off", "-c", "max_connections=60", "-c", "shared_buffers=32MB",
                ] + tlsArguments
            let words = runAs + server
            let child: ChildProcess
            do {
                child = try ChildProcess(
                    words[0], Array(words.dropFirst()), directory: directory, scratch: directory)
            } catch {
                cleanUp()
                throw PostgresServerFailure(description: "postgres did not start: \(error)")
            }
            switch waitUntilReady(child, binDirectory: binDirectory, port: port) {
            case .ready:
                let started = PostgresServer(child: child, binDirectory: binDirectory, port: port, password: password)
                registerForExit(started)
                return started
            case .exited(let printed) where printed.contains("Address already in use"):
                lastFailure = printed
                continue
            case .exited(let printed), .timedOut(let printed):
                child.terminateBlocking(grace: 5)
                cleanUp()
                throw PostgresServerFailure(description: "\(child.command) did not start\n\(printed)")
            }
        }
        cleanUp()
        throw PostgresServerFailure(description: "postgres found no free port after 3 tries\n\(lastFailure)")
    }

    private enum Readiness {
        case ready
        case exited(String)
        case timedOut(String)
    }

    /// Polls `pg_isready` (a real connection attempt) until it succeeds, the server exits, or the deadline.
    private static func waitUntilReady(_ child: ChildProcess, binDirectory: String, port: Int) -> Readiness {
        let deadline = Date().addingTimeInterval(startupTimeout)
        var pause: UInt32 = 20_000
        while true {
            if let status = child.poll() { return .exited("exit status \(status)\n\(child.printed)") }
            if let probe = try? ChildProcess(
                binDirectory + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", String(port), "-t", "5"])
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

    /// `setpriv` to `nobody:nogroup` when running as root (initdb and postgres refuse root), else nothing.
    static func unprivilegedPrefix() throws -> [String] {
        guard getuid() == 0 else { return [] }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw PostgresServerFailure(
                description: "running as root, the PostgreSQL server must run as another user, but /usr/bin/setpriv "
                    + "(util-linux) is missing")
        }
        return ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    }

    static func chownToNobody(_ paths: [String]) throws {
        guard let user = getpwnam("nobody") else {
            throw PostgresServerFailure(description: "running as root, but there is no user nobody to run postgres as")
        }
        let uid = user.pointee.pw_uid
        let gid = getgrnam("nogroup")?.pointee.gr_gid ?? user.pointee.pw_gid
        for path in paths where chown(path, uid, gid) != 0 {
            throw PostgresServerFailure(
                description: "cannot chown \(path) to nobody: \(String(cString: strerror(errno)))")
        }
    }

    static func runBlocking(_ words: [String], directory: URL, timeout: TimeInterval) throws
        -> SubprocessResult
    {
        let child = try ChildProcess(words[0], Array(words.dropFirst()), directory: directory)
        defer { child.removeDirectory() }
        guard let status = child.waitForExit(timeout: timeout) else {
            let status = child.terminateBlocking(grace: 5)
            throw PostgresServerFailure(
                description: "\(child.command) did not finish within \(timeout) s (killed, \(status))\n\(child.printed)"
            )
        }
        return SubprocessResult(command: child.command, status: status, stdout: child.stdout, stderr: child.stderr)
    }

    /// 24 random letters and digits.
    static func generatedPassword() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// A loopback port nothing listens on right now (bound to port 0, read back, closed).
    static func freePort() throws -> Int {
        let fd: Int32
        let port: UInt16
        do {
            (fd, port) = try LoopbackSocket.bound()
        } catch let error as POSIXError where error.code == .EIO {
            throw PostgresServerFailure(description: "no socket for a free port")
        } catch {
            throw PostgresServerFailure(description: "cannot bind a free port")
        }
        close(fd)
        return Int(port)
    }
}

/// The throwaway PostgreSQL server could not be found, started or driven; the description says why and
/// carries what the programs printed.
public struct PostgresServerFailure: Error, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// Creates a failure.
    public init(description: String) { self.description = description }
}
