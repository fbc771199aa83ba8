/// A file sink writing CSV (RFC 4180), optionally gzip-compressed, split and always atomic.
///
/// A field is quoted when it contains the delimiter, a `"`, CR or LF; a `"` inside is doubled. That
/// holds for every field whatever the delimiter: the formula guard's `'` with `delimiter: "'"`, and
/// typed values with a delimiter they contain (`:` and date-times, `-` and negative numbers). Text is
/// UTF-8 and written as it is otherwise (tabs and other control characters included: CSV can carry
/// them). Typed values use one canonical text each (see ``ColumnValue``): integers plain, decimals as
/// given, `true`/`false`, `yyyy-MM-dd HH:mm:ss` (UTC; `yyyy-MM-ddTHH:mm:ssZ` with
/// ``DateTimeFormat/iso8601``, which also rewrites date-time fields' text), `yyyy-MM-dd`, durations in
/// whole seconds.
///
/// Display values of reference columns are not written; a pipeline declares a column for them.
public final class CSVSink: FileSink {
    /// Creates a sink; the options are checked at ``FileSink/open(schema:context:)``.
    public init(options: FileSinkOptions, csv: CSVSinkOptions = CSVSinkOptions()) {
        super.init(options: options, encoder: CSVRowEncoder(options: csv))
    }
}

/// The CSV format: header, quoting, canonical values.
final class CSVRowEncoder: RowEncoder {
    let options: CSVSinkOptions
    let format = "csv"
    private var delimiter: UInt8 = 0x2C
    private var lineEnding: [UInt8] = []
    private var header: [UInt8] = []
    private var nullField: [UInt8] = []
    /// The columns written (the schema's columns; unload columns follow them in each row).
    private var columnCount = 0
    /// Per column, whether its text is an instance date-time to write as ISO 8601.
    private var isoText: [Bool] = []
    /// Whether a value written without ``appendField(_:guarded:to:)`` (typed values, ISO 8601 rewrites)
    /// may need quotes: the delimiter, or every byte of the null text, is one such values are made of.
    private var typedFieldsMayNeedQuotes = false

    init(options: CSVSinkOptions) {
        self.options = options
    }

