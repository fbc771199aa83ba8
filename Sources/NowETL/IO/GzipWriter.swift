import CZlib
import Dispatch

/// A gzip compressor in front of another ``ByteOutput`` that compresses on other cores: one gzip
/// (RFC 1952) member whose DEFLATE stream is cut into chunks of ``defaultChunkSize`` uncompressed
/// bytes, each compressed by a ``ChunkCompressor`` (zlib's ``DeflateCompressor`` or ISA-L's
/// ``IgzipCompressor``) on a Dispatch worker and passed on in order, as `pigz` does.
///
/// Each chunk is primed with the 32 KiB before it and ends byte-aligned (a sync flush), so the chunks
/// laid end to end are one stream of about the size a single pass gives; ``finish()`` adds the final
/// empty block and the trailer (the CRC-32s of the chunks combined, and the length). Chunk boundaries
/// fall at fixed uncompressed offsets — never where a write, a page or a partition ends — and the
/// header is fixed (no name, modification time 0), so the same bytes in give the same file whatever
/// the chunking, the timing or the number of cores. One member, not one per chunk: readers that stop
/// after the first member (libxml2's, so `xmllint` and `nowsim import`) read it whole.
///
/// The writer (its owner's thread) fills one slot while at most ``window`` − 1 others compress; when
/// it needs a slot that is still compressing, it waits for that chunk and passes it on. Memory is
/// ``window`` slots (input, output and compressor each), whatever the amount of data; the workers run
/// on Dispatch's threads, not the Swift concurrency pool. `deinit` leaves a chunk in flight to its
/// worker, which holds its slot until it is done.
final class GzipWriter: ByteOutput {
    /// Uncompressed bytes per chunk by default: a few in flight stay a few MiB.
    static let defaultChunkSize = 1 << 20
    /// Chunks in memory at once: one being filled, the others compressing.
    static let window = 3

    /// The engine and level (never ``Compression/none``).
    private let compression: Compression
    private let chunkSize: Int
    private let downstream: ByteOutput
    private let displayPath: String
    private var slots: [GzipChunk] = []
    /// Chunks started so far; chunk `n` uses slot `n % window`.
    private var started = 0
    /// Chunks passed on so far (always the oldest first).
    private var passed = 0
    /// The last 32 KiB of the data before the chunk being filled: the next chunk's dictionary.
    private var tail: [UInt8] = []
    /// The CRC-32 of the chunks passed on.
    private var crc: UInt = 0
    private var wroteHeader = false
    private var finished = false
    /// Uncompressed bytes taken so far.
    private(set) var bytesIn = 0
    /// Compressed bytes passed on so far (header and the chunks written downstream).
    private(set) var bytesOut = 0

