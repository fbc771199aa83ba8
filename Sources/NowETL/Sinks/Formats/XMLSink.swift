/// A file sink writing XML through libxml2's `xmlTextWriter`: an instance's plain `?XML` export shape or
/// its unload format (see ``XMLSinkOptions/Format``), optionally gzip-compressed, split and atomic.
///
/// Shape, one element per line as in an instance's unload files:
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <unload unload_date="2024-03-01 02:00:00">
/// <incident action="INSERT_OR_UPDATE">
/// <caller_id display_value="Fred Luddy">5137153cc611227c000bbd1bd8cd2005</caller_id>
/// <number>INC0010001</number>
/// <parent display_value=""/>
/// <short_description/>
/// </incident>
/// </unload>
/// ```
/// - Records XML writes every column as an element named after it, in schema order. Unload writes
///   the schema's ``RowSchema/unloadColumns`` instead when it has them — the table's field names
///   with stored values, `sys_id` included, whatever the columns are, as a planner with an unload
///   output plans them (``TablePlanner``) — and the columns otherwise. A null or empty value is a
///   self-closing element. Reference columns (``ColumnSchema/isReference``) carry a `display_value`
///   attribute (empty when the row has none). `unload_date` is the run's start (UTC).
/// - Values use the instance's raw forms (`records` with `datetime_format: iso8601` writes date-time
///   fields as `yyyy-MM-ddTHH:mm:ssZ`): `yyyy-MM-dd HH:mm:ss` (UTC), `yyyy-MM-dd`, `true`/`false`,
///   integers and decimals as text, and durations as the instance stores them, the date-time that
///   many seconds after the epoch (`1970-01-02 02:03:04` for 93 784 s) — so an unload file imports.
/// - Text is escaped as libxml2 escapes it (`<`, `&`, `>` — so `]]>` is harmless — and `"`; CR as
///   `&#13;` so it survives): text cells by this sink, straight from the batch's bytes with no
///   `String` (``XMLRowEncoder/appendEscaped(_:to:)``), attributes and other text by libxml2.
///   Characters XML 1.0 forbids — C0 controls other than tab, LF and CR, and U+FFFE / U+FFFF —
///   **are replaced by U+FFFD** (�), so the document always parses; the count is in
///   ``replacedCharacterCount``. (Swift strings and the batch's bytes, valid UTF-8, cannot hold lone
///   surrogates.)
/// - Column and table names must be XML names of the form `[A-Za-z_][A-Za-z0-9_.-]*`; others are
///   rejected at ``FileSink/open(schema:context:)`` (or, for a row's own table in unload, at ``FileSink/write(_:)``).
public final class XMLSink: FileSink {
    private let encoder: XMLRowEncoder

    /// Creates a sink.
    public convenience init(options: FileSinkOptions, xml: XMLSinkOptions = XMLSinkOptions()) {
        self.init(options: options, encoder: XMLRowEncoder(options: xml))
    }

    /// Creates a sink writing through `encoder` (tests give one that escapes through libxml2).
    init(options: FileSinkOptions, encoder: XMLRowEncoder) {
        self.encoder = encoder
        super.init(options: options, encoder: encoder)
    }

    /// How many characters XML cannot carry were replaced by U+FFFD since the last ``FileSink/open(schema:context:)``.
    public var replacedCharacterCount: Int { encoder.replacedCharacterCount }
}

/// The XML format on top of ``XMLTextWriter``.
final class XMLRowEncoder: RowEncoder {
    let options: XMLSinkOptions
    var format: String { options.format == .unload ? "xml-unload" : "xml-records" }
    private(set) var replacedCharacterCount = 0
    private var writer: XMLTextWriter?
    private var displayPath = ""
    /// NUL-terminated element names per column.
    private var columnNames: [[UInt8]] = []
    private var isReference: [Bool] = []
    /// Per cell, whether its text is an instance date-time to write as ISO 8601 (`records` only).
    private var isoText: [Bool] = []
    /// How `dateTime` values are written: the option in `records`, the instance's form in `unload`.
    private var dateTimeFormat = DateTimeFormat.instance
    /// The cells written: the columns, or the unload columns after them.
    private var cells: Range<Int> = 0..<0
    private var tableName: [UInt8] = []
    private var classColumn: Int?
    private var unloadDate: [UInt8] = []
    /// The last per-row table name seen and its NUL-terminated bytes (rows of one class repeat it).
    private var lastRowTable = ""
    private var lastRowTableName: [UInt8] = []
    private var scratch = ByteBuffer(capacity: 64)
    /// Whether text cells go through a `String` and libxml2's escaping, as before the sink wrote them
    /// from the batch's bytes: the reference the tests compare the byte path with.
    private let escapesThroughLibXML2: Bool

