import CLibPQ
import Foundation

/// One connection to a PostgreSQL database; it owns libpq's `PGconn` and closes it in `deinit`.
///
/// Statements run one at a time: ``execute(_:)`` (the simple protocol, for DDL and several statements),
/// ``query(_:parameters:)`` (one statement with `$1…` parameters in text format, rows as text) and
/// ``copyIn(_:columnNames:writing:)`` (`COPY … FROM STDIN` in text format, streamed in 256 KiB chunks).
/// Every call blocks the calling thread on the network: call it from a thread of its own, not from
/// Swift's cooperative pool. Server notices (`NOTICE: … skipping`) are dropped instead of being printed
/// to stderr by libpq.
///
/// `@unchecked Sendable`: every use of the `PGconn` happens under `lock`, so a connection can be handed
/// to another thread (a sink moving between tasks); two threads sharing one are serialized, not raced.
/// libpq itself is built thread-safe on Debian (`PQisthreadsafe()`), which makes such hand-overs legal.
public final class PostgresConnection: @unchecked Sendable, CustomStringConvertible {
    /// The `PGconn*`; closed in `deinit`, never handed out of this module.
    private let handle: OpaquePointer
    /// Recursive: ``transaction(_:)`` holds it while its body runs statements on the same thread.
    private let lock = NSRecursiveLock()
    /// Where this connection goes (with the password, which only libpq sees).
    public let settings: PostgresSettings

    private init(handle: OpaquePointer, settings: PostgresSettings) {
        self.handle = handle
        self.settings = settings
    }

    deinit { PQfinish(handle) }

