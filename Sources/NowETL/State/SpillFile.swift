import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pages one sys_id range of a table fetched, kept on disk until the run commits: the rows as
/// the transformer produced them and the records it rejected, in sys_id order.
///
/// A spill part is format-independent: every output of the table (CSV, XML, JSON, and later a
/// database) is written from the same parts, joined in sys_id order at prepare time, so the outputs
/// are byte-identical whatever the concurrency or the way the key space was split. Its bytes are a
/// sequence of frames, one per page:
///
/// ```
/// frame   := length:u32le payload            (length of payload)
/// payload := rows:varint row* rejections:varint rejection*
/// row     := (cell)*columns [(text?)*columns when the schema has references] text?(record table)
/// cell    := 0 (null) | 1 text | 2 int | 3 decimal-text | 4 (false) | 5 (true) | 6 int (date-time)
///            | 7 int (date) | 8 int (duration)
/// text?   := 0 | 1 text          text := length:varint utf8          int := zigzag varint
/// rejection := text(sys_id) text(column) text(type | "invalid_utf8") text(value) text(record JSON)
/// ```
///
/// The writer only appends; what counts is what the ``TableJournal`` recorded (length and SHA-256 of
/// the committed prefix): a resumed run truncates the part to that length, so a page written but not
/// journaled (a crash in between) is fetched again, and a part whose prefix no longer matches its
/// digest is fetched from the start.
enum SpillFrame {
    /// One page: its rows and its rejected records.
    struct Page {
        var batch: RowBatch
        var rejections: [Rejection]
    }

    /// The type text of a rejection for invalid UTF-8 (no column type is called so).
    static let invalidUTF8 = "invalid_utf8"
    /// The type name a rejection for its sys_id is spilled with.
    static let invalidSysID = "invalid_sys_id"
    /// The type text of a rejection for NUL in text (no column type is called so; the column is text).
    static let nulCharacter = "nul_character"

    /// The frame of `page` (length prefix included).
    static func encode(_ batch: RowBatch, rejections: [Rejection]) -> [UInt8] {
        var out = SpillEncoder()
        // One allocation for the frame in the common case (text, a few bytes of tag and length per cell),
        // rather than a series of doublings that each copy the frame so far.
        out.bytes.reserveCapacity(64 + batch.count * batch.columnCount * 12 + batch.textByteCount)
        out.bytes += [0, 0, 0, 0]
        out.varint(UInt64(batch.count))
        for row in 0..<batch.count {
            for column in 0..<batch.columnCount {
                // Text is copied from the batch's bytes as it is: no String is made for it.
                let wroteText: Void? = batch.withStringBytes(row: row, column: column) { bytes in
                    out.bytes.append(1)
                    out.varint(UInt64(bytes.count))
                    out.bytes.append(contentsOf: bytes)
                }
                if wroteText == nil { out.cell(batch[row, column]) }
            }
            if batch.carriesDisplayValues {
                for column in 0..<batch.columnCount { out.optionalText(batch.displayValue(row: row, column: column)) }
            }
            out.optionalText(batch.recordTable(row: row))
        }
        out.varint(UInt64(rejections.count))
        for rejection in rejections {
            out.text(rejection.sysID)
            out.text(rejection.column)
            switch rejection.problem {
            case .unconvertible: out.text(rejection.type.rawValue)
            case .invalidUTF8: out.text(Self.invalidUTF8)
            case .invalidSysID: out.text(Self.invalidSysID)
            case .nulCharacter: out.text(Self.nulCharacter)
            }
            out.text(rejection.value)
            out.varint(UInt64(rejection.record.count))
            out.bytes += rejection.record
        }
        let length = UInt32(out.bytes.count - 4)
        out.bytes[0] = UInt8(truncatingIfNeeded: length)
        out.bytes[1] = UInt8(truncatingIfNeeded: length >> 8)
        out.bytes[2] = UInt8(truncatingIfNeeded: length >> 16)
        out.bytes[3] = UInt8(truncatingIfNeeded: length >> 24)
        return out.bytes
    }

