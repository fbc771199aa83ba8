#if canImport(Glibc)
    import Glibc
#endif

/// The byte path of one output file: a 64 KiB buffer the encoders fill, an optional ``GzipWriter``, and
/// the ``AtomicFile``.
///
/// Encoders append to ``buffer`` and call ``flushIfFull()`` after each row; the buffer is passed down
/// the chain in 64 KiB chunks, so a file of any size passes through a fixed amount of memory.
final class PartOutput: ByteOutput {
    /// Bytes waiting to go down the chain.
    var buffer = ByteBuffer(capacity: PartOutput.chunkSize + 4_096)
    /// The file the part ends in.
    let file: AtomicFile
    private var gzip: GzipWriter?
    /// The part's number (1-based).
    let number: Int
    /// Its path relative to the output directory.
    let relativePath: String
    /// Data rows written to the part.
    var rows = 0

    static let chunkSize = 1 << 16

    /// Creates the temporary file of a part (and its compressor); `split` decides the gzip chunk size
    /// (``GzipWriter/chunkSize(splittingAt:)`` for a split by bytes); the file gets `mode` (`file_mode`).
    init(
        targetPath: String, relativePath: String, number: Int, compression: Compression, split: SplitPolicy = .none,
        mode: mode_t = 0o640
    ) throws {
        self.relativePath = relativePath
        self.number = number
        file = try AtomicFile(targetPath: targetPath, displayPath: relativePath, mode: mode)
        switch compression {
        case .none:
            gzip = nil
        case .gzip, .igzip:
            var chunkSize = GzipWriter.defaultChunkSize
            if case .bytes(let limit) = split { chunkSize = GzipWriter.chunkSize(splittingAt: limit) }
            gzip = try GzipWriter(
                compression: compression, downstream: file, displayPath: relativePath, chunkSize: chunkSize)
        }
    }

    /// Appends bytes to the buffer (the entry for libxml2's output callback).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        buffer.append(bytes)
        try flushIfFull()
    }

    /// Passes the buffer on once it holds a chunk.
    @inline(__always) func flushIfFull() throws {
        if buffer.count >= Self.chunkSize { try flush() }
    }

    /// Passes everything buffered on.
    func flush() throws {
        guard buffer.count > 0 else { return }
        try buffer.withUnsafeBytes { raw in
            if let gzip { try gzip.write(raw) } else { try file.write(raw) }
        }
        buffer.removeAll()
    }

    /// Whether the part has reached `limit` bytes for ``SplitPolicy/bytes(_:)``: without compression,
    /// bytes on disk plus bytes buffered; with gzip, the compressed size of every chunk but the one
    /// being filled (``GzipWriter/compressedSize(reaches:)``: the same answer whatever the timing).
    func reaches(bytes limit: Int) throws -> Bool {
        guard let gzip else { return file.byteCount + buffer.count >= limit }
        try flush()
        return try gzip.compressedSize(reaches: limit)
    }

    /// Flushes, ends compression and syncs the temporary file; returns its SHA-256.
    ///
    /// The buffer and the compressor (its chunks' buffers are a few MiB) are released here, not when the
    /// part is dropped: a split table keeps its finished parts until commit, and they must stay small.
    func finish() throws -> SHA256.Digest {
        try flush()
        try gzip?.finish()
        gzip = nil
        buffer = ByteBuffer(capacity: 0)
        return try file.finish()
    }
}