    /// Runs `body` holding `lock`, keeping `body`'s typed error (`NSLocking.withLock` rethrows untyped).
    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Connects, blocking until the server accepted the connection or it failed.
    ///
    /// - Throws: ``PostgresError`` naming host, port, database and user (never the password): kind
    ///   `unreachable` (exit 69) when nothing answers, `authentication` (77) for wrong credentials,
    ///   `missingDatabase` (78), `permissionDenied` (77), `tls` (78) when `sslmode` cannot be met.
    public static func connect(_ settings: PostgresSettings) throws(PostgresError) -> PostgresConnection {
        let pairs = settings.connectionParameters
        let keywords = pairs.map { strdup($0.0) } + [nil]
        let values = pairs.map { strdup($0.1) } + [nil]
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values { free(pointer) }
        }
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordList in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valueList in
                // expand_dbname 0: the database name is a name, never parsed as a conninfo string.
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 0)
            }
        }
        guard let connection else {
            throw settings.error(.connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = settings.redacted(Self.text(PQerrorMessage(connection)))
            PQfinish(connection)
            let kind = PostgresError.connectionFailureKind(message: message)
            let advice = kind == .tls ? settings.tlsAdvice(message: message) : ""
            throw settings.error(kind, message: message + advice)
        }
        nowetl_pq_silence_notices(connection)
        return PostgresConnection(handle: connection, settings: settings)
    }

    /// `postgres://user@host:port/database?sslmode=…`, without the password.
    public var description: String { settings.description }

    /// The server's version as a number, e.g. 150018 for 15.18 (`PQserverVersion`).
    public var serverVersion: Int { locked { Int(PQserverVersion(handle)) } }

    /// Whether a transaction is open (also a failed one, which only ``rollback()`` ends).
    public var isInTransaction: Bool {
        locked {
            let status = PQtransactionStatus(handle)
            return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
        }
    }

    // MARK: - Statements

    /// Runs SQL without parameters through the simple query protocol: DDL, `SET`, several statements
    /// separated by semicolons. Rows a statement returns are discarded.
    ///
    /// - Throws: ``PostgresError`` with the SQLSTATE, the server's message and the SQL; kind `misuse` for a
    ///   `COPY … FROM STDIN` (use ``copyIn(_:columnNames:writing:)``).
    public func execute(_ sql: String) throws(PostgresError) {
        try locked { () throws(PostgresError) in
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            try check(result, sql: sql, accepting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY])
        }
    }

    /// Runs one statement with parameters `$1, $2, …` (sent separately from the SQL, in text format) and
    /// returns its rows, each value as text or `nil` for NULL.
    ///
    /// For catalog lookups and small results: the whole result is held in memory.
    ///
    /// - Throws: ``PostgresError``: kind `invalidValue` naming the parameter when one contains a NUL
    ///   character (PostgreSQL text cannot hold it), otherwise the server's error with SQLSTATE and SQL.
    public func query(_ sql: String, parameters: [String?] = []) throws(PostgresError) -> [[String?]] {
        for (index, parameter) in parameters.enumerated() where parameter?.utf8.contains(0) == true {
            var error = settings.error(
                .invalidValue, message: "parameter $\(index + 1) contains a NUL character, which text cannot hold")
            error.sql = sql
            throw error
        }
        let values = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in values { free(pointer) } }
        return try locked { () throws(PostgresError) in
            let result = values.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
                PQexecParams(handle, sql, Int32(list.count), nil, list.baseAddress, nil, nil, 0)
            }
            defer { PQclear(result) }
            try check(result, sql: sql, accepting: [PGRES_TUPLES_OK, PGRES_COMMAND_OK])
            guard let result else { return [] }
            let rowCount = Int(PQntuples(result))
            let columnCount = Int(PQnfields(result))
            var rows: [[String?]] = []
            rows.reserveCapacity(rowCount)
            for row in 0..<Int32(rowCount) {
                var values: [String?] = []
                values.reserveCapacity(columnCount)
                for column in 0..<Int32(columnCount) {
                    if PQgetisnull(result, row, column) == 1 {
                        values.append(nil)
                    } else if let bytes = PQgetvalue(result, row, column) {
                        let length = Int(PQgetlength(result, row, column))
                        values.append(
                            bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
                                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                            })
                    } else {
                        values.append(nil)
                    }
                }
                rows.append(values)
            }
            return rows
        }
    }

    // MARK: - COPY

    /// Runs `copyStatement` (`COPY table (columns) FROM STDIN`, text format) and streams the rows
    /// `writing` appends to its ``CopyBuffer``; returns the number of rows the server loaded.
    ///
    /// Data goes out in chunks of about 256 KiB as the buffer fills, so memory does not depend on the
    /// number of rows. When `writing` throws or a chunk cannot be sent, the COPY is ended with an error
    /// (`PQputCopyEnd` with a message), the server discards it all, and the error is rethrown. A COPY is
    /// atomic by itself; inside ``begin()`` the transaction is then failed and must be rolled back.
    ///
    /// - Parameters:
    ///   - copyStatement: a `COPY … FROM STDIN` statement in text format (the default).
    ///   - columnNames: the columns in order, to name them in value errors; may be empty.
    ///   - writing: appends the rows; it must not use this connection.
    /// - Throws: what `writing` throws; ``PostgresError`` of kind `invalidValue` (a NUL in a value, naming row
    ///   and column) or the server's error for the data (a value of the wrong type, a duplicate key) with its
    ///   SQLSTATE.
    @discardableResult
    public func copyIn(
        _ copyStatement: String, columnNames: [String] = [], writing: (inout CopyBuffer) throws -> Void
    ) throws -> Int {
        try locked {
            let start = PQexec(handle, copyStatement)
            defer { PQclear(start) }
            try check(start, sql: copyStatement, accepting: [PGRES_COPY_IN])
            var buffer = CopyBuffer(
                connection: self, columnNames: columnNames, sql: copyStatement, chunkSize: CopyBuffer.defaultChunkSize)
            do {
                try writing(&buffer)
                try buffer.flush()
            } catch {
                // Fail the COPY on the server; its answer (our own message back) is drained and dropped.
                let reason = "nowetl stopped the COPY: \(error)".prefix(900)
                _ = PQputCopyEnd(handle, String(reason))
                drainResults()
                throw error
            }
            guard PQputCopyEnd(handle, nil) == 1 else {
                let failure = connectionError(sql: copyStatement)
                drainResults()
                throw failure
            }
            // The COPY's outcome is the first result; then libpq has nothing more for this command.
            let end = PQgetResult(handle)
            defer {
                PQclear(end)
                drainResults()
            }
            try check(end, sql: copyStatement, accepting: [PGRES_COMMAND_OK])
            return Int(String(cString: PQcmdTuples(end))) ?? buffer.rowCount
        }
    }

    /// Sends one chunk of COPY data (called by ``CopyBuffer`` under ``copyIn(_:columnNames:writing:)``'s lock).
    func putCopyData(_ bytes: UnsafeBufferPointer<UInt8>, sql: String) throws(PostgresError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let sent = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            PQputCopyData(handle, $0, Int32(bytes.count))
        }
        guard sent == 1 else { throw connectionError(sql: sql) }
    }

    // MARK: - Transactions

    /// Starts a transaction (`BEGIN`).
    /// - Throws: ``PostgresError`` when the server refuses (for example, a transaction is already open).
    public func begin() throws(PostgresError) {
        if isInTransaction {
            throw settings.error(.misuse, message: "BEGIN while a transaction is already open")
        }
        try execute("BEGIN")
    }

    /// Commits the open transaction (`COMMIT`).
    ///
    /// - Throws: ``PostgresError`` of kind `misuse` when the transaction had failed: PostgreSQL answers that
    ///   `COMMIT` with `ROLLBACK`, so nothing was committed and the caller must know.
    public func commit() throws(PostgresError) {
        try locked { () throws(PostgresError) in
            let result = PQexec(handle, "COMMIT")
            defer { PQclear(result) }
            try check(result, sql: "COMMIT", accepting: [PGRES_COMMAND_OK])
            if let result, String(cString: PQcmdStatus(result)) == "ROLLBACK" {
                var error = settings.error(
                    .misuse, message: "the transaction had failed, so COMMIT rolled it back; nothing was committed")
                error.sql = "COMMIT"
                throw error
            }
        }
    }

    /// Rolls the open transaction back (`ROLLBACK`); does nothing when none is open.
    /// - Throws: ``PostgresError`` when the connection is lost.
    public func rollback() throws(PostgresError) {
        guard isInTransaction else { return }
        try execute("ROLLBACK")
    }

    /// Runs `body` inside `BEGIN … COMMIT`, rolling back when it throws.
    /// - Throws: what `body` throws, or ``PostgresError`` when the transaction cannot begin or commit.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try locked {
            try begin()
            do {
                let value = try body()
                try commit()
                return value
            } catch {
                try? rollback()
                throw error
            }
        }
    }

    // MARK: - Results and errors

    /// Throws unless `result` has one of the `accepting` statuses; a `COPY … FROM STDIN` started where none
    /// was expected is ended with an error first, so the connection stays usable.
    private func check(_ result: OpaquePointer?, sql: String, accepting: Set<ExecStatusType>) throws(PostgresError) {
        guard let result else { throw connectionError(sql: sql) }
        let status = PQresultStatus(result)
        if accepting.contains(status) { return }
        if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
            if status == PGRES_COPY_IN { _ = PQputCopyEnd(handle, "COPY is not expected here") }
            drainResults()
            var error = settings.error(
                .misuse, message: "\(sql.prefix(40))… starts a COPY; use copyIn for COPY … FROM STDIN")
            error.sql = sql
            throw error
        }
        let sqlState = PQresultErrorField(result, nowetl_pq_diag_sqlstate()).map { String(cString: $0) }
        var message = settings.redacted(Self.text(PQresultErrorMessage(result)))
        if message.isEmpty { message = "unexpected result \(String(cString: PQresStatus(status)))" }
        var kind = sqlState.map(PostgresError.kind(sqlState:)) ?? .statement
        if sqlState == nil, PQstatus(handle) == CONNECTION_BAD { kind = .connectionLost }
        throw settings.error(kind, sqlState: sqlState, message: message, sql: sql)
    }

    /// The connection's current error (no result, or a failed send): `connectionLost` when the connection
    /// is gone.
    private func connectionError(sql: String) -> PostgresError {
        var message = settings.redacted(Self.text(PQerrorMessage(handle)))
        if message.isEmpty { message = "libpq returned no result" }
        let kind: PostgresError.Kind = PQstatus(handle) == CONNECTION_BAD ? .connectionLost : .statement
        return settings.error(kind, message: message, sql: sql)
    }

    /// Reads and frees the results still pending, so the next command starts on a clean connection.
    private func drainResults() {
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            // A COPY that did not end would return COPY_IN forever.
            if status == PGRES_COPY_IN { _ = PQputCopyEnd(handle, "COPY abandoned") }
            if status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH { break }
        }
    }

    /// A C string from libpq, without its trailing newline(s).
    static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension PostgresSettings {
    /// An error naming this connection's host, port, database and user.
    func error(
        _ kind: PostgresError.Kind, sqlState: String? = nil, message: String, sql: String? = nil
    ) -> PostgresError {
        PostgresError(
            kind, sqlState: sqlState, message: message, host: host, port: port, database: database, user: user,
            sql: sql)
    }

    /// What to do about the TLS failure libpq described in `message`: trust the CA or weaken the mode
    /// knowingly (a failed verification), or turn TLS on (a server without it); empty when there is
    /// nothing to add. Names files and modes, never the password.
    func tlsAdvice(message: String) -> String {
        let text = message.lowercased()
        if text.contains("does not support ssl") {
            return " (sslmode=\(sslMode.rawValue) needs TLS, which this server does not offer: enable ssl on the "
                + "server, or, on a network you trust, set sslmode=prefer in the URL)"
        }
        guard sslMode.verifiesCertificate,
            text.contains("certificate") || text.contains("verify") || text.contains("host name")
        else { return "" }
        let trusted =
            sslRootCertificate.map { "the CA in sslrootcert=\($0)" }
            ?? Self.systemCABundle.map { "the system's CAs (\($0))" } ?? "no CA file (none found on this system)"
        return " (sslmode=\(sslMode.rawValue) checks the server's certificate against \(trusted), and it did not "
            + "verify: give the CA that issued it with sslrootcert=/path/to/ca.pem in the URL, connect by a name the "
            + "certificate holds, or — knowing that the password and data then go to whoever answers at this "
            + "address — weaken the check with sslmode=require)"
    }

    /// `message` with the password, should it ever appear (libpq does not echo it), replaced by `***`.
    func redacted(_ message: String) -> String {
        guard let password, password.count >= 3 else { return message }
        return message.replacingOccurrences(of: password, with: "***")
    }
}
