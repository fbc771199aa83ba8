import CMariaDB
import Foundation

/// One connection to a MariaDB (or MySQL) database; it owns libmariadb's `MYSQL` handle and closes it in
/// `deinit`.
///
/// Statements run one at a time: ``execute(_:)`` (the text protocol, for DDL, `SET` and statements without
/// parameters), ``query(_:parameters:)`` and ``prepare(_:)`` (prepared statements: every parameter sent
/// as a length-prefixed string apart from the SQL, so a value is never parsed as SQL and may hold any
/// byte, NUL included). The connection speaks `utf8mb4` with a binary collation (two values that differ
/// in case or accent stay different), in UTC, in strict mode (see ``MariaDBSettings``). It never asks for
/// more than one statement per call, never reconnects behind the caller's back (a transaction would
/// silently be lost), and refuses `LOAD DATA LOCAL`, through which a hostile server could ask for the
/// client's files.
///
/// Every call blocks the calling thread on the network: call it from a thread of its own, not from
/// Swift's cooperative pool.
///
/// `@unchecked Sendable`: every use of the handle happens under `lock`, so a connection can be handed
/// to another thread; two threads sharing one are serialized, not raced.
public final class MariaDBConnection: @unchecked Sendable, CustomStringConvertible {
    /// The `MYSQL*`; closed in `deinit`, never handed out of this module.
    let handle: UnsafeMutablePointer<MYSQL>
    /// Recursive: a statement's calls run under the connection's lock too.
    let lock = NSRecursiveLock()
    /// Where this connection goes (with the password, which only libmariadb sees).
    public let settings: MariaDBSettings

    private init(handle: UnsafeMutablePointer<MYSQL>, settings: MariaDBSettings) {
        self.handle = handle
        self.settings = settings
    }

    deinit { mysql_close(handle) }

    /// Runs `body` holding `lock`, keeping `body`'s typed error.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Connects, blocking until the server accepted the connection or it failed, then sets the session
    /// up (``MariaDBSettings``).
    ///
    /// - Throws: ``MariaDBError`` naming host, port, database and user (never the password): kind
    ///   `unreachable` (exit 69) when nothing answers, `authentication` (77) for wrong credentials,
    ///   `missingDatabase` (78), `permissionDenied` (77), `tls` (78) when the TLS mode cannot be met.
    public static func connect(_ settings: MariaDBSettings) throws(MariaDBError) -> MariaDBConnection {
        guard let handle = mysql_init(nil) else {
            throw settings.error(.connectionFailed, message: "libmariadb could not allocate a connection")
        }
        let connection = MariaDBConnection(handle: handle, settings: settings)
        try connection.applyOptions()
        let socketPath = settings.socket
        let connected = mysql_real_connect(
            handle, socketPath == nil ? settings.host : "localhost", settings.user, settings.password ?? "",
            settings.database, UInt32(settings.port), socketPath, 0)
        guard connected != nil else { throw connection.lastError(sql: nil, connecting: true) }
        if settings.sslMode == .require || settings.sslMode == .verifyFull, mysql_get_ssl_cipher(handle) == nil {
            throw settings.error(
                .tls,
                message: "sslmode=\(settings.sslMode.rawValue) needs TLS, which this server does not offer: enable "
                    + "TLS on the server, or, on a network you trust, set sslmode=prefer in the URL")
        }
        for sql in settings.sessionSettingsSQL { try connection.execute(sql) }
        do {
            try connection.execute(settings.statementTimeoutSQL)
        } catch  where error.number == 1193 {
            // ER_UNKNOWN_SYSTEM_VARIABLE: MySQL, which has no max_statement_time; the read timeout bounds it.
        }
        return connection
    }

