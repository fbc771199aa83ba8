/// The rows of one `COPY … FROM STDIN` in PostgreSQL's text format, sent to the server in chunks of about
/// 256 KiB as they fill; handed to the closure of ``PostgresConnection/copyIn(_:columnNames:writing:)``.
///
/// Text format: fields separated by a tab, rows ended by a newline, NULL written `\N`, and in a value a
/// backslash, tab, newline and carriage return written `\\`, `\t`, `\n` and `\r`. An empty string is an
/// empty field (not NULL). A NUL character cannot be represented in PostgreSQL text at all: a value
/// holding one is refused with a ``PostgresError`` of kind `invalidValue` naming the row and column,
/// rather than silently changed — the caller decides whether to strip it.
public struct CopyBuffer {
    /// About how many bytes are collected before they are sent.
    static let defaultChunkSize = 256 * 1024

    private let connection: PostgresConnection
    private let columnNames: [String]
    private let sql: String
    private let chunkSize: Int
    private var bytes: [UInt8] = []
    private var fieldsInRow = 0
    /// The rows ended so far.
    public private(set) var rowCount = 0

    init(connection: PostgresConnection, columnNames: [String], sql: String, chunkSize: Int) {
        self.connection = connection
        self.columnNames = columnNames
        self.sql = sql
        self.chunkSize = chunkSize
        bytes.reserveCapacity(chunkSize + 4096)
    }

    /// Appends one field of the current row: `nil` is NULL, any other value is escaped.
    ///
    /// - Throws: ``PostgresError`` of kind `invalidValue` when `value` contains a NUL character; the row is
    ///   then incomplete and the COPY must end (throw out of the closure).
    public mutating func append(_ value: String?) throws(PostgresError) {
        guard var text = value else {
            try append(utf8: nil)
            return
        }
        // `withUTF8` rethrows untyped: the error comes out as a value.
        try text.withUTF8 { utf8 in Result { () throws(PostgresError) in try append(utf8: utf8) } }.get()
    }

    /// Appends one field of the current row from its UTF-8 bytes: `nil` is NULL, any other value is
    /// escaped as ``append(_:)`` escapes a `String` — the same bytes, without making one.
    ///
    /// - Throws: ``PostgresError`` of kind `invalidValue` when `utf8` contains a NUL byte; the row is then
    ///   incomplete and the COPY must end (throw out of the closure).
    public mutating func append(utf8 value: UnsafeBufferPointer<UInt8>?) throws(PostgresError) {
        if fieldsInRow > 0 { bytes.append(0x09) }
        fieldsInRow += 1
        guard let value else {
            bytes.append(0x5C)
            bytes.append(0x4E)
            return
        }
        if !Self.escape(value, into: &bytes) { throw nulError() }
    }

    /// Ends the current row; sends the collected bytes when they reach the chunk size.
    /// - Throws: ``PostgresError`` when a chunk cannot be sent (the connection broke).
    public mutating func endRow() throws(PostgresError) {
        bytes.append(0x0A)
        fieldsInRow = 0
        rowCount += 1
        if bytes.count >= chunkSize { try flush() }
    }

    /// Appends a whole row: ``append(_:)`` for each field, then ``endRow()``.
    /// - Throws: ``PostgresError`` as those do.
    public mutating func appendRow(_ fields: [String?]) throws(PostgresError) {
        for field in fields { try append(field) }
        try endRow()
    }

    /// Sends what has been collected.
    mutating func flush() throws(PostgresError) {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBufferPointer { (chunk) throws(PostgresError) in
            try connection.putCopyData(chunk, sql: sql)
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends `value` escaped for the text format; returns `false` (having appended the bytes before it)
    /// when it meets a NUL byte.
    static func escape(_ value: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) -> Bool {
        // Most values need no escape: copy them whole.
        if !value.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x00 }) {
            bytes.append(contentsOf: value)
            return true
        }
        for byte in value {
            switch byte {
            case 0x5C: bytes += [0x5C, 0x5C]  // backslash → \\
            case 0x09: bytes += [0x5C, 0x74]  // tab → \t
            case 0x0A: bytes += [0x5C, 0x6E]  // newline → \n
            case 0x0D: bytes += [0x5C, 0x72]  // carriage return → \r
            case 0x00: return false
            default: bytes.append(byte)
            }
        }
        return true
    }

    private func nulError() -> PostgresError {
        var error = connection.settings.error(
            .invalidValue, message: "the value contains a NUL character, which PostgreSQL text cannot hold", sql: sql)
        error.row = rowCount + 1
        error.column = fieldsInRow
        if fieldsInRow <= columnNames.count { error.columnName = columnNames[fieldsInRow - 1] }
        return error
    }
}