    private static let workers = DispatchQueue(label: "nowetl.gzip", qos: .utility, attributes: .concurrent)
    /// ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=3 (Unix), as zlib writes it.
    private static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03]

    /// The chunk size for a part split at `limit` compressed bytes: the chunk being filled is not
    /// counted by a size check, so it is kept to an eighth of the limit (16 KiB to 1 MiB).
    static func chunkSize(splittingAt limit: Int) -> Int {
        min(defaultChunkSize, max(1 << 14, limit / 8))
    }

    /// Creates a compressor with zlib at `level` (0–9: 0 stores, 1 fastest, 6 the default, 9 smallest)
    /// writing chunks of `chunkSize` uncompressed bytes to `downstream`.
    ///
    /// - Throws: ``NowETLError`` naming `displayPath` for a level outside 0…9.
    convenience init(
        level: Int, downstream: ByteOutput, displayPath: String, chunkSize: Int = GzipWriter.defaultChunkSize
    ) throws {
        try self.init(
            compression: .gzip(level: level), downstream: downstream, displayPath: displayPath, chunkSize: chunkSize)
    }

    /// Creates a compressor with `compression`'s engine and level (zlib 0–9, ISA-L 0–3) writing chunks of
    /// `chunkSize` uncompressed bytes to `downstream`.
    ///
    /// - Throws: ``NowETLError`` naming `displayPath` for a level the engine does not have, or for
    ///   ``Compression/none``.
    init(
        compression: Compression, downstream: ByteOutput, displayPath: String,
        chunkSize: Int = GzipWriter.defaultChunkSize
    ) throws {
        if compression == .none {
            throw NowETLError(.misuse, path: displayPath, "a gzip writer for \(displayPath) without compression")
        }
        // At once, not at the first chunk's compressor.
        try compression.checkLevel(displayPath: displayPath)
        self.compression = compression
        self.chunkSize = max(1, chunkSize)
        self.downstream = downstream
        self.displayPath = displayPath
    }

    /// Takes bytes into the current chunk, starting each chunk that fills.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else {
            throw NowETLError(.misuse, path: displayPath, "write to \(displayPath) after its gzip stream ended")
        }
        var rest = bytes
        while !rest.isEmpty {
            let slot = try currentSlot()
            rest = UnsafeRawBufferPointer(rebasing: rest[slot.fill(rest)...])
            if slot.room == 0 { start(slot) }
        }
        bytesIn += bytes.count
    }

    /// Ends the stream: compresses what is left, passes every chunk on in order, then the final block
    /// and the trailer, and releases the slots.
    func finish() throws {
        guard !finished else { return }
        let slot = try currentSlot()
        if slot.count > 0 { start(slot) }
        while passed < started { try passOldest() }
        try writeHeaderOnce()
        var trailer: [UInt8] = [0x03, 0x00]  // an empty final block with fixed codes
        for value in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: bytesIn)] {
            for shift in stride(from: 0, to: 32, by: 8) { trailer.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        try trailer.withUnsafeBytes { try downstream.write($0) }
        bytesOut += trailer.count
        slots = []
        tail = []
        finished = true
    }

    /// Whether the compressed size of everything written so far — save the chunk still being filled —
    /// reaches `limit`: chunks in flight are waited for only when their bound could reach it, so the
    /// answer is the same as with every chunk finished, whatever the timing.
    func compressedSize(reaches limit: Int) throws -> Bool {
        guard bytesOut < limit else { return true }
        var bound = bytesOut + (wroteHeader || started == passed ? 0 : Self.header.count)
        for chunk in passed..<started { bound += slots[chunk % Self.window].compressedBound }
        guard bound >= limit else { return false }
        while passed < started && bytesOut < limit { try passOldest() }
        return bytesOut >= limit
    }

    /// The slot of the chunk being filled, making one or waiting for the chunk that holds it.
    private func currentSlot() throws -> GzipChunk {
        let index = started % Self.window
        if index == slots.count {
            guard let compressor = try compression.makeChunkCompressor(displayPath: displayPath) else {
                throw NowETLError(.misuse, path: displayPath, "a gzip writer for \(displayPath) without compression")
            }
            slots.append(GzipChunk(capacity: chunkSize, compressor: compressor))
        } else if slots[index].isCompressing {
            try passOldest()  // chunk started − window, the oldest in flight
        }
        return slots[index]
    }

    private func start(_ slot: GzipChunk) {
        tail.withUnsafeBytes { slot.start(after: $0, on: Self.workers) }
        let filled = slot.filled
        if filled.count >= GzipChunk.windowSize {
            tail = Array(filled.suffix(GzipChunk.windowSize))
        } else {
            tail = Array((tail + Array(filled)).suffix(GzipChunk.windowSize))
        }
        started += 1
    }

    private func writeHeaderOnce() throws {
        guard !wroteHeader else { return }
        try Self.header.withUnsafeBytes { try downstream.write($0) }
        bytesOut += Self.header.count
        wroteHeader = true
    }

    /// Waits for the oldest chunk in flight and writes it downstream.
    private func passOldest() throws {
        let slot = slots[passed % Self.window]
        let chunk = slot.wait()
        guard !chunk.isEmpty else {
            throw NowETLError(
                .compression, path: displayPath,
                "gzip failed for \(displayPath): \(slot.engine) could not compress a chunk")
        }
        try writeHeaderOnce()
        try downstream.write(chunk)
        bytesOut += chunk.count
        crc = crc32_combine(crc, slot.crc, .init(slot.count))
        passed += 1
        slot.reset()
    }
}
