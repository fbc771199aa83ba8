import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the tests' throwaway database servers (``PostgresServer``, ``MariaDBServer``) share: the server
/// process on a loopback port with a generated password, its stop (a signal, then SIGKILL) by ``stop()``
/// or at the test process's exit, and the helpers of their start (running as `nobody` when root, a free
/// port, waiting until the server answers).
///
/// `@unchecked Sendable`: everything is immutable after init; the child guards its own state.
public class ThrowawayDatabaseServer: @unchecked Sendable {
    /// The server process.
    let child: ChildProcess
    /// The signal that shuts the server down cleanly, ending its sessions.
    private let stopSignal: Int32
    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The TCP port.
    public let port: Int
    /// The test user's password (generated per server).
    public let password: String
    /// The server's folder (data directory, sockets, output); removed on stop.
    public var directory: URL { child.directory }

    init(child: ChildProcess, port: Int, password: String, stopSignal: Int32) {
        self.child = child
        self.port = port
        self.password = password
        self.stopSignal = stopSignal
    }

    deinit { stopBlocking() }

    /// Stops the server (its clean shutdown, SIGKILL after 30 s), waits for it on a thread of its own and
    /// removes ``directory``.
    public func stop() async {
        _ = try? await offCooperativePool { self.stopBlocking() }
    }

    func stopBlocking() {
        Self.running.withLock { $0.removeAll { $0 === self } }
        if child.poll() == nil {
            kill(child.pid, stopSignal)
            if child.waitForExit(timeout: 30) == nil { child.terminateBlocking(grace: 5) }
        }
        child.removeDirectory()
    }

    // MARK: - Stop at exit

    /// Servers not stopped yet; the exit handler stops them.
    private static let running = ServerList()

    /// A lock-guarded list of the servers to stop at exit.
    final class ServerList: @unchecked Sendable {
        // @unchecked: `servers` and `installed` are only touched under `lock`.
        private let lock = NSLock()
        private var servers: [ThrowawayDatabaseServer] = []
        private var installed = false

        func withLock<T>(_ body: (inout [ThrowawayDatabaseServer]) -> T) -> T {
            lock.withLock { body(&servers) }
        }

        /// Adds `server`, installing the exit handler with the first. It is installed after the first
        /// child's (``ChildProcessTracker``'s SIGTERM would be PostgreSQL's smart shutdown, which waits for
        /// sessions), so it runs first.
        func add(_ server: ThrowawayDatabaseServer) {
            lock.withLock {
                servers.append(server)
                if !installed {
                    installed = true
                    atexit {
                        let servers = ThrowawayDatabaseServer.running.withLock { $0 }
                        for server in servers { server.stopBlocking() }
                    }
                }
            }
        }
    }

    /// Remembers a started server so that the process's exit stops it.
    static func registerForExit(_ server: ThrowawayDatabaseServer) { running.add(server) }

    /// Starts a server once per test process: the first caller starts it with `start`, every caller
    /// gets it.
    final class Shared<Server: ThrowawayDatabaseServer>: @unchecked Sendable {
        // @unchecked: `task` is only touched under `lock`.
        private let lock = NSLock()
        private var task: Task<Server, any Error>?

        func server(start: @escaping @Sendable () async throws -> Server) async throws -> Server {
            let running: Task<Server, any Error> = lock.withLock {
                if let task { return task }
                let started = Task { try await start() }
                task = started
                return started
            }
            return try await running.value
        }
    }

    // MARK: - Databases

    /// A fresh database name, `test_<16 random hex digits>`.
    static func freshDatabaseName() -> String {
        "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
    }

    /// Runs `body` with `database`, dropping it (by `name`, with `drop`) afterwards, also when `body`
    /// throws.
    static func using<Database, Value>(
        _ database: Database, named name: String, drop: (String) async throws -> Void,
        _ body: (Database) async throws -> Value
    ) async throws -> Value {
        do {
            let value = try await body(database)
            try? await drop(name)
            return value
        } catch {
            try? await drop(name)
            throw error
        }
    }

    // MARK: - Start

