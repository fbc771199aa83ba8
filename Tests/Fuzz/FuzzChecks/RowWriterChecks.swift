import Foundation
import NowQuery

@testable import NowETL

/// Columns and rows derived from fuzz input, deterministically: names and text from the bytes (any
/// Unicode, quotes, delimiters, line breaks, formula starters), every ``ColumnValue`` case, nulls.
struct DerivedTable {
    var schema: RowSchema
    var rows: [[ColumnValue?]]

    init(_ input: inout FuzzInput, minimumColumns: Int) {
        let columnCount = minimumColumns + input.below(4)
        schema = RowSchema(
            columns: (0..<columnCount).map { _ in
                ColumnSchema(name: input.text(), isDateTimeField: input.byte() & 1 == 1)
            })
        rows = []
        while !input.isAtEnd && rows.count < 64 {
            rows.append((0..<columnCount).map { _ in Self.value(&input) })
        }
    }

    private static func value(_ input: inout FuzzInput) -> ColumnValue? {
        switch input.below(10) {
        case 0: return nil
        case 1...3: return .string(input.text())
        case 4: return .int(input.integer())
        case 5: return .decimal(input.text())
        case 6: return .bool(input.byte() & 1 == 1)
        case 7: return .dateTime(secondsSinceEpoch: input.integer())
        case 8: return .date(daysSinceEpoch: input.integer())
        default: return .duration(seconds: input.integer())
        }
    }

    /// The bytes `encoder` writes for the rows in one part (without compression; all of it stays in
    /// the part's buffer, which the checks keep far below its 64 KiB chunk) — the same whether the
    /// batch holds text cells as Strings or as its own bytes (a page's text, a spill's).
    func encoded(by encoder: some RowEncoder) throws -> [UInt8] {
        let written = try encoded(by: encoder, textAsBytes: false)
        guard try encoded(by: encoder, textAsBytes: true) == written else {
            throw FuzzFailure("text cells held as bytes of the batch are written differently from Strings")
        }
        return written
    }

    private func encoded(by encoder: some RowEncoder, textAsBytes: Bool) throws -> [UInt8] {
        let part = try PartOutput(
            targetPath: ScratchDirectory.path + "/part", relativePath: "part", number: 1, compression: .none)
        defer { part.file.abort() }
        try encoder.beginPart(part)
        var batch = RowBatch(schema: schema, capacity: rows.count)
        for row in rows {
            let index = batch.appendRow()
            for (column, value) in row.enumerated() {
                if textAsBytes, case .string(let text) = value {
                    Array(text.utf8).withUnsafeBufferPointer { batch.setText($0, row: index, column: column) }
                } else {
                    batch[index, column] = value
                }
            }
        }
        for index in 0..<batch.count { try encoder.encode(batch, row: index, into: part) }
        try encoder.endPart(part)
        guard part.file.byteCount == 0 else { throw FuzzFailure("the part outgrew its buffer") }
        return part.buffer.bytes
    }

    static let context = SinkContext(table: "fuzz", runID: "fuzz", runStarted: Date(timeIntervalSince1970: 0))
}

