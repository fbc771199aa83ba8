import CLibXML2

/// Reads the records of an unload XML document one at a time through libxml2's streaming reader
/// (`xmlTextReader`), so a file of any size is read in bounded memory: only the record at hand is
/// held.
///
/// The document must be `<unload …>` holding record elements named after their table, each with
/// `action="INSERT_OR_UPDATE"` or `action="DELETE"` and one child element per field (ref §8.5).
/// Field attributes are ignored; a field's text (CDATA included, `&#13;` as a carriage return) is
/// its value. Anything else is an error with the line: a malformed document (libxml2's message), a
/// DTD or entity reference (not part of the format, and refused so that no entity expands), another
/// root, another action, text between records, or an element inside a field.
///
/// The reader owns its `xmlTextReader` handle (and, for a document in memory, the copy of the bytes
/// it reads) and frees it in `deinit`. It is not thread-safe: one importer uses it at a time.
final class UnloadXMLReader {
    private let handle: OpaquePointer
    private let errors: ParseErrors
    private let buffer: UnsafeMutableBufferPointer<CChar>?
    /// What the document is called in messages.
    let document: String
    private var sawRoot = false
    private var finished = false

    private static let actionAttribute: [UInt8] = Array("action".utf8) + [0]

    /// libxml2's options: no network access (an external DTD or entity is never fetched), and line
    /// numbers past 65535 kept on the nodes.
    private static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// The first error libxml2 reported, captured by the structured error handler (which also keeps
    /// libxml2 from printing to stderr).
    private final class ParseErrors {
        var first: (line: Int?, message: String)?
    }

    /// Opens the file at `path` (a `.gz` file is decompressed as it is read).
    ///
    /// - Throws: ``UnloadImportError`` when the file cannot be opened.
    init(path: String) throws(UnloadImportError) {
        document = path
        errors = ParseErrors()
        buffer = nil
        guard let handle = xmlReaderForFile(path, nil, Self.options) else {
            throw UnloadImportError(document: path, line: nil, message: "cannot open the file")
        }
        self.handle = handle
        installErrorHandler()
        // libxml2 opens lazily: a missing file shows as an error on the first read, caught there.
    }

