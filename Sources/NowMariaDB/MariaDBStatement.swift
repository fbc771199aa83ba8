import CMariaDB
import Foundation

/// A prepared statement of a ``MariaDBConnection`` (``MariaDBConnection/prepare(_:)``), run once per set
/// of parameters; closed in `deinit`.
///
/// Every parameter goes to the server as a string with its length (`MYSQL_TYPE_STRING`), `nil` as NULL;
/// the server converts it to the column's type in strict mode, so a value that does not fit is an error.
/// The strings of one run are packed into one buffer, so a multi-row `INSERT` of thousands of parameters
/// costs one allocation.
///
/// Values coming back are checked before use: the column count must be what the statement announced,
/// and a value longer than ``maxValueBytes`` or a result longer than ``maxRows`` is refused rather than
/// allocated — the server may be hostile or broken.
public final class MariaDBStatement: @unchecked Sendable {
    // @unchecked: every use of the handle happens under the connection's lock.
    private let connection: MariaDBConnection
    private let handle: UnsafeMutablePointer<MYSQL_STMT>
    /// The statement's SQL, for errors.
    public let sql: String
    /// The number of `?` parameters, as the server counted them.
    public let parameterCount: Int

    /// The longest value ``query(_:)`` reads (16 MiB): catalog values and counts are short.
    public static let maxValueBytes = 16 << 20
    /// The most rows ``query(_:)`` reads.
    public static let maxRows = 1_000_000

    init(connection: MariaDBConnection, handle: UnsafeMutablePointer<MYSQL_STMT>, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
        parameterCount = Int(mysql_stmt_param_count(handle))
    }

    deinit { connection.locked { _ = mysql_stmt_close(handle) } }

    /// Runs the statement with `parameters` and returns the rows it changed (`mysql_stmt_affected_rows`:
    /// for `INSERT … ON DUPLICATE KEY UPDATE`, 1 per inserted row, 2 per updated one, 0 per unchanged one).
    /// - Throws: ``MariaDBError``: kind `misuse` when the number of parameters is not the statement's,
    ///   otherwise the server's error.
    @discardableResult
    public func execute(_ parameters: [String?]) throws(MariaDBError) -> Int {
        try connection.locked { () throws(MariaDBError) in
            try run(parameters)
            return affectedRows()
        }
    }

    /// Runs the statement with parameters given as bytes, as ``execute(_:)`` does with strings:
    /// parameter `i` is `packed[fields[i]]`, NULL for a `nil` field. The bytes are bound where they are,
    /// so values collected in one buffer reach the server without a `String` each.
    /// - Throws: ``MariaDBError`` as ``execute(_:)`` does.
    @discardableResult
    public func execute(packed: [UInt8], fields: [Range<Int>?]) throws(MariaDBError) -> Int {
        try connection.locked { () throws(MariaDBError) in
            try run(packed: packed, fields: fields)
            return affectedRows()
        }
    }

    /// The rows the last execute changed, once its result is freed.
    private func affectedRows() -> Int {
        _ = mysql_stmt_free_result(handle)
        let rows = mysql_stmt_affected_rows(handle)
        return rows == UInt64.max ? 0 : Int(clamping: rows)
    }

    /// Runs the statement with `parameters` and returns its rows, each value as text or `nil` for NULL.
    /// - Throws: ``MariaDBError``: kind `misuse` for a parameter count that is not the statement's;
    ///   `statement` for a result the server should not send (more columns than announced, a value over
    ///   ``maxValueBytes``, more than ``maxRows`` rows); otherwise the server's error.
    public func query(_ parameters: [String?]) throws(MariaDBError) -> [[String?]] {
        try connection.locked { () throws(MariaDBError) in
            try run(parameters)
            defer { _ = mysql_stmt_free_result(handle) }
            let columns = Int(mysql_stmt_field_count(handle))
            guard columns > 0 else { return [] }
            guard columns <= 4096 else { throw refused("the server announced \(columns) columns") }
            var lengths = [UInt](repeating: 0, count: columns)
            var nulls = [my_bool](repeating: 0, count: columns)
            var binds = [MYSQL_BIND](repeating: MYSQL_BIND(), count: columns)
            var rows: [[String?]] = []
            return try lengths.withUnsafeMutableBufferPointer { lengths throws(MariaDBError) in
                try nulls.withUnsafeMutableBufferPointer { nulls throws(MariaDBError) in
                    for column in 0..<columns {
                        binds[column].buffer_type = MYSQL_TYPE_STRING
                        binds[column].length = lengths.baseAddress.map { $0 + column }
                        binds[column].is_null = nulls.baseAddress.map { $0 + column }
                    }
                    guard mysql_stmt_bind_result(handle, &binds) == 0 else { throw error() }
                    while true {
                        let status = mysql_stmt_fetch(handle)
                        if status == MYSQL_NO_DATA { break }
                        guard status == 0 || status == MYSQL_DATA_TRUNCATED else { throw error() }
                        guard rows.count < Self.maxRows else { throw refused("more than \(Self.maxRows) rows") }
                        var row: [String?] = []
                        row.reserveCapacity(columns)
                        for column in 0..<columns {
                            if nulls[column] != 0 {
                                row.append(nil)
                                continue
                            }
                            row.append(try fetchColumn(column, length: lengths[column]))
                        }
                        rows.append(row)
                    }
                    return rows
                }
            }
        }
    }

