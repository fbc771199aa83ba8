import CLibXML2
import CYAML
import CZlib
import Testing

/// The C libraries behind NowETL's walls link and work: zlib through the shim's macro wrappers,
/// libyaml's parser and libxml2's text writer.
@Suite(.timeLimit(.minutes(5))) struct CLibrariesTests {
    @Test func zlibGzipRoundTripsThroughTheShim() throws {
        let input = Array(String(repeating: "sys_id,number,short_description\n", count: 1000).utf8)
        var stream = z_stream()
        // 15 + 16: a gzip wrapper rather than zlib's own.
        #expect(nowetl_deflate_init2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK)
        var compressed = [UInt8](repeating: 0, count: input.count + 1024)
        var source = input
        let written: Int = source.withUnsafeMutableBufferPointer { inBuffer in
            compressed.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = deflate(&stream, Z_FINISH)
                #expect(status == Z_STREAM_END)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        deflateEnd(&stream)
        #expect(written < input.count / 10)
        #expect(compressed[0] == 0x1f && compressed[1] == 0x8b)

        var inflater = z_stream()
        #expect(nowetl_inflate_init2(&inflater, 15 + 16) == Z_OK)
        var output = [UInt8](repeating: 0, count: input.count)
        let read: Int = compressed.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                inflater.next_in = inBuffer.baseAddress
                inflater.avail_in = uInt(written)
                inflater.next_out = outBuffer.baseAddress
                inflater.avail_out = uInt(outBuffer.count)
                #expect(inflate(&inflater, Z_FINISH) == Z_STREAM_END)
                return outBuffer.count - Int(inflater.avail_out)
            }
        }
        inflateEnd(&inflater)
        #expect(Array(output[0..<read]) == input)
    }

    @Test func libyamlReportsScalarsWithTheirLines() throws {
        let text = Array("version: 1\ntables:\n  - table: incident\n".utf8)
        var parser = yaml_parser_t()
        #expect(yaml_parser_initialize(&parser) == 1)
        defer { yaml_parser_delete(&parser) }
        var scalars: [(String, Int)] = []
        text.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                if event.type == YAML_SCALAR_EVENT {
                    let value = String(
                        decoding: UnsafeBufferPointer(
                            start: event.data.scalar.value, count: Int(event.data.scalar.length)), as: UTF8.self)
                    scalars.append((value, Int(event.start_mark.line) + 1))
                }
                if event.type == YAML_STREAM_END_EVENT { break }
            }
        }
        #expect(scalars.map(\.0) == ["version", "1", "tables", "table", "incident"])
        #expect(scalars.last?.1 == 3)
    }

    @Test func libxml2TextWriterEscapes() throws {
        guard let buffer = xmlBufferCreate() else {
            Issue.record("no buffer")
            return
        }
        defer { xmlBufferFree(buffer) }
        let writer = xmlNewTextWriterMemory(buffer, 0)
        #expect(writer != nil)
        xmlTextWriterStartDocument(writer, nil, "UTF-8", nil)
        xmlTextWriterStartElement(writer, "unload")
        xmlTextWriterWriteElement(writer, "short_description", "<&> \"quoted\"")
        xmlTextWriterEndDocument(writer)
        xmlFreeTextWriter(writer)
        let text = String(cString: xmlBufferContent(buffer))
        #expect(text.contains("<short_description>&lt;&amp;&gt; &quot;quoted&quot;</short_description>"))
    }
}