    /// Reads the document in `bytes`, called `document` in messages.
    ///
    /// - Throws: ``UnloadImportError`` when the document is larger than libxml2 can read from memory
    ///   (2 GiB) or the reader cannot be created.
    init(bytes: [UInt8], document: String) throws(UnloadImportError) {
        self.document = document
        errors = ParseErrors()
        guard bytes.count < Int(Int32.max) else {
            throw UnloadImportError(document: document, line: nil, message: "the document is larger than 2 GiB")
        }
        let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(bytes.count, 1))
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(copy).copyMemory(from: source)
        }
        guard let handle = xmlReaderForMemory(copy.baseAddress, Int32(bytes.count), document, nil, Self.options)
        else {
            copy.deallocate()
            throw UnloadImportError(document: document, line: nil, message: "cannot read the document")
        }
        self.handle = handle
        buffer = copy
        installErrorHandler()
    }

    deinit {
        xmlFreeTextReader(handle)
        buffer?.deallocate()
    }

    private func installErrorHandler() {
        let context = Unmanaged.passUnretained(errors).toOpaque()
        xmlTextReaderSetStructuredErrorHandler(
            handle,
            { context, error in
                guard let context, let error else { return }
                let errors = Unmanaged<ParseErrors>.fromOpaque(context).takeUnretainedValue()
                // Warnings (a missing encoding declaration, …) do not stop the parse.
                guard errors.first == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
                let text = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
                let line = Int(error.pointee.line)
                errors.first = (line > 0 ? line : nil, text.trimmingTrailingNewlines())
            }, context)
    }

    /// The next record, or `nil` after the last one.
    ///
    /// - Throws: ``UnloadImportError`` with the line when the document is malformed or not an unload
    ///   document; the reader is done after an error.
    func next() throws(UnloadImportError) -> UnloadRecord? {
        guard !finished else { return nil }
        var record: UnloadRecord?
        var field: (name: String, text: [UInt8])?
        while true {
            let status = xmlTextReaderRead(handle)
            if let error = errors.first {
                finished = true
                throw UnloadImportError(document: document, line: error.line ?? currentLine, message: error.message)
            }
            if status < 0 {
                finished = true
                throw UnloadImportError(document: document, line: currentLine, message: "malformed XML")
            }
            if status == 0 {
                finished = true
                guard sawRoot else { throw failure("the document has no <unload> element") }
                return nil
            }
            let depth = xmlTextReaderDepth(handle)
            switch UInt32(bitPattern: xmlTextReaderNodeType(handle)) {
            case XML_READER_TYPE_ELEMENT.rawValue:
                let name = nodeName
                let empty = xmlTextReaderIsEmptyElement(handle) == 1
                switch depth {
                case 0:
                    guard name == "unload" else {
                        throw failure("the root element is <\(name)>, an unload document's is <unload>")
                    }
                    sawRoot = true
                case 1:
                    let started = UnloadRecord(table: name, action: try action(of: name), fields: [], line: currentLine)
                    if empty { return started }
                    record = started
                case 2:
                    if empty {
                        record?.fields.append((name, nil))
                    } else {
                        field = (name, [])
                    }
                default:
                    let outer = field?.name ?? "?"
                    throw failure("unexpected element <\(name)> inside the field <\(outer)>")
                }
            case XML_READER_TYPE_TEXT.rawValue, XML_READER_TYPE_CDATA.rawValue,
                XML_READER_TYPE_WHITESPACE.rawValue, XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue:
                if depth == 3, field != nil {
                    appendValue(to: &field)
                } else if !isWhitespace {
                    throw failure("text outside a field (only whitespace may stand between records and fields)")
                }
            case XML_READER_TYPE_END_ELEMENT.rawValue:
                if depth == 2, let done = field {
                    record?.fields.append(
                        (done.name, done.text.isEmpty ? nil : String(decoding: done.text, as: UTF8.self)))
                    field = nil
                } else if depth == 1, let done = record {
                    return done
                }
            case XML_READER_TYPE_DOCUMENT_TYPE.rawValue:
                // A DTD node has no line of its own (the parser's line is ahead of it): name none.
                finished = true
                throw UnloadImportError(
                    document: document, line: nil, message: "a DOCTYPE is not part of an unload document")
            case XML_READER_TYPE_ENTITY_REFERENCE.rawValue, XML_READER_TYPE_ENTITY.rawValue:
                throw failure(
                    "entity references are not part of an unload document (only &lt; &amp; &gt; &quot; &apos; and &#N;)"
                )
            default:
                // Comments, processing instructions, the XML declaration.
                break
            }
        }
    }

    /// The line of the current node (the parser itself may have read ahead of it).
    private var currentLine: Int {
        if let node = xmlTextReaderCurrentNode(handle) {
            let line = xmlGetLineNo(node)
            if line > 0 { return Int(line) }
        }
        return Int(xmlTextReaderGetParserLineNumber(handle))
    }

    private func failure(_ message: String) -> UnloadImportError {
        finished = true
        return UnloadImportError(document: document, line: currentLine, message: message)
    }

    /// The qualified name of the current node.
    private var nodeName: String {
        xmlTextReaderConstName(handle).map { String(cString: $0) } ?? ""
    }

    /// The current node's text appended to `field`'s bytes.
    private func appendValue(to field: inout (name: String, text: [UInt8])?) {
        guard let value = xmlTextReaderConstValue(handle) else { return }
        var count = 0
        while value[count] != 0 { count += 1 }
        field?.text.append(contentsOf: UnsafeBufferPointer(start: value, count: count))
    }

    /// Whether the current text node is only XML whitespace.
    private var isWhitespace: Bool {
        guard let value = xmlTextReaderConstValue(handle) else { return true }
        var index = 0
        while value[index] != 0 {
            switch value[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return false
            }
        }
        return true
    }

    /// The record's `action`, read on its start tag.
    private func action(of table: String) throws(UnloadImportError) -> UnloadRecord.Action {
        guard xmlTextReaderMoveToAttribute(handle, Self.actionAttribute) == 1 else {
            throw failure("the record <\(table)> has no action attribute (INSERT_OR_UPDATE or DELETE)")
        }
        let text = xmlTextReaderConstValue(handle).map { String(cString: $0) } ?? ""
        xmlTextReaderMoveToElement(handle)
        switch text {
        case "INSERT_OR_UPDATE": return .insertOrUpdate
        case "DELETE": return .delete
        default:
            throw failure(
                "the record <\(table)> has action \"\(text)\"; nowsim imports INSERT_OR_UPDATE and DELETE")
        }
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
