import CZlib

/// A raw DEFLATE compressor for one chunk of a gzip stream at a time; the one owner of its zlib
/// `z_stream`.
///
/// Each chunk starts from a reset stream primed with the 32 KiB before it (`deflateSetDictionary`) and
/// ends with a sync flush, so its blocks end on a byte boundary and chunks compressed apart, laid end
/// to end, are one DEFLATE stream — with the size a single pass gives, as `pigz` does. zlib is
/// deterministic: equal chunk and dictionary give equal bytes.
///
/// (libdeflate, measured against it, is 1.3–1.9× faster at these levels but only writes complete
/// streams — its last block is final — so its chunks can only be separate gzip members, which
/// libxml2's gzip reader, and so `xmllint` and `nowsim import`, stop reading after the first. ISA-L's
/// ``IgzipCompressor`` streams with sync flushes, and is the faster engine.)
///
/// Not thread-safe: one thread at a time uses it (a ``GzipWriter`` hands each of its chunks, with its
/// compressor, to one worker at a time).
final class DeflateCompressor: ChunkCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    /// The compression level (0–9).
    let level: Int
    let engine = "zlib"

    /// Creates a compressor at `level`.
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/compression``, naming `displayPath`) when zlib refuses
    ///   the level or runs out of memory.
    init(level: Int, displayPath: String) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = nowetl_deflate_init2(stream, Int32(level), Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw NowETLError(.compression, path: displayPath, "cannot start gzip for \(displayPath): zlib \(status)")
        }
        self.level = level
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func bound(_ count: Int) -> Int {
        Int(deflateBound(stream, uLong(count))) + 16
    }

    func compress(
        _ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Int {
        guard deflateReset(stream) == Z_OK else { return 0 }
        if let base = dictionary.baseAddress, !dictionary.isEmpty {
            let status = deflateSetDictionary(
                stream, base.assumingMemoryBound(to: UInt8.self), uInt(dictionary.count))
            guard status == Z_OK else { return 0 }
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = deflate(stream, Z_SYNC_FLUSH)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        // A flush is complete when deflate left room in the output; all input must be taken.
        guard status == Z_OK, stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 else { return 0 }
        return output.count - Int(stream.pointee.avail_out)
    }
}
