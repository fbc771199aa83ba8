/// Something bytes are pushed into: a file, or a compressor in front of one.
///
/// The stages of a file sink form a chain — format encoder → (``GzipWriter``) → ``AtomicFile`` — each
/// pushing fixed-size chunks to the next, so no stage holds more than its buffer.
protocol ByteOutput: AnyObject {
    /// Takes the bytes (copying what it keeps; the buffer is reused by the caller).
    func write(_ bytes: UnsafeRawBufferPointer) throws
}
