import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// An attachment's bytes on their way to a file: the ``ResponseBodyStream`` the download writes into,
/// hashing and counting as it goes and refusing more bytes than the attachment declared.
///
/// Safety: the transport calls ``restart()`` and ``append(_:)`` from its own thread, one call at a
/// time, and the downloading task reads ``byteCount`` and calls ``finish()`` only after the download
/// returned (the transport's continuation orders those after the last call). No two threads touch the
/// state at once, which is why `@unchecked Sendable` is sound here.
final class AttachmentFileStream: ResponseBodyStream, @unchecked Sendable {
    /// The file written (the journal's partial download).
    let path: String
    /// The most bytes taken: the size the instance declared.
    let limit: Int
    private let descriptor: Int32
    private(set) var byteCount = 0
    private var hasher = SHA256()

    /// Creates (or truncates) the file at `path`, private to the owner.
    ///
    /// - Throws: ``NowETLError`` (`io`) naming the path.
    init(path: String, limit: Int) throws {
        self.path = path
        self.limit = limit
        descriptor = try OwnFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC, action: "create the download file")
    }

    deinit { _ = close(descriptor) }

    func restart() throws {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw NowETLError.io("truncate the download file", path: path)
        }
        byteCount = 0
        hasher = SHA256()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count <= limit - byteCount else {
            throw NowETLError(
                .failed, path: path,
                "the attachment's content is larger than the \(limit) bytes its metadata declares (size_bytes)")
        }
        var offset = 0
        while offset < bytes.count {
            guard let base = bytes.baseAddress else { break }
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw NowETLError.io("write the download file", path: path)
            }
            offset += written
        }
        hasher.update(bytes)
        let before = byteCount
        byteCount += bytes.count
        if before < 1 << 20, byteCount >= 1 << 20 { CrashPoint.reached("attachment-streaming") }
    }

    /// Flushes the file to disk and returns the SHA-256 of its bytes.
    func finish() throws -> SHA256.Digest {
        guard fsync(descriptor) == 0 else { throw NowETLError.io("sync the download file", path: path) }
        return hasher.finalize()
    }
}