    private static let unloadRoot = nulTerminated("unload")
    private static let recordsRoot = nulTerminated("xml")
    private static let unloadDateAttribute = nulTerminated("unload_date")
    private static let actionAttribute = nulTerminated("action")
    private static let insertOrUpdate = nulTerminated("INSERT_OR_UPDATE")
    private static let displayValueAttribute = nulTerminated("display_value")
    private static let emptyText: [UInt8] = [0]

    /// Creates an encoder; `escapesThroughLibXML2` is for tests (the reference output).
    init(options: XMLSinkOptions, escapesThroughLibXML2: Bool = false) {
        self.options = options
        self.escapesThroughLibXML2 = escapesThroughLibXML2
    }

    func open(schema: RowSchema, context: SinkContext, displayPath: String) throws {
        self.displayPath = displayPath
        replacedCharacterCount = 0
        let unload = options.format == .unload && !schema.unloadColumns.isEmpty
        let columns = unload ? schema.unloadColumns : schema.columns
        cells = unload ? schema.columns.count..<schema.count : 0..<schema.columns.count
        for column in columns where !Self.isXMLName(column.name) {
            throw NowETLError(
                .invalidSchema, path: displayPath,
                "column name \"\(column.name)\" cannot be an XML element name in \(displayPath) "
                    + "(letters, digits, _ . - and not starting with a digit, '.' or '-')")
        }
        guard Self.isXMLName(context.table) else {
            throw NowETLError(
                .invalidSchema, path: displayPath,
                "table name \"\(context.table)\" cannot be an XML element name in \(displayPath)")
        }
        columnNames = columns.map { Self.nulTerminated($0.name) }
        isReference = columns.map(\.isReference)
        // An unload is for an instance's import, which reads its own form only.
        dateTimeFormat = options.format == .records ? options.dateTimeFormat : .instance
        isoText = columns.map { dateTimeFormat == .iso8601 && $0.isDateTimeField }
        tableName = Self.nulTerminated(context.table)
        classColumn =
            options.format == .unload
            ? columns.firstIndex { $0.name == "sys_class_name" }.map { $0 + cells.lowerBound } : nil
        var date = ByteBuffer(capacity: 20)
        date.appendDateTime(secondsSinceEpoch: context.runStartedSeconds)
        date.append(0)
        unloadDate = date.bytes
        lastRowTable = context.table
        lastRowTableName = tableName
    }

    func beginPart(_ part: PartOutput) throws {
        let writer = try XMLTextWriter(output: part, displayPath: part.relativePath)
        self.writer = writer
        try writer.startDocument()
        switch options.format {
        case .records:
            try writer.startElement(Self.recordsRoot)
        case .unload:
            try writer.startElement(Self.unloadRoot)
            try writer.attribute(Self.unloadDateAttribute, unloadDate)
        }
    }

    func encode(_ batch: RowBatch, row: Int, into part: PartOutput) throws {
        guard let writer else { return }
        switch options.format {
        case .records:
            try writer.startElement(tableName)
        case .unload:
            try writer.startElement(try recordElementName(batch, row: row))
            try writer.attribute(Self.actionAttribute, Self.insertOrUpdate)
        }
        for column in cells {
            let index = column - cells.lowerBound
            try writer.startElement(columnNames[index])
            if isReference[index] {
                if let display = batch.displayValue(row: row, column: column) {
                    try withXMLText(display) { try writer.attribute(Self.displayValueAttribute, $0) }
                } else {
                    try writer.attribute(Self.displayValueAttribute, Self.emptyText)
                }
            }
            if !isoText[index], !escapesThroughLibXML2,
                let _: Void = try batch.withStringBytes(row: row, column: column, { try writeText($0, writer) })
            {
                // text, written from the batch's bytes
            } else if let value = batch[row, column] {
                if isoText[index], case .string(let text) = value,
                    let iso = DateTimeFormat.iso8601Text(ofInstanceDateTime: text)
                {
                    try writeASCII(iso, writer)
                } else {
                    try writeValue(value, writer)
                }
            }
            try writer.endElement()
        }
        try writer.endElement()
    }