    func open(schema: RowSchema, context: SinkContext, displayPath: String) throws {
        guard let ascii = options.delimiter.asciiValue, options.delimiter.unicodeScalars.count == 1,
            ascii != 0x22, ascii != 0x0D, ascii != 0x0A
        else {
            throw NowETLError(
                .invalidSchema, path: displayPath,
                "CSV delimiter \(options.delimiter.debugDescription) for \(displayPath) must be one ASCII character "
                    + "other than a quote, CR or LF")
        }
        delimiter = ascii
        lineEnding = options.lineEnding.bytes
        var buffer = ByteBuffer(capacity: 256)
        columnCount = schema.columns.count
        isoText = schema.columns.map { options.dateTimeFormat == .iso8601 && $0.isDateTimeField }
        for (index, column) in schema.columns.enumerated() {
            if index > 0 { buffer.append(delimiter) }
            appendField(column.name, guarded: false, to: &buffer)
        }
        buffer.append(lineEnding)
        header = buffer.bytes
        nullField = Array(options.nullText.utf8)
        typedFieldsMayNeedQuotes =
            Self.typedFieldBytes.contains(delimiter)
            || (!nullField.isEmpty && nullField.allSatisfy(Self.typedFieldBytes.contains))
        if nullField.contains(where: { $0 == delimiter || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) {
            throw NowETLError(
                .invalidSchema, path: displayPath,
                "CSV null text \(options.nullText.debugDescription) for \(displayPath) must not contain the delimiter, "
                    + "a quote or a line break")
        }
    }

    func beginPart(_ part: PartOutput) throws {
        if options.byteOrderMark { part.buffer.append([0xEF, 0xBB, 0xBF]) }
        if options.header { part.buffer.append(header) }
    }

    func encode(_ batch: RowBatch, row: Int, into part: PartOutput) throws {
        for column in 0..<columnCount {
            if column > 0 { part.buffer.append(delimiter) }
            if !isoText[column],
                let _: Void = batch.withStringBytes(
                    row: row, column: column,
                    { appendField(bytes: $0, guarded: options.formulaGuard, to: &part.buffer) })
            {
                continue  // text, written from the batch's bytes
            }
            guard let value = batch[row, column] else {
                part.buffer.append(nullField)
                continue
            }
            let start = part.buffer.count
            switch value {
            case .string(let text):
                if isoText[column], let iso = DateTimeFormat.iso8601Text(ofInstanceDateTime: text) {
                    part.buffer.append(utf8: iso)
                } else {
                    appendField(text, guarded: options.formulaGuard, to: &part.buffer)
                    continue
                }
            case .decimal(let text):
                appendField(text, guarded: false, to: &part.buffer)
                continue
            case .int(let number), .duration(let number):
                part.buffer.appendInteger(number)
            case .bool(let flag):
                part.buffer.append(flag ? Self.trueBytes : Self.falseBytes)
            case .dateTime(let seconds):
                part.buffer.appendDateTime(secondsSinceEpoch: seconds, format: options.dateTimeFormat)
            case .date(let days):
                part.buffer.appendDate(daysSinceEpoch: days)
            }
            if typedFieldsMayNeedQuotes { quoteTypedField(in: &part.buffer, from: start) }
        }
        part.buffer.append(lineEnding)
    }

    /// The bytes typed values and ISO 8601 rewrites are made of: digits, `-`, `:`, space, `T`, `Z` and
    /// the letters of `true` and `false`. None is a `"`, so such a value is quoted without doubling.
    private static let typedFieldBytes = Set("0123456789-: TZtruefals".utf8)

    /// Quotes the typed value appended to `buffer` from `start` when it holds the delimiter (`:` in a
    /// date-time) or reads as null, as ``appendField(_:guarded:to:)`` quotes text.
    private func quoteTypedField(in buffer: inout ByteBuffer, from start: Int) {
        let field = buffer.bytes[start...]
        guard field.contains(delimiter) || field.elementsEqual(nullField) else { return }
        buffer.insert(0x22, at: start)
        buffer.append(0x22)
    }

    func endPart(_ part: PartOutput) throws {}

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    /// Whether a spreadsheet would run `bytes` as a formula: it starts with `=`, `+`, `-`, `@`, a tab or
    /// a carriage return (OWASP's list for CSV injection) and is not a plain number.
    ///
    /// A signed number (`-5`, `+3.25`, `-1.5e3`) is what a spreadsheet reads as that number, not a
    /// formula, so a text column of numbers is left as it is; `-2+3` or `-` are guarded.
    static func startsFormula(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        switch first {
        case 0x3D, 0x40, 0x09, 0x0D: return true  // = @ tab CR
        case 0x2B, 0x2D: return !isSignedNumber(bytes)  // + -
        default: return false
        }
    }

    /// Whether `bytes` is a sign, digits with an optional fraction (`.` and digits) and an optional
    /// exponent (`e` or `E`, an optional sign, digits), with at least one digit before the exponent.
    private static func isSignedNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 1
        var mantissaDigits = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - start
        }
        mantissaDigits += digits()
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// Appends a text field, quoted when it must be (or when it would read as null).
    private func appendField(_ text: String, guarded: Bool, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { appendField(bytes: $0, guarded: guarded, to: &buffer) }
    }

    /// Appends a text field given as its UTF-8 bytes, as ``appendField(_:guarded:to:)``.
    private func appendField(bytes: UnsafeBufferPointer<UInt8>, guarded: Bool, to buffer: inout ByteBuffer) {
        let delimiter = self.delimiter
        let nullField = self.nullField
        var needsQuotes = false
        for byte in bytes where byte == delimiter || byte == 0x22 || byte == 0x0D || byte == 0x0A {
            needsQuotes = true
            break
        }
        let guardPrefix = guarded && Self.startsFormula(bytes)
        if guardPrefix && delimiter == 0x27 {
            needsQuotes = true  // the guard's `'` is the delimiter
        }
        if !needsQuotes && !guardPrefix && bytes.elementsEqual(nullField) {
            needsQuotes = true  // empty text when null is empty, or text equal to the null text
        }
        if needsQuotes { buffer.append(0x22) }
        if guardPrefix { buffer.append(0x27) }
        if needsQuotes {
            var runStart = 0
            for index in 0..<bytes.count where bytes[index] == 0x22 {
                // Copy through the quote, then add its double.
                buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...index]))
                buffer.append(0x22)
                runStart = index + 1
            }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
            buffer.append(0x22)
        } else {
            buffer.append(bytes)
        }
    }
}