    /// Sets libmariadb's options before connecting: the one place settings reach the library.
    private func applyOptions() throws(MariaDBError) {
        var failed = false
        func set(_ option: mysql_option, _ value: UInt32) {
            failed = failed || nowetl_mysql_option_uint(handle, option, value) != 0
        }
        func set(_ option: mysql_option, _ value: Bool) {
            failed = failed || nowetl_mysql_option_bool(handle, option, value ? 1 : 0) != 0
        }
        func set(_ option: mysql_option, _ value: String) {
            failed = failed || nowetl_mysql_option_string(handle, option, value) != 0
        }
        set(MYSQL_OPT_CONNECT_TIMEOUT, UInt32(settings.connectTimeout))
        if settings.statementTimeout > 0 {
            // A server that stops answering fails the call a minute after the statement's own limit.
            let seconds = UInt32(min(settings.statementTimeout + 60, Int(UInt32.max)))
            set(MYSQL_OPT_READ_TIMEOUT, seconds)
            set(MYSQL_OPT_WRITE_TIMEOUT, seconds)
        }
        set(MYSQL_SET_CHARSET_NAME, "utf8mb4")
        set(MYSQL_OPT_LOCAL_INFILE, UInt32(0))
        set(MYSQL_OPT_RECONNECT, false)
        // Without this, libmariadb takes host `localhost` for its default Unix socket, not the URL's port.
        if settings.socket == nil { set(MYSQL_OPT_PROTOCOL, UInt32(MYSQL_PROTOCOL_TCP.rawValue)) }
        switch settings.sslMode {
        case .disable:
            break
        case .prefer, .require:
            // Asks for TLS; against a server without it libmariadb goes on in plain text (tested), so
            // `connect` checks the cipher for `require` after connecting.
            set(MYSQL_OPT_SSL_ENFORCE, true)
        case .verifyFull:
            set(MYSQL_OPT_SSL_ENFORCE, true)
            set(MYSQL_OPT_SSL_VERIFY_SERVER_CERT, true)
            if let ca = settings.sslRootCertificate ?? MariaDBSettings.systemCABundle { set(MYSQL_OPT_SSL_CA, ca) }
        }
        if failed { throw settings.error(.connectionFailed, message: "libmariadb refused a connection option") }
    }

    /// `mysql://user@host:port/database?sslmode=…`, without the password.
    public var description: String { settings.description }

    /// The server's version string (`10.11.6-MariaDB-0+deb12u1`).
    public var serverVersion: String { locked { mysql_get_server_info(handle).map { String(cString: $0) } ?? "" } }

    /// Whether a transaction is open, as the server's last answer says (InnoDB ends one by itself on a
    /// deadlock, and any DDL commits it).
    public var isInTransaction: Bool {
        locked { nowetl_mysql_server_status(handle) & UInt32(SERVER_STATUS_IN_TRANS) != 0 }
    }

    // MARK: - Statements

