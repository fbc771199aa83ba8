import Foundation
import NowQuery
import NowSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The ``DatabaseSession`` of a SQLite file: one connection, one `BEGIN IMMEDIATE` transaction shared by
/// every table of a run that loads the same file (``shared(path:runID:busyTimeoutMilliseconds:fileMode:)``).
///
/// Sharing is what lets a run load several tables into one file: SQLite has one writer at a time, so
/// a second connection's `BEGIN IMMEDIATE` would wait for the first table's transaction, which stays
/// open until the run commits. Each table works inside a savepoint of the shared transaction, so a
/// failed table rolls back alone.
///
/// `@unchecked Sendable` like ``SQLiteConnection``: a run's tables use it one after another, each call
/// on its ``worker``, never two threads at once; it is `Sendable` so that the registry of shared
/// sessions can hold it and its calls can be handed to the worker.
final class SQLiteSession: DatabaseSession, @unchecked Sendable {
    let dialect: any SQLDialect = SQLiteDialect()
    let name: String
    var books = TransactionBooks()
    let worker = BlockingWorker(label: "nowetl.sqlite")
    private let connection: SQLiteConnection

    private init(path: String, busyTimeoutMilliseconds: Int, fileMode: mode_t) throws(NowETLError) {
        name = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw NowETLError(.io, path: path, "cannot open the SQLite database \(path): it is a directory")
        }
        let parent = (path as NSString).deletingLastPathComponent
        try OwnFiles.makeDirectories(parent, mode: OwnFiles.directoryMode(forFileMode: fileMode))
        try Self.prepareFile(path, mode: fileMode)
        do {
            connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA busy_timeout=\(busyTimeoutMilliseconds)")
        } catch {
            throw NowETLError(.database, path: path, "cannot open the SQLite database \(path): \(Self.reason(error))")
        }
    }

    /// Creates the database file with `mode` when it is missing (SQLite reads an empty file as an empty
    /// database), or sets `mode` on the existing one; a symbolic link is refused (``OwnFiles``), so
    /// SQLite never writes through a link planted in `output_dir`.
    ///
    /// An existing file is never opened here: closing a descriptor of it would drop every POSIX lock
    /// this process holds on it, SQLite's included.
    private static func prepareFile(_ path: String, mode: mode_t) throws(NowETLError) {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        if fd >= 0 {
            _ = fchmod(fd, mode)
            _ = Glibc.close(fd)
            return
        }
        guard errno == EEXIST else { throw NowETLError.io("create the SQLite database", path: path) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw NowETLError.io("look at the SQLite database", path: path) }
        if info.st_mode & S_IFMT == S_IFLNK { throw OwnFiles.symlinkRefused(path) }
        // Best effort on a file another user owns (EPERM): it keeps the mode its owner gave it.
        if info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 != mode { _ = chmod(path, mode) }
    }

    private static let sessions = SessionRegistry<SQLiteSession>()

    /// The session of the run `runID` on the file at `path`, opened on first use.
    /// A new database file gets `fileMode` (the pipeline's `file_mode`), and so an existing one (when
    /// nowetl's user owns it); SQLite gives its journal and WAL files the database's mode.
    static func shared(
        path: String, runID: String, busyTimeoutMilliseconds: Int = 30_000, fileMode: mode_t = 0o640
    ) throws(NowETLError) -> SQLiteSession {
        try sessions.session(runID: runID, database: path) { () throws(NowETLError) in
            try SQLiteSession(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, fileMode: fileMode)
        }
    }

    /// The session of the run on the SQLite output's database file (``FileSinkOptions/path`` for the
    /// table of `context`, under ``FileSinkOptions/outputDirectory``), ``shared(path:runID:busyTimeoutMilliseconds:fileMode:)`` off the
    /// concurrency pool.
    static func connect(file: FileSinkOptions, sqlite: SQLiteSinkOptions, context: SinkContext) async throws
        -> SQLiteSession
    {
        let runDate = TableAPIDateFormat.dateString(fromSeconds: context.runStartedSeconds)
        let relative = try file.path.resolve(table: context.table, runDate: runDate, runID: context.runID)
        let path = RunCommit.absolute(file.outputDirectory) + "/" + relative
        return try await BlockingWorker.detached { () throws(NowETLError) in
            try SQLiteSession.shared(
                path: path, runID: context.runID, busyTimeoutMilliseconds: sqlite.busyTimeoutMilliseconds,
                fileMode: file.fileMode)
        }
    }

    var inTransaction: Bool { !connection.isAutocommit }

    func begin() throws(NowETLError) {
        var attempt = 1
        while true {
            do {
                try connection.execute("BEGIN IMMEDIATE")
                return
            } catch {
                if (error as? SQLiteError).map({ $0.code & 0xff == 5 }) == true,
                    attempt < SQLiteConnection.beginAttempts
                {
                    attempt += 1
                    continue
                }
                throw NowETLError(
                    .database, path: name,
                    "cannot begin a transaction on the SQLite database \(name): \(Self.reason(error))")
            }
        }
    }

    func commitNow() throws(NowETLError) {
        do {
            try connection.execute("COMMIT")
        } catch {
            throw NowETLError(.database, path: name, "cannot COMMIT the SQLite database \(name): \(Self.reason(error))")
        }
    }

    func rollbackNow() {
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
    }

    func execute(_ sql: String) throws(NowETLError) {
        do {
            try connection.execute(sql)
        } catch {
            throw NowETLError(.database, path: name, "SQLite database \(name): \(Self.reason(error))")
        }
    }

    func columns(of table: String) throws(NowETLError) -> [String: String]? {
        do {
            let columns = try connection.withStatement(
                "SELECT name, type FROM pragma_table_info(?)", cached: false
            ) { statement in
                try statement.bind(table, at: 1)
                var columns: [String: String] = [:]
                while try statement.step() { columns[statement.text(0) ?? ""] = (statement.text(1) ?? "").uppercased() }
                return columns
            }
            return columns.isEmpty ? nil : columns
        } catch {
            throw NowETLError(.database, path: name, "SQLite database \(name): \(Self.reason(error))")
        }
    }

    func primaryKey(of table: String) throws(NowETLError) -> [String] {
        do {
            return try connection.withStatement(
                "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", cached: false
            ) { statement in
                try statement.bind(table, at: 1)
                var names: [String] = []
                while try statement.step() { names.append(statement.text(0) ?? "") }
                return names
            }
        } catch {
            throw NowETLError(.database, path: name, "SQLite database \(name): \(Self.reason(error))")
        }
    }

    func count(_ sql: String, parameters: [String]) throws(NowETLError) -> Int {
        do {
            return try connection.withStatement(sql, cached: false) { statement in
                for (index, parameter) in parameters.enumerated() {
                    try statement.bind(parameter, at: Int32(index + 1))
                }
                return try statement.step() ? statement.integer(0) : 0
            }
        } catch {
            throw NowETLError(.database, path: name, "SQLite database \(name): \(Self.reason(error))")
        }
    }

    func prepareRowWriter(_ sql: String) throws(NowETLError) -> any DatabaseRowWriter {
        do {
            return SQLiteRowWriter(statement: try connection.prepareWriter(sql), database: name)
        } catch {
            throw NowETLError(.database, path: name, "SQLite database \(name): \(Self.reason(error))")
        }
    }

    /// SQLite's message without repeating the path (the sink's message names it already).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? SQLiteError else { return NowETLError.text(of: error) }
        var text = "\(error.message) (SQLite error \(error.code))"
        if let sql = error.sql { text += " in: \(sql.prefix(200))" }
        return text
    }
}