    /// `setpriv` to `nobody:nogroup` when running as root (initdb, postgres and mariadbd refuse root),
    /// else nothing.
    static func unprivilegedPrefix() throws -> [String] {
        guard getuid() == 0 else { return [] }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw DatabaseServerFailure(
                description: "running as root, the database server must run as another user, but /usr/bin/setpriv "
                    + "(util-linux) is missing")
        }
        return ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    }

    /// The temporary folder of a server's files: as root it must be reachable by nobody, so `/tmp`, not a
    /// private TMPDIR.
    static func temporaryDirectory(runAs: [String]) -> URL {
        runAs.isEmpty ? FileManager.default.temporaryDirectory : URL(fileURLWithPath: "/tmp")
    }

    static func chownToNobody(_ paths: [String]) throws {
        guard let user = getpwnam("nobody") else {
            throw DatabaseServerFailure(description: "running as root, but there is no user nobody to run servers as")
        }
        let uid = user.pointee.pw_uid
        let gid = getgrnam("nogroup")?.pointee.gr_gid ?? user.pointee.pw_gid
        for path in paths where chown(path, uid, gid) != 0 {
            throw DatabaseServerFailure(
                description: "cannot chown \(path) to nobody: \(String(cString: strerror(errno)))")
        }
    }

    /// Copies `files` (source → destination) into a server's folder, readable by its owner alone (a
    /// server accepts a key only then), owned by nobody when `runAs` is set.
    static func installPrivateCopies(_ files: [(from: String, to: String)], runAs: [String]) throws {
        for file in files {
            try FileManager.default.copyItem(atPath: file.from, toPath: file.to)
            chmod(file.to, 0o600)
        }
        if !runAs.isEmpty { try chownToNobody(files.map(\.to)) }
    }

    static func runBlocking(_ words: [String], directory: URL, timeout: TimeInterval) throws -> SubprocessResult {
        let child = try ChildProcess(words[0], Array(words.dropFirst()), directory: directory)
        defer { child.removeDirectory() }
        guard let status = child.waitForExit(timeout: timeout) else {
            let status = child.terminateBlocking(grace: 5)
            throw DatabaseServerFailure(
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
            throw DatabaseServerFailure(description: "no socket for a free port")
        } catch {
            throw DatabaseServerFailure(description: "cannot bind a free port")
        }
        close(fd)
        return Int(port)
    }

    /// Starts the server `command` gives for a free port, waiting until `probe` (a command that exits 0
    /// once the server accepts connections; `nil` while it surely does not) succeeds. A free port can be
    /// taken by someone else before the server binds it: then it tries another, three times in all.
    /// `cleanUp` runs when it gives up.
    static func startOnFreePort(
        _ name: String, directory: URL, timeout: TimeInterval, cleanUp: () -> Void, command: (Int) -> [String],
        probe: @escaping (Int) -> [String]?
    ) throws -> (child: ChildProcess, port: Int) {
        var lastFailure = ""
        for _ in 0..<3 {
            let port = try freePort()
            let words = command(port)
            let child: ChildProcess
            do {
                child = try ChildProcess(words[0], Array(words.dropFirst()), directory: directory, scratch: directory)
            } catch {
                cleanUp()
                throw DatabaseServerFailure(description: "\(name) did not start: \(error)")
            }
            switch waitUntilReady(child, timeout: timeout, probe: { probe(port) }) {
            case .ready:
                return (child, port)
            case .exited(let printed) where printed.contains("Address already in use"):
                lastFailure = printed
                continue
            case .exited(let printed), .timedOut(let printed):
                child.terminateBlocking(grace: 5)
                cleanUp()
                throw DatabaseServerFailure(description: "\(child.command) did not start\n\(printed)")
            }
        }
        cleanUp()
        throw DatabaseServerFailure(description: "\(name) found no free port after 3 tries\n\(lastFailure)")
    }

    private enum Readiness {
        case ready
        case exited(String)
        case timedOut(String)
    }

    /// Runs `probe` until it exits 0, the server exits, or `timeout` passed.
    private static func waitUntilReady(_ child: ChildProcess, timeout: TimeInterval, probe: () -> [String]?)
        -> Readiness
    {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt32 = 20_000
        while true {
            if let status = child.poll() { return .exited("exit status \(status)\n\(child.printed)") }
            if let words = probe(), let running = try? ChildProcess(words[0], Array(words.dropFirst())) {
                let status = running.waitForExit(timeout: 20) ?? running.terminateBlocking(grace: 1)
                running.removeDirectory()
                if status == 0 { return .ready }
            }
            if Date() >= deadline {
                return .timedOut("not accepting connections after \(timeout) s\n\(child.printed)")
            }
            usleep(pause)
            pause = min(pause * 2, 250_000)
        }
    }
}

/// Runs `body` with a fresh database on the shared throwaway PostgreSQL server, and drops the database
/// afterwards (also when `body` throws).
///
/// - Throws: ``PostgresServerFailure`` when the server binaries are missing (run `make test`, which
///   installs them) or the server does not start; whatever `body` throws.
public func withPostgresDatabase<Value>(_ body: (PostgresTestDatabase) async throws -> Value) async throws -> Value {
    try await PostgresServer.shared().withDatabase(body)
}

/// Runs `body` with a fresh database on the shared throwaway MariaDB server, and drops the database
/// afterwards (also when `body` throws).
///
/// - Throws: ``MariaDBServerFailure`` when the server binaries are missing (run `make test`, which
///   installs them) or the server does not start; whatever `body` throws.
public func withMariaDBDatabase<Value>(_ body: (MariaDBTestDatabase) async throws -> Value) async throws -> Value {
    try await MariaDBServer.shared().withDatabase(body)
}

/// One database of a throwaway server for one test: where it is and how to log in.
public struct ThrowawayTestDatabase<Server: ThrowawayDatabaseServer>: Sendable {
    /// The server it lives on.
    public let server: Server
    /// The database name.
    public let name: String
    /// The server's URL of this database (`postgres://…`, `mysql://…`), without the password.
    public let url: String
    /// The test user's password (give it separately from ``url``).
    public var password: String { server.password }
}

/// A throwaway database server could not be found, started or driven; the description says why and
/// carries what the programs printed.
public struct DatabaseServerFailure: Error, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// Creates a failure.
    public init(description: String) { self.description = description }
}

/// The throwaway PostgreSQL server could not be found, started or driven.
public typealias PostgresServerFailure = DatabaseServerFailure

/// The throwaway MariaDB server could not be found, started or driven.
public typealias MariaDBServerFailure = DatabaseServerFailure