    /// Decodes one payload (without its length prefix) for `schema`.
    static func decode(_ payload: ArraySlice<UInt8>, schema: RowSchema) throws(NowETLError) -> Page {
        var input = SpillDecoder(bytes: payload)
        let rows = try input.count()
        var batch = RowBatch(schema: schema, capacity: rows)
        // The text held as bytes is at most the payload.
        batch.reserveTextCapacity(payload.count)
        for _ in 0..<rows {
            let row = batch.appendRow()
            for column in 0..<batch.columnCount { try input.cell(into: &batch, row: row, column: column) }
            if batch.carriesDisplayValues {
                for column in 0..<batch.columnCount {
                    batch.setDisplayValue(try input.optionalText(), row: row, column: column)
                }
            }
            batch.setRecordTable(try input.optionalText(), row: row)
        }
        let count = try input.count()
        var rejections: [Rejection] = []
        for _ in 0..<count {
            let sysID = try input.text()
            let column = try input.text()
            let typeName = try input.text()
            let problem: Rejection.Problem =
                switch typeName {
                case Self.invalidUTF8: .invalidUTF8
                case Self.invalidSysID: .invalidSysID
                case Self.nulCharacter: .nulCharacter
                default: .unconvertible
                }
            guard let type = problem == .unconvertible ? ColumnType(rawValue: typeName) : .string else {
                throw NowETLError(.damagedSpill, "unknown column type \(typeName)")
            }
            let value = try input.text()
            let record = Data(try input.bytes(try input.count()))
            rejections.append(
                Rejection(sysID: sysID, column: column, type: type, value: value, record: record, problem: problem))
        }
        guard input.isAtEnd else { throw NowETLError(.damagedSpill, "\(input.remaining) bytes after the page") }
        return Page(batch: batch, rejections: rejections)
    }
}

