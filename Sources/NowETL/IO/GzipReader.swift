import CZlib

/// A gzip decompressor (all members of a multi-member file), for reading files back in tests and tools;
/// the one owner of its zlib `z_stream`.
final class GzipReader {
    private let stream: UnsafeMutablePointer<z_stream>

    /// Creates a decompressor.
    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = nowetl_inflate_init2(stream, 15 + 16)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw NowETLError(.compression, path: "", "cannot start gunzip: zlib \(status)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decompresses a whole gzip file.
    ///
    /// - Throws: ``NowETLError`` with ``NowETLError/Code/compression`` for corrupt or truncated data.
    static func decompress(_ data: [UInt8], path: String = "") throws -> [UInt8] {
        try GzipReader().decompress(data, path: path)
    }

    private func decompress(_ data: [UInt8], path: String) throws -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = data
        try input.withUnsafeMutableBufferPointer { inBuffer in
            stream.pointee.next_in = inBuffer.baseAddress
            stream.pointee.avail_in = uInt(inBuffer.count)
            while true {
                var outputFull = false
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.pointee.avail_out))])
                    outputFull = stream.pointee.avail_out == 0
                    return status
                }
                switch status {
                case Z_STREAM_END:
                    guard stream.pointee.avail_in > 0 else { return }
                    inflateReset(stream)  // another member follows
                case Z_OK where outputFull || stream.pointee.avail_in > 0:
                    continue
                case Z_OK, Z_BUF_ERROR:
                    throw NowETLError(.compression, path: path, "truncated gzip data in \(path)")
                default:
                    throw NowETLError(.compression, path: path, "corrupt gzip data in \(path): zlib \(status)")
                }
            }
        }
        return output
    }
}
