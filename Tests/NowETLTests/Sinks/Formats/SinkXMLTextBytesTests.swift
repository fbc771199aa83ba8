import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The XML sink writes text cells from the batch's bytes, escaping them itself; the document must be
/// byte-identical to the one written through a `String` per cell and libxml2's escaping (the sink before
/// it wrote bytes, kept as ``XMLRowEncoder``'s reference), with the same replacement count, and read
/// back with xmllint and Python.
@Suite(.timeLimit(.minutes(5))) struct SinkXMLTextBytesTests {
    /// Every ASCII character alone and after a letter, the bytes around U+FFFE / U+FFFF (`EF BF BC` to
    /// `EF BF BF`, `EF BE BF`), 4-byte UTF-8, texts longer than libxml2's buffers, and the awkward texts.
    static let texts: [String] =
        SinkTestSupport.awkwardTexts
        + (0..<0x80).flatMap { code -> [String] in
            let character = String(Character(Unicode.Scalar(UInt8(code))))
            return [character, "a" + character + "b"]
        }
        + [
            "\u{FFFC}\u{FFFD}\u{FFBF}ï", "end \u{FFFE}", "\u{FFFF}", "ends with EF BF BD \u{FFFD}",
            "quotes \"\" '' &quot; &#13; \r\r\n", "]]>", "<![CDATA[x]]>", "𝄞 music 😀",
            String(repeating: "plain text with no markup ", count: 4_000),
            String(repeating: "a<b>&\"c\"\r", count: 20_000) + "\u{0}",
            String(repeating: "é", count: 70_000) + "\u{FFFE}",
        ]

    static let schema = RowSchema(columns: [
        ColumnSchema(name: "number"), ColumnSchema(name: "text"), ColumnSchema(name: "caller_id", isReference: true),
        ColumnSchema(name: "opened_at", isDateTimeField: true), ColumnSchema(name: "cost", type: .decimal),
    ])

    /// Writes one row per text (the text in `text`, as the display value of `caller_id`, as a decimal
    /// through libxml2, and a date-time field's text), text cells as Strings or as the batch's bytes.
    static func export(
        into directory: String, name: String, options: XMLSinkOptions, textAsBytes: Bool, throughLibXML2: Bool
    ) async throws -> (bytes: Data, replaced: Int) {
        let encoder = XMLRowEncoder(options: options, escapesThroughLibXML2: throughLibXML2)
        let sink = XMLSink(options: try SinkTestSupport.options(directory, name), encoder: encoder)
        try await sink.open(schema: schema, context: SinkTestSupport.context())
        var batch = RowBatch(schema: schema)
        for (index, text) in texts.enumerated() {
            let row = batch.appendRow()
            let cells: [String?] = [
                "INC\(index)", text, index % 2 == 0 ? "\(index)" : "",
                index % 3 == 0 ? "2024-03-01 02:00:\(String(format: "%02d", index % 60))" : text,
            ]
            for (column, cell) in cells.enumerated() {
                guard let cell else { continue }
                if textAsBytes {
                    // Empty text never reaches a batch as bytes (the decoder makes it null).
                    if !cell.isEmpty {
                        Array(cell.utf8).withUnsafeBufferPointer { batch.setText($0, row: row, column: column) }
                    }
                } else {
                    batch[row, column] = .string(cell)
                }
            }
            batch[row, 4] = .decimal(text)
            batch.setDisplayValue(index % 4 == 0 ? nil : text, row: row, column: 2)
        }
        try await sink.write(batch)
        let files = try await SinkTestSupport.commit([sink])
        return (try SinkTestSupport.read(directory + "/" + files[0].path), sink.replacedCharacterCount)
    }

    @Test(
        arguments: [
            XMLSinkOptions(format: .records), XMLSinkOptions(format: .unload),
            XMLSinkOptions(format: .records, dateTimeFormat: .iso8601),
        ])
    func textFromBytesIsByteIdenticalToLibXML2(options: XMLSinkOptions) async throws {
        try await withScratchDirectory { (directory: String) in
            let reference = try await Self.export(
                into: directory, name: "reference.xml", options: options, textAsBytes: false, throughLibXML2: true)
            let fromStrings = try await Self.export(
                into: directory, name: "strings.xml", options: options, textAsBytes: false, throughLibXML2: false)
            let fromBytes = try await Self.export(
                into: directory, name: "bytes.xml", options: options, textAsBytes: true, throughLibXML2: false)
            // The reference with text cells as bytes: the batch makes Strings of them, as before.
            let referenceFromBytes = try await Self.export(
                into: directory, name: "reference-bytes.xml", options: options, textAsBytes: true,
                throughLibXML2: true)
            // Compared as Bools with the first difference shown: a failed `==` on megabytes would be diffed.
            for (label, output) in [
                ("String cells", fromStrings.bytes), ("byte cells", fromBytes.bytes),
                ("the reference from byte cells", referenceFromBytes.bytes),
            ] {
                let identical = output == reference.bytes
                #expect(
                    identical,
                    "\(label) differ from libxml2's escaping: \(Self.firstDifference(output, reference.bytes))")
            }
            #expect(reference.replaced > 0)
            #expect(fromStrings.replaced == reference.replaced)
            #expect(fromBytes.replaced == reference.replaced)

            let lint = try await SinkTestSupport.run("xmllint", ["--noout", directory + "/bytes.xml"])
            #expect(lint.status == 0, "xmllint: \(lint.stderr)")
            let document = try await SinkTestSupport.pythonXML(fromBytes.bytes)
            #expect(document.records.count == Self.texts.count)
            for (index, record) in document.records.enumerated() {
                let text = Self.texts[index]
                #expect(record.fields.map(\.tag) == Self.schema.columns.map(\.name))
                #expect(record.fields[1].text == SinkXMLTests.xmlText(text), "record \(index)")
                #expect(record.fields[4].text == SinkXMLTests.xmlText(text), "record \(index)")
            }
        }
    }

    /// Where two outputs first differ, with a few bytes of each from there.
    static func firstDifference(_ lhs: Data, _ rhs: Data) -> String {
        let left = [UInt8](lhs)
        let right = [UInt8](rhs)
        let common = min(left.count, right.count)
        let offset = (0..<common).first { left[$0] != right[$0] } ?? common
        func excerpt(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[offset..<min(bytes.count, offset + 40)], as: UTF8.self).debugDescription
        }
        return "at byte \(offset) of \(left.count) / \(right.count): \(excerpt(left)) / \(excerpt(right))"
    }

    @Test func scanFindsWhatNeedsEscapingOrReplacing() {
        func scan(_ text: String) -> XMLRowEncoder.TextScan {
            Array(text.utf8).withUnsafeBufferPointer { XMLRowEncoder.scan($0) }
        }
        #expect(scan("") == .plain)
        #expect(scan("plain 日本語 \t\n 😀 \u{FFFD}\u{FFFC}\u{FFBF}") == .plain)
        for text in ["<", ">", "&", "\"", "\r", "a\r\nb"] {
            #expect(scan(text) == .needsEscaping, "\(text.debugDescription)")
        }
        for text in ["\u{0}", "\u{1F}", "<\u{8}", "\u{FFFE}", "x\u{FFFF}"] {
            #expect(scan(text) == .forbidden, "\(text.debugDescription)")
        }
        #expect(scan("'") == .plain, "libxml2 leaves apostrophes in text as they are")
        var buffer = ByteBuffer(capacity: 64)
        Array("a<b>&\"'\r\n".utf8).withUnsafeBufferPointer { XMLRowEncoder.appendEscaped($0, to: &buffer) }
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "a&lt;b&gt;&amp;&quot;'&#13;\n")
    }
}