    /// Reads column `column` of the fetched row, `length` bytes long as the server said.
    private func fetchColumn(_ column: Int, length: UInt) throws(MariaDBError) -> String {
        guard length <= UInt(Self.maxValueBytes) else { throw refused("a value of \(length) bytes") }
        let count = Int(length)
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        var fetchedLength: UInt = 0
        let status = bytes.withUnsafeMutableBytes { buffer -> Int32 in
            var bind = MYSQL_BIND()
            bind.buffer_type = MYSQL_TYPE_STRING
            bind.buffer = buffer.baseAddress
            bind.buffer_length = UInt(buffer.count)
            return withUnsafeMutablePointer(to: &fetchedLength) { lengthPointer in
                bind.length = lengthPointer
                return mysql_stmt_fetch_column(handle, &bind, UInt32(column), 0)
            }
        }
        guard status == 0 else { throw error() }
        return String(decoding: bytes.prefix(min(count, Int(min(fetchedLength, UInt(count))))), as: UTF8.self)
    }

    /// Binds `parameters` and executes the statement.
    private func run(_ parameters: [String?]) throws(MariaDBError) {
        // One buffer for every value.
        var packed: [UInt8] = []
        packed.reserveCapacity(parameters.reduce(0) { $0 + ($1?.utf8.count ?? 0) })
        var fields: [Range<Int>?] = []
        fields.reserveCapacity(parameters.count)
        for parameter in parameters {
            guard let parameter else {
                fields.append(nil)
                continue
            }
            let start = packed.count
            packed.append(contentsOf: parameter.utf8)
            fields.append(start..<packed.count)
        }
        try run(packed: packed, fields: fields)
    }

    /// Binds the parameters `packed[fields[i]]` (NULL for `nil`) and executes the statement.
    private func run(packed: [UInt8], fields: [Range<Int>?]) throws(MariaDBError) {
        guard fields.count == parameterCount else {
            throw connection.settings.error(
                .misuse, message: "\(fields.count) parameters for a statement with \(parameterCount)", sql: sql)
        }
        guard parameterCount > 0 else {
            guard mysql_stmt_execute(handle) == 0 else { throw error() }
            return
        }
        guard fields.allSatisfy({ $0.map { $0.lowerBound >= 0 && $0.upperBound <= packed.count } ?? true }) else {
            throw connection.settings.error(.misuse, message: "a parameter outside its buffer", sql: sql)
        }
        var lengths = fields.map { UInt($0?.count ?? 0) }
        var nulls = fields.map { $0 == nil ? my_bool(1) : my_bool(0) }
        var binds = [MYSQL_BIND](repeating: MYSQL_BIND(), count: fields.count)
        let failed = packed.withUnsafeBytes { bytes in
            lengths.withUnsafeMutableBufferPointer { lengths in
                nulls.withUnsafeMutableBufferPointer { nulls in
                    for index in binds.indices {
                        binds[index].buffer_type = MYSQL_TYPE_STRING
                        // The binds point into `packed` until the execute returns; the client only reads
                        // a parameter's buffer (MYSQL_BIND has no const pointer).
                        binds[index].buffer = bytes.baseAddress.map {
                            UnsafeMutableRawPointer(mutating: $0 + (fields[index]?.lowerBound ?? 0))
                        }
                        binds[index].buffer_length = lengths[index]
                        binds[index].length = lengths.baseAddress.map { $0 + index }
                        binds[index].is_null = nulls.baseAddress.map { $0 + index }
                    }
                    guard mysql_stmt_bind_param(handle, &binds) == 0 else { return true }
                    return mysql_stmt_execute(handle) != 0
                }
            }
        }
        if failed { throw error() }
    }

    /// The statement's last error.
    private func error() -> MariaDBError { Self.error(of: handle, settings: connection.settings, sql: sql) }

    /// A result the server should not have sent.
    private func refused(_ what: String) -> MariaDBError {
        _ = mysql_stmt_reset(handle)
        return connection.settings.error(.statement, message: "the server sent \(what); refused", sql: sql)
    }

    /// The last error of statement `handle`, its message redacted.
    static func error(of handle: UnsafeMutablePointer<MYSQL_STMT>, settings: MariaDBSettings, sql: String)
        -> MariaDBError
    {
        settings.error(
            number: mysql_stmt_errno(handle), sqlState: mysql_stmt_sqlstate(handle), message: mysql_stmt_error(handle),
            sql: sql, connecting: false)
    }
}
