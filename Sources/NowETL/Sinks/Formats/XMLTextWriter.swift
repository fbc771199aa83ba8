import CLibXML2

/// libxml2's `xmlTextWriter` writing into a ``ByteOutput`` through an output callback; the one owner of
/// the writer (and, through it, of its `xmlOutputBuffer`), freed in `deinit`.
///
/// Text and attribute values go through libxml2's escaping (`&lt;`, `&amp;`, `&gt;`, `&quot;`, and
/// `&#13;` for carriage returns, so they survive a parser's line-end normalisation). Callers must pass
/// only characters XML 1.0 allows (see ``XMLSink``).
final class XMLTextWriter {
    /// What the C callback reaches: the output and the first error it threw.
    private final class Target {
        let output: any ByteOutput
        var error: (any Error)?

        init(output: any ByteOutput) {
            self.output = output
        }
    }

    private var writer: xmlTextWriterPtr?
    private let target: Target
    private let displayPath: String

    /// Creates a writer that writes to `output`, one element per line.
    init(output: any ByteOutput, displayPath: String) throws {
        self.displayPath = displayPath
        target = Target(output: output)
        let context = Unmanaged.passUnretained(target).toOpaque()
        guard let buffer = xmlOutputBufferCreateIO(xmlWriteToTarget, xmlCloseTarget, context, nil) else {
            throw NowETLError(.xml, path: displayPath, "libxml2 could not create an output buffer for \(displayPath)")
        }
        guard let writer = xmlNewTextWriter(buffer) else {
            xmlOutputBufferClose(buffer)
            throw NowETLError(.xml, path: displayPath, "libxml2 could not create a text writer for \(displayPath)")
        }
        self.writer = writer
        // Indentation with an empty indent string: a line break before each element, like an instance's unload.
        xmlTextWriterSetIndent(writer, 1)
        xmlTextWriterSetIndentString(writer, "")
    }

    deinit {
        if let writer { xmlFreeTextWriter(writer) }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`.
    func startDocument() throws {
        try check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil), "start the document")
    }

    /// Opens an element; `name` must be a valid XML name.
    func startElement(_ name: UnsafePointer<UInt8>) throws {
        try check(xmlTextWriterStartElement(writer, name), "start an element")
    }

    /// Adds an attribute to the element just opened.
    func attribute(_ name: UnsafePointer<UInt8>, _ value: UnsafePointer<UInt8>) throws {
        try check(xmlTextWriterWriteAttribute(writer, name, value), "write an attribute")
    }

    /// Writes escaped text content.
    func text(_ value: UnsafePointer<UInt8>) throws {
        try check(xmlTextWriterWriteString(writer, value), "write text")
    }

    /// Writes `bytes` as they are: text content the caller escaped exactly as ``text(_:)`` would
    /// (libxml2's `xmlEncodeSpecialChars`), so the document is the same byte for byte. Like
    /// ``text(_:)``, it closes a start tag just opened and keeps the element's end tag on its line.
    func raw(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard var start = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            // libxml2 takes an `int` length.
            let chunk = min(remaining, Int(Int32.max))
            try check(xmlTextWriterWriteRawLen(writer, start, Int32(chunk)), "write text")
            start += chunk
            remaining -= chunk
        }
    }

    /// Closes the innermost element (`<a/>` when it is empty).
    func endElement() throws {
        try check(xmlTextWriterEndElement(writer), "end an element")
    }

    /// Closes all open elements and flushes.
    func endDocument() throws {
        try check(xmlTextWriterEndDocument(writer), "end the document")
        try flush()
    }

    /// Passes what libxml2 buffered to the output.
    func flush() throws {
        try check(xmlTextWriterFlush(writer), "flush")
    }

    /// Frees the writer (flushing it); errors from the output surface here.
    func close() throws {
        if let writer {
            self.writer = nil
            xmlFreeTextWriter(writer)
        }
        if let error = target.error { throw error }
    }

    private func check(_ status: Int32, _ action: String) throws {
        if let error = target.error { throw error }
        guard status >= 0, writer != nil else {
            throw NowETLError(.xml, path: displayPath, "libxml2 could not \(action) in \(displayPath)")
        }
    }

    /// Passes a libxml2 output chunk on; records the first error and fails the write.
    fileprivate static func write(context: UnsafeMutableRawPointer?, bytes: UnsafePointer<CChar>?, count: Int32)
        -> Int32
    {
        guard let context else { return -1 }
        let target = Unmanaged<Target>.fromOpaque(context).takeUnretainedValue()
        guard target.error == nil else { return -1 }
        guard count > 0, let bytes else { return 0 }
        do {
            try target.output.write(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
            return count
        } catch {
            target.error = error
            return -1
        }
    }
}

private func xmlWriteToTarget(_ context: UnsafeMutableRawPointer?, _ bytes: UnsafePointer<CChar>?, _ count: Int32)
    -> Int32
{
    XMLTextWriter.write(context: context, bytes: bytes, count: count)
}

private func xmlCloseTarget(_ context: UnsafeMutableRawPointer?) -> Int32 {
    0
}