    func flushForSizeCheck(_ part: PartOutput) throws {
        try writer?.flush()
    }

    func endPart(_ part: PartOutput) throws {
        guard let writer else { return }
        self.writer = nil
        try writer.endDocument()
        try writer.close()
    }

    func abandonPart() {
        writer = nil
    }

    /// Writes a text cell given as its UTF-8 bytes: as they are when nothing needs escaping, escaped
    /// into the scratch buffer otherwise, and through a `String` when a character XML forbids must be
    /// replaced (rare, and counted). Empty text writes nothing (a self-closing element).
    private func writeText(_ bytes: UnsafeBufferPointer<UInt8>, _ writer: XMLTextWriter) throws {
        switch Self.scan(bytes) {
        case .plain:
            try writer.raw(bytes)
        case .needsEscaping:
            scratch.removeAll()
            Self.appendEscaped(bytes, to: &scratch)
            try scratch.bytes.withUnsafeBufferPointer { try writer.raw($0) }
        case .forbidden:
            let text = String(decoding: bytes, as: UTF8.self)
            let (replacedText, replaced) = Self.xmlSafe(text) ?? (text, 0)
            replacedCharacterCount += replaced
            var clean = replacedText
            scratch.removeAll()
            clean.withUTF8 { Self.appendEscaped($0, to: &scratch) }
            try scratch.bytes.withUnsafeBufferPointer { try writer.raw($0) }
        }
    }

    /// What a text's bytes need before they can be written: nothing, escaping, or the replacement of
    /// characters XML 1.0 forbids (which ``xmlSafe(_:)`` finds the same way).
    enum TextScan: Equatable {
        case plain, needsEscaping, forbidden
    }

    /// Scans UTF-8 text for what ``appendEscaped(_:to:)`` escapes and for characters XML 1.0 forbids:
    /// C0 controls other than tab, LF and CR, and U+FFFE / U+FFFF (`EF BF BE`, `EF BF BF`).
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> TextScan {
        byteClasses.withUnsafeBufferPointer { classes in
            var needsEscaping = false
            var index = 0
            let count = bytes.count
            while index < count {
                switch classes[Int(bytes[index])] {
                case 0: break
                case ByteClass.escaped: needsEscaping = true
                case ByteClass.forbidden: return .forbidden
                default:  // 0xEF: U+FFFE or U+FFFF when followed by BF BE or BF BF
                    if index + 2 < count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE { return .forbidden }
                }
                index += 1
            }
            return needsEscaping ? .needsEscaping : .plain
        }
    }

    /// The classes of ``byteClasses``; 0 is a byte written as it is.
    private enum ByteClass {
        static let escaped: UInt8 = 1
        static let forbidden: UInt8 = 2
        static let maybeNonCharacter: UInt8 = 3
    }

    /// Per byte value, its ``ByteClass``: one table look-up per byte measured faster than comparisons.
    private static let byteClasses: [UInt8] = (0..<256).map { byte -> UInt8 in
        switch byte {
        case 0x3C, 0x3E, 0x26, 0x22, 0x0D: ByteClass.escaped
        case 0x09, 0x0A: 0
        case 0..<0x20: ByteClass.forbidden
        case 0xEF: ByteClass.maybeNonCharacter
        default: 0
        }
    }