/// The writers' shared text for values that are not strings: what a reader must find.
enum ExpectedText {
    static func of(_ value: ColumnValue, format: DateTimeFormat) -> String {
        switch value {
        case .string(let text), .decimal(let text): return text
        case .int(let number), .duration(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .dateTime(let seconds):
            let text = TableAPIDateFormat.string(fromSeconds: seconds)
            guard format == .iso8601 else { return text }
            return text.replacingOccurrences(of: " ", with: "T") + "Z"
        case .date(let days):
            var bytes: [UInt8] = []
            TableAPIDateFormat.append(day: days, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A string value's text as written: date-time columns in ISO 8601 rewrite instance date-times.
    static func string(_ text: String, column: ColumnSchema, format: DateTimeFormat) -> String {
        guard format == .iso8601, column.isDateTimeField else { return text }
        return DateTimeFormat.iso8601Text(ofInstanceDateTime: text) ?? text
    }
}

/// The CSV writer on derived rows and options: the file reads back, with a strict RFC 4180 reader,
/// to the header and the values (nulls as the null text unquoted, the formula guard's `'` exactly
/// where its rule says); options it must refuse, it refuses.
enum CSVWriterCheck {
    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        var input = FuzzInput(bytes)
        let options = CSVSinkOptions(
            delimiter: input.pick([",", ";", "\t", "|", "'", " ", ":", "-", "0", "t", "\"", "\n"]),
            header: input.byte() & 1 == 1, nullText: input.pick(["", "NULL", "\\N", "0", "true", "-", "a,b", "\""]),
            lineEnding: input.pick([.crlf, .lf]), byteOrderMark: input.byte() & 1 == 1,
            formulaGuard: input.byte() & 1 == 1, dateTimeFormat: input.pick([.instance, .iso8601]))
        let table = DerivedTable(&input, minimumColumns: 1)
        let delimiter = options.delimiter.asciiValue ?? 0
        let refused =
            [0x22, 0x0A, 0x0D].contains(delimiter)
            || options.nullText.utf8.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        let encoder = CSVRowEncoder(options: options)
        do {
            try encoder.open(schema: table.schema, context: DerivedTable.context, displayPath: "fuzz.csv")
        } catch {
            return refused ? nil : FuzzFailure("the CSV writer refused \(options): \(error)")
        }
        if refused { return FuzzFailure("the CSV writer accepted \(options)") }
        var written: [UInt8]
        do {
            written = try table.encoded(by: encoder)
        } catch {
            return FuzzFailure("the CSV writer failed: \(error)")
        }
        if options.byteOrderMark {
            guard written.starts(with: [0xEF, 0xBB, 0xBF]) else { return FuzzFailure("no byte order mark") }
            written.removeFirst(3)
        }
        let reader = CSVReader(delimiter: delimiter, lineEnding: options.lineEnding == .crlf ? [0x0D, 0x0A] : [0x0A])
        var records: [[CSVReader.Field]]
        switch reader.records(written) {
        case .failure(let failure):
            return FuzzFailure("\(failure): \(String(decoding: written, as: UTF8.self).debugDescription)")
        case .success(let read): records = read
        }
        let columns = table.schema.columns
        if options.header {
            guard let header = records.first, header.map(\.text) == columns.map(\.name) else {
                return FuzzFailure("the header reads \(records.first ?? []), not \(columns.map(\.name))")
            }
            records.removeFirst()
        }
        guard records.count == table.rows.count else {
            return FuzzFailure("\(records.count) records read, \(table.rows.count) written")
        }
        for (record, row) in zip(records, table.rows) {
            let read = record.map { $0.quoted || $0.text != options.nullText ? $0.text : nil }
            let wanted = zip(row, columns).map { value, column in value.map { expected($0, column, options) } }
            guard read == wanted else {
                return FuzzFailure(
                    "a row reads \(read), not \(wanted) (\(options)): "
                        + String(decoding: written, as: UTF8.self).debugDescription)
            }
        }
        return nil
    }

    private static func expected(_ value: ColumnValue, _ column: ColumnSchema, _ options: CSVSinkOptions) -> String {
        guard case .string(let raw) = value else { return ExpectedText.of(value, format: options.dateTimeFormat) }
        let text = ExpectedText.string(raw, column: column, format: options.dateTimeFormat)
        guard options.formulaGuard, text == raw else { return text }
        let guarded = Array(text.utf8).withUnsafeBufferPointer { CSVRowEncoder.startsFormula($0) }
        return guarded ? "'" + text : text
    }
}

/// The JSON writer (lines and array) on derived rows and options: the output is strict JSON in the
/// layout promised, each row an object with the columns as keys in order and the values typed as
/// ``ColumnValue`` documents (decimals as numbers only when the option is on and the text is a JSON
/// number); U+2028 and U+2029 never appear raw; duplicate column names are refused.
enum JSONWriterCheck {
    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        var input = FuzzInput(bytes)
        let options = JSONSinkOptions(
            layout: input.pick([.lines, .array]), decimalsAsNumbers: input.byte() & 1 == 1,
            dateTimeFormat: input.pick([.instance, .iso8601]))
        let table = DerivedTable(&input, minimumColumns: 0)
        let columns = table.schema.columns
        let duplicates = Set(columns.map(\.name)).count < columns.count
        let encoder = JSONRowEncoder(options: options)
        do {
            try encoder.open(schema: table.schema, context: DerivedTable.context, displayPath: "fuzz.json")
        } catch {
            return duplicates ? nil : FuzzFailure("the JSON writer refused \(columns.map(\.name)): \(error)")
        }
        if duplicates { return FuzzFailure("the JSON writer accepted duplicate columns \(columns.map(\.name))") }
        let written: [UInt8]
        do {
            written = try table.encoded(by: encoder)
        } catch {
            return FuzzFailure("the JSON writer failed: \(error)")
        }
        let shown = String(decoding: written, as: UTF8.self).debugDescription
        for index in written.indices.dropLast(2)
        where written[index] == 0xE2 && written[index + 1] == 0x80 && (written[index + 2] & 0xFE) == 0xA8 {
            return FuzzFailure("U+2028 or U+2029 written raw: \(shown)")
        }
        let objects: [JSONReader.Value]
        do {
            objects = try read(written, layout: options.layout)
        } catch {
            return FuzzFailure("\(error): \(shown)")
        }
        guard objects.count == table.rows.count else {
            return FuzzFailure("\(objects.count) objects read, \(table.rows.count) written: \(shown)")
        }
        for (object, row) in zip(objects, table.rows) {
            let wanted = JSONReader.Value.object(
                zip(columns, row).map { column, value in
                    JSONReader.Member(key: column.name, value: expected(value, column, options))
                })
            guard object == wanted else {
                return FuzzFailure("an object reads \(object), not \(wanted): \(shown)")
            }
        }
        return nil
    }

    /// The objects of the output, checking the layout: JSON Lines is one object and `\n` per row;
    /// an array is `[`, the objects each after `\n` and separated by `,`, then `\n]\n`.
    private static func read(_ bytes: [UInt8], layout: JSONSinkOptions.Layout) throws(FuzzFailure)
        -> [JSONReader.Value]
    {
        switch layout {
        case .lines:
            guard bytes.isEmpty || bytes.last == 0x0A else { throw FuzzFailure("the last line has no \\n") }
            var objects: [JSONReader.Value] = []
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
                var reader = JSONReader(Array(line))
                objects.append(try reader.value())
                guard reader.isAtEnd, line.first == 0x7B, line.last == 0x7D else {
                    throw FuzzFailure("a line is not exactly one object")
                }
            }
            return objects
        case .array:
            guard bytes.starts(with: [0x5B]), bytes.suffix(3).elementsEqual([0x0A, 0x5D, 0x0A]) else {
                throw FuzzFailure("the array does not start with [ and end with \\n]\\n")
            }
            var reader = JSONReader(bytes)
            let value = try reader.value()
            guard reader.isAtEnd, case .array(let objects) = value else { throw FuzzFailure("not one array") }
            return objects
        }
    }

    private static func expected(_ value: ColumnValue?, _ column: ColumnSchema, _ options: JSONSinkOptions)
        -> JSONReader.Value
    {
        switch value {
        case nil: return .null
        case .string(let text):
            return .string(ExpectedText.string(text, column: column, format: options.dateTimeFormat))
        case .decimal(let text):
            return options.decimalsAsNumbers && JSONReader.isNumber(text) ? .number(text) : .string(text)
        case .int(let number), .duration(let number): return .number(String(number))
        case .bool(let flag): return .bool(flag)
        case .some(let other): return .string(ExpectedText.of(other, format: options.dateTimeFormat))
        }
    }
}

/// The directory the writer checks' parts are created in (and removed from at once): one per process,
/// removed at exit.
enum ScratchDirectory {
    static let path: String = {
        var template = Array((NSTemporaryDirectory() + "/nowetl-fuzz-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) } != nil
        }
        let path =
            created
            ? String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : NSTemporaryDirectory()
        if created {
            atexit { _ = rmdir(ScratchDirectory.path) }
        }
        return path
    }()
}
