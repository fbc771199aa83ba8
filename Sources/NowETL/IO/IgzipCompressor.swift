import CISAL

/// A raw DEFLATE compressor for one chunk of a gzip stream at a time with Intel ISA-L's igzip; the one
/// owner of its `isal_zstream` and of the level buffer levels 1–3 work in.
///
/// Each chunk starts from a reset stream primed with the 32 KiB before it (`isal_deflate_set_dict`) and
/// ends with ISA-L's sync flush (an empty stored block, as zlib's `Z_SYNC_FLUSH`), so it fits the same
/// ``GzipWriter`` as ``DeflateCompressor`` and the file stays one gzip member. The whole chunk goes to
/// ISA-L in one buffer with room for all its output, so the calls, and therefore the bytes, depend on the
/// chunk and dictionary only; ISA-L chooses its code by the CPU (SSE4.2, AVX2, AVX-512), and was reported
/// to give the same bytes on each, but only zlib's (``Compression/gzip(level:)``) are the same on every
/// build.
///
/// Not thread-safe: one thread at a time uses it (a ``GzipWriter`` hands each chunk, with its
/// compressor, to one worker at a time).
final class IgzipCompressor: ChunkCompressor {
    /// The levels ISA-L has: 0 fastest, 3 smallest.
    static let levels = 0...3

    private let stream: UnsafeMutablePointer<isal_zstream>
    private let levelBuffer: UnsafeMutableRawBufferPointer
    /// The compression level (0–3).
    let level: Int
    let engine = "ISA-L"

    /// Creates a compressor at `level`.
    ///
    /// - Throws: ``NowETLError`` naming `displayPath`: ``NowETLError/Code/invalidSchema`` for a level outside
    ///   0…3.
    init(level: Int, displayPath: String) throws {
        // Checked before the level sizes the buffer ISA-L works in.
        try Compression.igzip(level: level).checkLevel(displayPath: displayPath)
        self.level = level
        // The stream is 80 KiB of mostly scratch arrays: zeroed in place, never copied through Swift.
        stream = .allocate(capacity: 1)
        UnsafeMutableRawPointer(stream).initializeMemory(
            as: UInt8.self, repeating: 0, count: MemoryLayout<isal_zstream>.size)
        isal_deflate_init(stream)
        levelBuffer = .allocate(
            byteCount: max(1, Int(nowetl_isal_level_buffer_size(Int32(level)))), alignment: 64)
    }

    deinit {
        stream.deallocate()
        levelBuffer.deallocate()
    }

    /// Stored blocks at worst (ISA-L falls back to them when a block would grow): 5 bytes per 64 KiB
    /// block, a block header and the sync flush's marker; an eighth more leaves room for level 0, whose
    /// fixed codes may grow incompressible bytes before that.
    func bound(_ count: Int) -> Int {
        count + count / 8 + 5 * (count / 65_535 + 1) + Int(ISAL_DEF_MAX_HDR_SIZE) + 16
    }

    func compress(
        _ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Int {
        guard input.count <= Int(UInt32.max), output.count <= Int(UInt32.max) else { return 0 }
        isal_deflate_reset(stream)
        stream.pointee.level = UInt32(level)
        stream.pointee.level_buf = level == 0 ? nil : levelBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.level_buf_size = level == 0 ? 0 : UInt32(levelBuffer.count)
        stream.pointee.gzip_flag = UInt16(IGZIP_DEFLATE)
        stream.pointee.flush = UInt16(SYNC_FLUSH)
        stream.pointee.end_of_stream = 0
        if let base = dictionary.baseAddress, !dictionary.isEmpty {
            let status = isal_deflate_set_dict(
                stream, UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)),
                UInt32(dictionary.count))
            guard status == COMP_OK else { return 0 }
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(output.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        // One call normally takes it all; ISA-L may keep a tail in its own buffer for another call. A call
        // that neither takes nor gives a byte would repeat forever: that is a failure.
        repeat {
            let before = (stream.pointee.avail_in, stream.pointee.avail_out)
            guard isal_deflate(stream) == COMP_OK, before != (stream.pointee.avail_in, stream.pointee.avail_out)
            else { return 0 }
        } while (stream.pointee.avail_in > 0 || nowetl_isal_is_flushed(stream) == 0) && stream.pointee.avail_out > 0
        guard stream.pointee.avail_in == 0, nowetl_isal_is_flushed(stream) != 0 else { return 0 }
        return output.count - Int(stream.pointee.avail_out)
    }
}
