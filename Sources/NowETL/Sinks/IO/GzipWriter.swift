import CZlib

/// A streaming gzip compressor in front of another ``ByteOutput``; the one owner of its zlib `z_stream`.
///
/// zlib's `deflateInit2` with window bits 15 + 16 writes a gzip (RFC 1952) member with a fixed header
/// (no name, modification time 0), so equal input gives equal bytes. Input is compressed as it arrives;
/// compressed bytes collect in a fixed 64 KiB buffer that is passed on whenever it fills, so memory does
/// not depend on the amount of data. ``finish()`` ends the member; `deinit` releases zlib's state.
final class GzipWriter: ByteOutput {
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private let downstream: ByteOutput
    private let displayPath: String
    private var finished = false
    /// Uncompressed bytes taken so far.
    private(set) var bytesIn = 0
    /// Compressed bytes produced so far, passed on or still in the output buffer (zlib itself may
    /// hold some more until it completes a block).
    var bytesOut: Int { Int(stream.pointee.total_out) }

    /// Creates a compressor at `level` (0–9) writing to `downstream`.
    init(level: Int, downstream: ByteOutput, displayPath: String) throws {
        guard (0...9).contains(level) else {
            throw SinkError(
                .invalidSchema, path: displayPath, "gzip level \(level) for \(displayPath) is not in 0…9")
        }
        self.downstream = downstream
        self.displayPath = displayPath
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = .allocate(capacity: capacity)
        let status = nowetl_deflate_init2(stream, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            buffer.deallocate()
            throw SinkError(.compression, path: displayPath, "cannot start gzip for \(displayPath): zlib \(status)")
        }
        stream.pointee.next_out = buffer
        stream.pointee.avail_out = uInt(capacity)
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Compresses bytes, passing full output buffers on.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else {
            throw SinkError(.misuse, path: displayPath, "write to \(displayPath) after its gzip stream ended")
        }
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        bytesIn += bytes.count
        // zlib's avail_in is 32-bit; feed very large buffers in slices.
        var offset = 0
        while offset < bytes.count {
            let slice = min(bytes.count - offset, 1 << 30)
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: base.advanced(by: offset).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = uInt(slice)
            while stream.pointee.avail_in > 0 {
                try step(Z_NO_FLUSH)
            }
            offset += slice
        }
        stream.pointee.next_in = nil
    }

    /// Ends the gzip member (trailer with CRC-32 and length) and passes the rest on.
    func finish() throws {
        guard !finished else { return }
        stream.pointee.avail_in = 0
        while try step(Z_FINISH) != Z_STREAM_END {}
        try drain()
        finished = true
    }

    /// Runs deflate once, passing the output buffer on when it is full.
    @discardableResult
    private func step(_ flush: Int32) throws -> Int32 {
        let status = deflate(stream, flush)
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw SinkError(.compression, path: displayPath, "gzip failed for \(displayPath): zlib \(status)")
        }
        if stream.pointee.avail_out == 0 { try drain() }
        return status
    }

    /// Passes what the output buffer holds on and empties it.
    private func drain() throws {
        let count = capacity - Int(stream.pointee.avail_out)
        if count > 0 {
            try downstream.write(UnsafeRawBufferPointer(start: buffer, count: count))
        }
        stream.pointee.next_out = buffer
        stream.pointee.avail_out = uInt(capacity)
    }
}