/// A statement of a ``SQLiteSession`` run once per row.
final class SQLiteRowWriter: DatabaseRowWriter {
    private let statement: SQLiteStatement
    private let database: String

    init(statement: SQLiteStatement, database: String) {
        self.statement = statement
        self.database = database
    }

    func bind(_ value: ColumnValue?, at index: Int) throws(NowETLError) {
        let position = Int32(index)
        do {
            switch value {
            case nil: try statement.bind(nil as String?, at: position)
            case .string(let text): try statement.bind(text, at: position)
            case .int(let number): try statement.bind(number, at: position)
            // The exact text; the column's numeric affinity stores it as an integer or a real.
            case .decimal(let text): try statement.bind(text, at: position)
            case .bool(let flag): try statement.bind(flag ? 1 : 0, at: position)
            case .dateTime(let seconds):
                try statement.bind(TableAPIDateFormat.string(fromSeconds: seconds), at: position)
            case .date(let days):
                try statement.bind(TableAPIDateFormat.dateString(fromSeconds: days * 86_400), at: position)
            case .duration(let seconds): try statement.bind(seconds, at: position)
            }
        } catch {
            throw NowETLError(.database, path: database, "SQLite database \(database): \(SQLiteSession.reason(error))")
        }
    }

    func bind(text: String, at index: Int) throws(NowETLError) {
        do {
            try statement.bind(text, at: Int32(index))
        } catch {
            throw NowETLError(.database, path: database, "SQLite database \(database): \(SQLiteSession.reason(error))")
        }
    }

    /// A text cell is bound from the batch's bytes, copied by SQLite (`SQLITE_TRANSIENT`) as a `String`'s
    /// are; any other cell as ``bind(_:at:)`` binds it.
    func bind(_ batch: RowBatch, row: Int, column: Int, at index: Int) throws(NowETLError) {
        do {
            let bound: Void? = try batch.withStringBytes(row: row, column: column) { utf8 in
                try statement.bindText(utf8, at: Int32(index), copy: true)
            }
            if bound != nil { return }
        } catch {
            throw NowETLError(.database, path: database, "SQLite database \(database): \(SQLiteSession.reason(error))")
        }
        try bind(batch[row, column], at: index)
    }

    func run() throws(NowETLError) {
        do {
            _ = try statement.run { try $0.step() }
        } catch {
            throw NowETLError(.database, path: database, "SQLite database \(database): \(SQLiteSession.reason(error))")
        }
    }
}