    /// Runs one statement without parameters through the text protocol and returns the rows it changed
    /// (0 for DDL); rows it returns are read and dropped.
    /// - Throws: ``MariaDBError`` with the error number, SQLSTATE, message and SQL.
    @discardableResult
    public func execute(_ sql: String) throws(MariaDBError) -> Int {
        try locked { () throws(MariaDBError) in
            var text = sql
            let status = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { mysql_real_query(handle, $0.baseAddress, UInt(bytes.count)) }
            }
            guard status == 0 else { throw lastError(sql: sql) }
            var changed = 0
            repeat {
                if let result = mysql_store_result(handle) {
                    mysql_free_result(result)
                } else if mysql_field_count(handle) != 0 {
                    throw lastError(sql: sql)
                } else {
                    let rows = mysql_affected_rows(handle)
                    if rows != UInt64.max { changed += Int(clamping: rows) }
                }
                let next = mysql_next_result(handle)
                if next > 0 { throw lastError(sql: sql) }
                if next != 0 { break }
            } while true
            return changed
        }
    }

    /// Runs one statement with `?` parameters (each sent as text, `nil` as NULL) and returns its rows, each
    /// value as text or `nil` for NULL. For catalog lookups and small results: the rows are held in memory.
    /// - Throws: ``MariaDBError`` as ``MariaDBStatement/query(_:)`` does.
    public func query(_ sql: String, parameters: [String?] = []) throws(MariaDBError) -> [[String?]] {
        try locked { () throws(MariaDBError) in
            let statement = try prepare(sql)
            return try statement.query(parameters)
        }
    }

    /// Prepares `sql` (one statement with `?` parameters) to be run many times.
    /// - Throws: ``MariaDBError`` when the server refuses the statement.
    public func prepare(_ sql: String) throws(MariaDBError) -> MariaDBStatement {
        try locked { () throws(MariaDBError) in
            guard let statement = mysql_stmt_init(handle) else { throw lastError(sql: sql) }
            var text = sql
            let status = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    mysql_stmt_prepare(statement, $0.baseAddress, UInt(bytes.count))
                }
            }
            guard status == 0 else {
                let error = MariaDBStatement.error(of: statement, settings: settings, sql: sql)
                mysql_stmt_close(statement)
                throw error
            }
            return MariaDBStatement(connection: self, handle: statement, sql: sql)
        }
    }

    // MARK: - Transactions

    /// Starts a transaction (`START TRANSACTION`).
    /// - Throws: ``MariaDBError`` of kind `misuse` when one is open already (MariaDB would commit it).
    public func begin() throws(MariaDBError) {
        if isInTransaction { throw settings.error(.misuse, message: "START TRANSACTION while a transaction is open") }
        try execute("START TRANSACTION")
    }

    /// Commits the open transaction (`COMMIT`).
    public func commit() throws(MariaDBError) { try execute("COMMIT") }

    /// Rolls the open transaction back (`ROLLBACK`); does nothing when none is open.
    public func rollback() throws(MariaDBError) {
        guard isInTransaction else { return }
        try execute("ROLLBACK")
    }

    // MARK: - Errors

    /// The connection's last error, its message redacted.
    func lastError(sql: String?, connecting: Bool = false) -> MariaDBError {
        settings.error(
            number: mysql_errno(handle), sqlState: mysql_sqlstate(handle), message: mysql_error(handle), sql: sql,
            connecting: connecting)
    }
}

extension MariaDBSettings {
    /// An error naming this connection's host, port, database and user.
    func error(_ kind: MariaDBError.Kind, message: String, sql: String? = nil) -> MariaDBError {
        MariaDBError(kind, message: message, host: host, port: port, database: database, user: user, sql: sql)
    }

    /// An error for libmariadb's error `code` with its SQLSTATE and message (C strings, the message
    /// redacted), classified (``MariaDBError/kind(number:connecting:)``).
    func error(
        number code: UInt32, sqlState state: UnsafePointer<CChar>?, message cMessage: UnsafePointer<CChar>?,
        sql: String?, connecting: Bool
    ) -> MariaDBError {
        let number = Int(code)
        let sqlState = state.map { String(cString: $0) }
        let message = redacted(cMessage.map { String(cString: $0) } ?? "")
        var kind = MariaDBError.kind(number: number, connecting: connecting)
        var text = message.isEmpty ? "libmariadb returned no result" : message
        if kind == .tls || (connecting && message.lowercased().contains("certificate")) {
            kind = .tls
            text += tlsAdvice
        }
        return MariaDBError(
            kind, number: number == 0 ? nil : number,
            sqlState: sqlState == "HY000" || sqlState == "00000" ? nil : sqlState,
            message: text, host: host, port: port, database: database, user: user, sql: sql)
    }

    /// What to do about a TLS failure: trust the CA, or weaken the mode knowingly.
    var tlsAdvice: String {
        guard sslMode == .verifyFull else { return "" }
        let ca = sslRootCertificate ?? Self.systemCABundle ?? "(no CA file found)"
        return " (sslmode=verify-full wants a certificate for this host name issued by a CA in \(ca): add "
            + "sslrootcert=/path/to/ca.pem to the URL, use a name the certificate holds, or accept any "
            + "certificate — the password then goes to whoever answers here — with sslmode=require)"
    }

    /// `message` with the password, should it ever appear, replaced by `***`.
    func redacted(_ message: String) -> String {
        guard let password, password.count >= 3 else { return message }
        return message.replacingOccurrences(of: password, with: "***")
    }
}
