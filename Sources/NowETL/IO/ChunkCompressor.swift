/// A raw DEFLATE compressor for one chunk of a gzip stream at a time: what a ``GzipChunk`` runs on its
/// worker, whichever engine (``DeflateCompressor`` for zlib, ``IgzipCompressor`` for ISA-L) is behind it.
///
/// A chunk is compressed after the 32 KiB before it (its dictionary) and ends with a sync flush — byte
/// aligned, no final block — so chunks compressed apart, laid end to end, are one DEFLATE stream. Equal
/// chunk and dictionary give equal bytes. Not thread-safe: one thread at a time uses a compressor.
protocol ChunkCompressor: AnyObject {
    /// The engine's name, for messages (`zlib`, `ISA-L`).
    var engine: String { get }

    /// The most bytes a chunk of `count` input bytes can take (the sync flush's marker included).
    func bound(_ count: Int) -> Int

    /// Compresses `input` after `dictionary` (the data just before it, at most 32 KiB) into `output`,
    /// ending byte-aligned without a final block; returns the size, or 0 when it did not fit (never with
    /// an `output` of ``bound(_:)`` bytes) or the engine failed.
    func compress(
        _ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Int
}

extension Compression {
    /// A new compressor for this compression's engine and level, for chunks of the file `displayPath`;
    /// `nil` for ``none``.
    ///
    /// - Throws: ``NowETLError`` naming `displayPath` for a level the engine does not have, or when the
    ///   engine cannot start.
    func makeChunkCompressor(displayPath: String) throws -> (any ChunkCompressor)? {
        switch self {
        case .none: nil
        case .gzip(let level): try DeflateCompressor(level: level, displayPath: displayPath)
        case .igzip(let level): try IgzipCompressor(level: level, displayPath: displayPath)
        }
    }

    /// Checks the level against its engine's: zlib 0…9, ISA-L 0…3 (``IgzipCompressor/levels``).
    ///
    /// - Throws: ``NowETLError`` (``NowETLError/Code/invalidSchema``) naming `displayPath`.
    func checkLevel(displayPath: String) throws(NowETLError) {
        switch self {
        case .gzip(let level) where !(0...9).contains(level):
            throw NowETLError(
                .invalidSchema, path: displayPath, "gzip level \(level) for \(displayPath) is not in 0…9")
        case .igzip(let level) where !IgzipCompressor.levels.contains(level):
            throw NowETLError(
                .invalidSchema, path: displayPath, "ISA-L gzip level \(level) for \(displayPath) is not in 0…3")
        case .none, .gzip, .igzip:
            break
        }
    }
}
