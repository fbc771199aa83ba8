import CZlib
import Dispatch

/// One slot of a ``GzipWriter``: an input buffer of up to a chunk's worth of uncompressed bytes, the
/// 32 KiB before it (the chunk's dictionary), the output buffer its DEFLATE blocks are compressed into,
/// and the ``ChunkCompressor`` that does it — and the chunk's CRC-32 — on a Dispatch worker.
///
/// The writer fills ``input``, calls ``start(after:on:)`` and later ``wait()``; the worker touches the slot
/// only in between. `@unchecked Sendable`: the semaphore orders every access — the writer does not
/// touch the buffers from ``start(after:on:)`` until ``wait()`` returns, and the worker's closure holds the slot
/// (so its buffers outlive a writer dropped mid-chunk).
final class GzipChunk: @unchecked Sendable {
    private let compressor: any ChunkCompressor
    private let input: UnsafeMutableRawBufferPointer
    private let dictionary: UnsafeMutableRawBufferPointer
    private var dictionaryCount = 0
    private let output: UnsafeMutableRawBufferPointer
    private let done = DispatchSemaphore(value: 0)
    /// Uncompressed bytes in ``input``.
    private(set) var count = 0
    /// Whether the slot was started and not yet waited for.
    private(set) var isCompressing = false
    /// The size of the compressed chunk; 0 until ``wait()`` returns (and if it did not fit).
    private(set) var compressedCount = 0
    /// The CRC-32 of the chunk's uncompressed bytes, once ``wait()`` returned.
    private(set) var crc: UInt = 0

    /// The DEFLATE window: the most data before a chunk that can prime it.
    static let windowSize = 1 << 15

    /// The name of the engine compressing the slot's chunks, for messages.
    var engine: String { compressor.engine }
    /// The slot's capacity in uncompressed bytes.
    var capacity: Int { input.count }
    /// Room left in ``input``.
    var room: Int { input.count - count }
    /// The uncompressed bytes filled so far.
    var filled: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: input[0..<count]) }
    /// The most bytes the chunk can take once compressed (for a size check that need not wait), set by
    /// ``start(after:on:)`` on the writer's thread: zlib's `deflateBound` reads the `z_stream` the worker
    /// is changing meanwhile, so it is never called while the chunk compresses.
    private(set) var compressedBound = 0

    /// Creates a slot for chunks of up to `capacity` uncompressed bytes.
    init(capacity: Int, compressor: any ChunkCompressor) {
        self.compressor = compressor
        input = .allocate(byteCount: capacity, alignment: 16)
        dictionary = .allocate(byteCount: Self.windowSize, alignment: 16)
        output = .allocate(byteCount: compressor.bound(capacity), alignment: 16)
    }

    deinit {
        input.deallocate()
        dictionary.deallocate()
        output.deallocate()
    }

    /// Copies as much of `bytes` as fits; returns how many it took.
    func fill(_ bytes: UnsafeRawBufferPointer) -> Int {
        let take = min(room, bytes.count)
        guard take > 0, let base = bytes.baseAddress, let target = input.baseAddress else { return 0 }
        (target + count).copyMemory(from: base, byteCount: take)
        count += take
        return take
    }

    /// Compresses the filled bytes on `queue`, after `preceding` (the last ``windowSize`` bytes of the
    /// stream before this chunk, copied here so the slot they came from may be refilled meanwhile).
    func start(after preceding: UnsafeRawBufferPointer, on queue: DispatchQueue) {
        let keep = UnsafeRawBufferPointer(rebasing: preceding.suffix(Self.windowSize))
        if let base = keep.baseAddress, let target = dictionary.baseAddress {
            target.copyMemory(from: base, byteCount: keep.count)
        }
        dictionaryCount = keep.count
        compressedBound = compressor.bound(count)
        isCompressing = true
        compressedCount = 0
        queue.async { [self] in
            let chunk = UnsafeRawBufferPointer(rebasing: input[0..<count])
            crc = crc32(0, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), uInt(chunk.count))
            compressedCount = compressor.compress(
                chunk, dictionary: UnsafeRawBufferPointer(rebasing: dictionary[0..<dictionaryCount]), into: output)
            done.signal()
        }
    }

    /// Waits for the worker and returns the compressed chunk (empty if it did not fit), valid until the
    /// slot is filled again.
    func wait() -> UnsafeRawBufferPointer {
        if isCompressing {
            done.wait()
            isCompressing = false
        }
        return UnsafeRawBufferPointer(rebasing: output[0..<compressedCount])
    }

    /// Empties the slot for the next chunk (after ``wait()``).
    func reset() {
        count = 0
        compressedCount = 0
        compressedBound = 0
        crc = 0
    }
}
