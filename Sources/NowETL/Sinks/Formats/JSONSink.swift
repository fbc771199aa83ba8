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
/// Strings are escaped by hand (``JSONText``, no `JSONSerialization` on this path): `"` and `\` and the control
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
                throw NowETLError(
                    .invalidSchema, path: displayPath,
                    "column \"\(column.name)\" appears twice; JSON objects for \(displayPath) need unique keys")
            }
            var buffer = ByteBuffer(capacity: column.name.utf8.count + 4)
            buffer.append(index == 0 ? 0x7B : 0x2C)
            JSONText.append(column.name, to: &buffer)
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
            if !isoText[column],
                let _: Void = batch.withStringBytes(
                    row: row, column: column, { JSONText.append(bytes: $0, to: &part.buffer) })
            {
                continue  // text, escaped from the batch's bytes
            }
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
                    JSONText.append(text, to: &part.buffer)
                }
            case .decimal(let text):
                if options.decimalsAsNumbers && JSONText.isNumber(text) {
                    part.buffer.append(utf8: text)
                } else {
                    JSONText.append(text, to: &part.buffer)
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
}
