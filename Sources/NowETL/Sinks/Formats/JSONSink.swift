/// A file sink writing JSON Lines or a JSON array of objects, optionally gzip-compressed (level
/// settable through ``Compression/gzip(level:)``), split and always atomic.
///
/// Each row is an object with the schema's columns as keys, in schema order. Values: null → `null`,
/// strings → JSON strings, integers and durations (seconds) → numbers, booleans → `true`/`false`,
/// date-times and dates → strings (`"2024-03-01 08:00:00"`, `"2024-03-01"`; `"2024-03-01T08:00:00Z"`
/// with ``DateTimeFormat/iso8601``, which also rewrites date-time fields' text), decimals → strings by
/// default (see ``JSONSinkOptions/decimalsAsNumbers``). Integers are 64-bit: readers that use doubles
/// (JavaScript) are exact only up to 2^53.
///
/// Strings are escaped by hand (no `JSONSerialization` on this path): `"` and `\` and the control
/// characters U+0000–U+001F are escaped (`\n`, `\t`, … or `\u00XX`), U+2028 and U+2029 too (so the
/// output is also valid JavaScript); everything else is written as UTF-8.
///
/// Display values of reference columns are not written; a pipeline declares a column for them.
public final class JSONSink: FileSink {
    /// Creates a sink.
    public init(options: FileSinkOptions, json: JSONSinkOptions = JSONSinkOptions()) {
        super.init(options: options, encoder: JSONRowEncoder(options: json))
    }
}

/// The JSON format: objects with pre-escaped keys, hand-escaped strings.
final class JSONRowEncoder: RowEncoder {
    let options: JSONSinkOptions
    var format: String { options.layout == .lines ? "jsonl" : "json" }
    /// `{"name":` for the first column, `,"name":` for the others.
    private var keys: [[UInt8]] = []
    private var rowsInPart = 0
    /// Per column, whether its text is an instance date-time to write as ISO 8601.
    private var isoText: [Bool] = []

    init(options: JSONSinkOptions) {
        self.options = options
    }

    func open(schema: RowSchema, context: SinkContext, displayPath: String) throws {
        var seen = Set<String>()
        keys = []
        isoText = schema.columns.map { options.dateTimeFormat == .iso8601 && $0.isDateTimeField }
        for (index, column) in schema.columns.enumerated() {
            guard seen.insert(column.name).inserted else {
                throw SinkError(
                    .invalidSchema, path: displayPath,
                    "column \"\(column.name)\" appears twice; JSON objects for \(displayPath) need unique keys")
            }
            var buffer = ByteBuffer(capacity: column.name.utf8.count + 4)
            buffer.append(index == 0 ? 0x7B : 0x2C)
            Self.appendString(column.name, to: &buffer)
            buffer.append(0x3A)
            keys.append(buffer.bytes)
        }
    }

    func beginPart(_ part: PartOutput) throws {
        rowsInPart = 0
        if options.layout == .array { part.buffer.append(0x5B) }
    }

    func encode(_ batch: RowBatch, row: Int, into part: PartOutput) throws {
        if options.layout == .array {
            if rowsInPart > 0 { part.buffer.append(0x2C) }
            part.buffer.append(0x0A)
        }
        rowsInPart += 1
        if keys.isEmpty { part.buffer.append(0x7B) }
        for column in 0..<keys.count {
            part.buffer.append(keys[column])
            guard let value = batch[row, column] else {
                part.buffer.append(Self.nullBytes)
                continue
            }
            switch value {
            case .string(let text):
                if isoText[column], let iso = DateTimeFormat.iso8601Text(ofInstanceDateTime: text) {
                    part.buffer.append(0x22)
                    part.buffer.append(utf8: iso)
                    part.buffer.append(0x22)
                } else {
                    Self.appendString(text, to: &part.buffer)
                }
            case .decimal(let text):
                if options.decimalsAsNumbers && Self.isJSONNumber(text) {
                    part.buffer.append(utf8: text)
                } else {
                    Self.appendString(text, to: &part.buffer)
                }
            case .int(let number), .duration(let number):
                part.buffer.appendInteger(number)
            case .bool(let flag):
                part.buffer.append(flag ? Self.trueBytes : Self.falseBytes)
            case .dateTime(let seconds):
                part.buffer.append(0x22)
                part.buffer.appendDateTime(secondsSinceEpoch: seconds, format: options.dateTimeFormat)
                part.buffer.append(0x22)
            case .date(let days):
                part.buffer.append(0x22)
                part.buffer.appendDate(daysSinceEpoch: days)
                part.buffer.append(0x22)
            }
        }
        part.buffer.append(0x7D)
        if options.layout == .lines { part.buffer.append(0x0A) }
    }

    func endPart(_ part: PartOutput) throws {
        if options.layout == .array { part.buffer.append([0x0A, 0x5D, 0x0A]) }
    }

    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    /// Appends `text` as a JSON string literal.
    static func appendString(_ text: String, to buffer: inout ByteBuffer) {
        buffer.append(0x22)
        let write = { (bytes: UnsafeBufferPointer<UInt8>, buffer: inout ByteBuffer) in
            var runStart = 0
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xE2 {
                    index += 1
                    continue
                }
                // U+2028 / U+2029 are E2 80 A8 / E2 80 A9; other E2 sequences pass.
                if byte == 0xE2 {
                    guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 else {
                        index += 1
                        continue
                    }
                }
                buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                switch byte {
                case 0x22: buffer.append(escape: 0x22)
                case 0x5C: buffer.append(escape: 0x5C)
                case 0x0A: buffer.append(escape: 0x6E)
                case 0x0D: buffer.append(escape: 0x72)
                case 0x09: buffer.append(escape: 0x74)
                case 0x08: buffer.append(escape: 0x62)
                case 0x0C: buffer.append(escape: 0x66)
                case 0xE2:
                    buffer.appendUnicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                    index += 2
                default:
                    buffer.appendUnicodeEscape(UInt16(byte))
                }
                index += 1
                runStart = index
            }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        }
        if text.utf8.withContiguousStorageIfAvailable({ write($0, &buffer) }) == nil {
            Array(text.utf8).withUnsafeBufferPointer { write($0, &buffer) }
        }
        buffer.append(0x22)
    }

    /// Whether `text` is a number by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            var count = 0
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count
        }
        if bytes.first == 0x2D { bytes = bytes.dropFirst() }
        if bytes.first == 0x30 {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == 0x2E {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == 0x65 || bytes.first == 0x45 {
            bytes = bytes.dropFirst()
            if bytes.first == 0x2B || bytes.first == 0x2D { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