    /// Appends `bytes` escaped as libxml2's `xmlEncodeSpecialChars` escapes text content (what
    /// `xmlTextWriterWriteString` writes): `<` `&lt;`, `>` `&gt;`, `&` `&amp;`, `"` `&quot;`, CR
    /// `&#13;`, every other byte as it is. Tests hold the two to the same bytes.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
        var runStart = 0
        for index in 0..<bytes.count {
            let entity: StaticString
            switch bytes[index] {
            case 0x3C: entity = "&lt;"
            case 0x3E: entity = "&gt;"
            case 0x26: entity = "&amp;"
            case 0x22: entity = "&quot;"
            case 0x0D: entity = "&#13;"
            default: continue
            }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            buffer.append(UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount))
            runStart = index + 1
        }
        buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    /// Writes text that needs no escaping (an ISO 8601 date-time).
    private func writeASCII(_ text: String, _ writer: XMLTextWriter) throws {
        scratch.removeAll()
        scratch.append(utf8: text)
        scratch.append(0)
        try scratch.bytes.withUnsafeBufferPointer { try writer.text($0.baseAddress!) }
    }

    private func writeValue(_ value: ColumnValue, _ writer: XMLTextWriter) throws {
        scratch.removeAll()
        switch value {
        case .string(let text), .decimal(let text):
            if !text.isEmpty {
                try withXMLText(text) { try writer.text($0) }
            }
            return
        case .int(let number):
            scratch.appendInteger(number)
        case .bool(let flag):
            scratch.append(utf8: flag ? "true" : "false")
        case .dateTime(let seconds):
            scratch.appendDateTime(secondsSinceEpoch: seconds, format: dateTimeFormat)
        case .duration(let seconds):
            scratch.appendDateTime(secondsSinceEpoch: seconds)
        case .date(let days):
            scratch.appendDate(daysSinceEpoch: days)
        }
        scratch.append(0)
        try scratch.bytes.withUnsafeBufferPointer { try writer.text($0.baseAddress!) }
    }

    /// The element name of a record in unload: its own table when known, else the exported table.
    private func recordElementName(_ batch: RowBatch, row: Int) throws -> [UInt8] {
        var table = batch.recordTable(row: row)
        if table == nil, let classColumn, case .string(let name)? = batch[row, classColumn], !name.isEmpty {
            table = name
        }
        guard let table, table != lastRowTable else {
            return table == nil ? tableName : lastRowTableName
        }
        guard Self.isXMLName(table) else {
            throw NowETLError(
                .invalidSchema, path: displayPath,
                "record table \"\(table)\" (sys_class_name) cannot be an XML element name in \(displayPath)")
        }
        lastRowTable = table
        lastRowTableName = Self.nulTerminated(table)
        return lastRowTableName
    }

    /// Calls `body` with the NUL-terminated UTF-8 of `text`, with characters XML 1.0 forbids replaced.
    private func withXMLText(_ text: String, _ body: (UnsafePointer<UInt8>) throws -> Void) throws {
        if let (clean, replaced) = Self.xmlSafe(text) {
            replacedCharacterCount += replaced
            try clean.withCString { try body(UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self)) }
        } else {
            try text.withCString { try body(UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// `nil` when `text` holds only characters XML 1.0 allows; otherwise a copy with each forbidden one
    /// (C0 controls other than tab, LF, CR — NUL included — and U+FFFE, U+FFFF) replaced by U+FFFD, and
    /// their count.
    static func xmlSafe(_ text: String) -> (String, Int)? {
        let isClean: Bool =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                var index = 0
                let count = bytes.count
                while index < count {
                    let byte = bytes[index]
                    if byte < 0x20 {
                        if byte != 0x09 && byte != 0x0A && byte != 0x0D { return false }
                    } else if byte == 0xEF, index + 2 < count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                        return false
                    }
                    index += 1
                }
                return true
            } ?? !text.unicodeScalars.contains(where: isForbidden)
        guard !isClean else { return nil }
        var replaced = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isForbidden(scalar) {
                scalars.append("\u{FFFD}")
                replaced += 1
            } else {
                scalars.append(scalar)
            }
        }
        return (String(scalars), replaced)
    }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x09 && value != 0x0A && value != 0x0D) || value == 0xFFFE || value == 0xFFFF
    }

    /// Whether `name` is an element name this sink writes: `[A-Za-z_][A-Za-z0-9_.-]*`.
    static func isXMLName(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        guard isLetter(first) || first == 0x5F else { return false }
        return name.utf8.allSatisfy {
            isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D
        }
    }

    private static func nulTerminated(_ text: String) -> [UInt8] {
        Array(text.utf8) + [0]
    }
}