private struct SpillEncoder {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func int(_ value: Int) {
        let wide = Int64(value)
        varint(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    mutating func text(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalText(_ text: String?) {
        guard let text else { return bytes.append(0) }
        bytes.append(1)
        self.text(text)
    }

    mutating func cell(_ value: ColumnValue?) {
        guard let value else { return bytes.append(0) }
        switch value {
        case .string(let text):
            bytes.append(1)
            self.text(text)
        case .int(let number):
            bytes.append(2)
            int(number)
        case .decimal(let text):
            bytes.append(3)
            self.text(text)
        case .bool(let flag):
            bytes.append(flag ? 5 : 4)
        case .dateTime(let seconds):
            bytes.append(6)
            int(seconds)
        case .date(let days):
            bytes.append(7)
            int(days)
        case .duration(let seconds):
            bytes.append(8)
            int(seconds)
        }
    }
}

private struct SpillDecoder {
    let bytes: ArraySlice<UInt8>
    var position: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }
    var remaining: Int { bytes.endIndex - position }

    mutating func byte() throws(NowETLError) -> UInt8 {
        guard position < bytes.endIndex else { throw NowETLError(.damagedSpill, "page ends early") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(NowETLError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte()
            guard shift < 64 else { throw NowETLError(.damagedSpill, "integer too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func count() throws(NowETLError) -> Int {
        let value = try varint()
        guard value <= UInt64(remaining) * 8 + 8 else {
            throw NowETLError(.damagedSpill, "count \(value) larger than the page")
        }
        return Int(value)
    }

    mutating func int() throws(NowETLError) -> Int {
        let raw = try varint()
        return Int(truncatingIfNeeded: Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
    }

    mutating func bytes(_ count: Int) throws(NowETLError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw NowETLError(.damagedSpill, "page ends early") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func text() throws(NowETLError) -> String {
        let length = try count()
        return String(decoding: try bytes(length), as: UTF8.self)
    }

    mutating func optionalText() throws(NowETLError) -> String? {
        switch try byte() {
        case 0: return nil
        case 1: return try text()
        case let tag: throw NowETLError(.damagedSpill, "bad text tag \(tag)")
        }
    }

    /// Reads one cell into `batch`: ASCII text as bytes of the batch (no String made), any other value
    /// as ``cell()`` reads it (other text is decoded as before, so damaged bytes read the same).
    mutating func cell(into batch: inout RowBatch, row: Int, column: Int) throws(NowETLError) {
        guard position < bytes.endIndex, bytes[position] == 1 else {
            batch[row, column] = try cell()
            return
        }
        position += 1
        let text = try self.bytes(try count())
        text.withUnsafeBufferPointer { text in
            var bits: UInt8 = 0
            for byte in text { bits |= byte }
            if bits < 0x80 {
                batch.setText(text, row: row, column: column)
            } else {
                batch[row, column] = .string(String(decoding: text, as: UTF8.self))
            }
        }
    }

    mutating func cell() throws(NowETLError) -> ColumnValue? {
        switch try byte() {
        case 0: return nil
        case 1: return .string(try text())
        case 2: return .int(try int())
        case 3: return .decimal(try text())
        case 4: return .bool(false)
        case 5: return .bool(true)
        case 6: return .dateTime(secondsSinceEpoch: try int())
        case 7: return .date(daysSinceEpoch: try int())
        case 8: return .duration(seconds: try int())
        case let tag: throw NowETLError(.damagedSpill, "bad cell tag \(tag)")
        }
    }
}

/// An append-only spill part on disk, owned by one partition task at a time; tracks the length and
/// SHA-256 of what it holds so the journal can record them.
final class SpillWriter {
    /// Absolute path.
    let path: String
    /// Bytes in the file.
    private(set) var length: Int
    private var hasher: SHA256
    private var descriptor: Int32

    /// Opens (creating) `path` for appending after its first `keeping` bytes, which must hash to the
    /// digest `hasher` holds; anything after them is cut off.
    init(path: String, keeping: Int = 0, hasher: SHA256 = SHA256()) throws(NowETLError) {
        self.path = path
        let fd = try OwnFiles.open(path, O_WRONLY | O_CREAT, action: "create the spill part")
        guard ftruncate(fd, off_t(keeping)) == 0, lseek(fd, off_t(keeping), SEEK_SET) >= 0 else {
            let number = errno
            Glibc.close(fd)
            throw NowETLError.io("truncate the spill part", path: path, errno: number)
        }
        descriptor = fd
        length = keeping
        self.hasher = hasher
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// The SHA-256 of the bytes written so far.
    var digest: SHA256.Digest { hasher.finalizedCopy }

    /// Appends one frame.
    func append(_ frame: [UInt8]) throws(NowETLError) {
        let failure: Int32? = frame.withUnsafeBytes { FileDescriptorIO.writeAll(descriptor, $0) }
        if let failure { throw NowETLError.io("write the spill part", path: path, errno: failure) }
        frame.withUnsafeBytes { hasher.update($0) }
        length += frame.count
    }

    /// Closes the file (no sync: a lost tail is caught by the journal's digest).
    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}

/// Reads the frames of a spill part in order, one page in memory at a time.
struct SpillReader {
    let path: String

    /// Calls `body` with every page of the first `length` bytes of the part.
    func forEachPage(
        length: Int, schema: RowSchema, _ body: (SpillFrame.Page) async throws -> Void
    ) async throws {
        guard length > 0 else { return }
        let fd = try OwnFiles.open(path, O_RDONLY, action: "open the spill part")
        defer { close(fd) }
        var offset = 0
        while offset < length {
            let header = try read(fd, count: 4, at: offset)
            let size = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
            guard offset + 4 + size <= length else {
                throw NowETLError(
                    .io, path: path, "spill part \(path): a page runs past the journaled length \(length)")
            }
            let payload = try read(fd, count: size, at: offset + 4)
            let page: SpillFrame.Page
            do {
                page = try SpillFrame.decode(payload[...], schema: schema)
            } catch {
                throw NowETLError(.damagedSpill, path: path, "spill part \(path) at byte \(offset)", cause: error)
            }
            try await body(page)
            offset += 4 + size
        }
    }

    /// A hasher holding the first `length` bytes of the file, for appending after them.
    static func hasher(of path: String, length: Int) -> SHA256? {
        // Not through a link: a planted one must not feed another file's bytes into the outputs.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return length == 0 ? SHA256() : nil }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while offset < length {
            let wanted = min(buffer.count, length - offset)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += count
        }
        return hasher
    }

    private func read(_ fd: Int32, count: Int, at offset: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + done }, count - done, off_t(offset + done))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw NowETLError.io("read the spill part", path: path) }
            guard got > 0 else {
                throw NowETLError(.io, path: path, "spill part \(path) is shorter than its journal says")
            }
            done += got
        }
        return bytes
    }
}
