import CGnuTLS
import CZlib
import Foundation

/// How an instance stores an attachment's bytes in `sys_attachment_doc` rows, and the digests it
/// records on `sys_attachment` (docs/nowsim-records.md, "Attachments").
///
/// - The file is gzip-compressed as one stream, the stream cut into chunks of ``chunkSize`` bytes,
///   and each chunk stored base64-encoded in its own row's `data`, `position` counting from 0
///   ([3P] "Attachments in ServiceNow", community.servicenow.com/docs/DOC-6091: "gzip it => split
///   the gzip into 4k chunks => base64 encoding of the chunks"; [DOC] r_AdministeringAttachments:
///   "stored in the Attachment Document [sys_attachment_doc] table, in 4k chunks").
/// - The chunk size is 700 000 bytes: current instances answer `"chunk_size_bytes": "700000"` in
///   the metadata of every attachment (recorded Attachment API answers of dev instances, 2021–2023,
///   in public test fixtures); that this is the `sys_attachment_doc` chunk length is [INF] — older
///   write-ups speak of 4 KB chunks. Readers must not depend on it (``AttachmentFileStream`` decodes
///   rows of any length).
/// - `length` is the number of bytes the row's `data` decodes to ([3P] snprotips.com
///   "Understanding Attachments in ServiceNow": "length (which defines the number of bytes stored in
///   this chunk)"; one third-party exporter writes the base64 length instead [INF]).
/// - `hash` is the SHA-256 of the file (not of the gzip stream) as 64 lowercase hex digits ([DOC]
///   Mobile SDK NowAttachmentMetadata: "hash: Expected SHA256 digest for the attachment"; the
///   recorded answers show 64 hex digits).
/// - Every file is compressed, even when gzip makes it larger ([DOC] c_AttachmentAPI example:
///   `blocks.swf`, `size_bytes` 462, `size_compressed` 485, `compressed` `true`).
enum AttachmentEncoding {
    /// The length of the gzip stream's pieces stored per `sys_attachment_doc` row.
    static let chunkSize = 700_000

    /// The result of storing a file: its sizes and digest, for the `sys_attachment` row.
    struct Summary: Equatable {
        /// `size_bytes`.
        var sizeBytes: Int
        /// `size_compressed`: the length of the gzip stream.
        var sizeCompressed: Int
        /// `hash`.
        var sha256: String
        /// The number of chunks written.
        var chunks: Int
    }

    /// An encoding failure (zlib or GnuTLS said no); nothing of it reaches a client but a 500.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Compresses `bytes` into a gzip stream and hands it to `emit` in ``chunkSize`` pieces (the last
    /// one shorter), in order; at most one piece is held at a time.
    static func gzipChunks(
        of bytes: UnsafeRawBufferPointer, chunkSize: Int = chunkSize, _ emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (compressedSize: Int, chunks: Int) {
        var stream = z_stream()
        // 15 + 16: a gzip wrapper (header with mtime 0, so equal files give equal chunks).
        guard nowetl_deflate_init2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK
        else { throw Failure(description: "deflateInit2 failed") }
        defer { deflateEnd(&stream) }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunkSize), alignment: 1)
        defer { output.deallocate() }
        var total = 0
        var chunks = 0
        var filled = 0
        stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
        // zlib counts in UInt32: feed at most 1 GiB at a time.
        var remaining = bytes.count
        var status = Z_OK
        repeat {
            let feed = min(remaining, 1 << 30)
            stream.avail_in = uInt(feed)
            let flush = remaining - feed == 0 ? Z_FINISH : Z_NO_FLUSH
            repeat {
                guard let base = output.baseAddress else { throw Failure(description: "no output buffer") }
                stream.next_out = (base + filled).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(output.count - filled)
                status = deflate(&stream, flush)
                guard status != Z_STREAM_ERROR else { throw Failure(description: "deflate failed") }
                filled = output.count - Int(stream.avail_out)
                if filled == output.count || (status == Z_STREAM_END && filled > 0) {
                    try emit(UnsafeRawBufferPointer(rebasing: output[0..<filled]))
                    total += filled
                    chunks += 1
                    filled = 0
                }
            } while stream.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END)
            remaining -= feed
        } while remaining > 0
        return (total, chunks)
    }

    /// The SHA-256 of `bytes` as 64 lowercase hex digits.
    static func sha256Hex(_ bytes: UnsafeRawBufferPointer) throws -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = digest.withUnsafeMutableBytes { out in
            gnutls_hash_fast(GNUTLS_DIG_SHA256, bytes.baseAddress, bytes.count, out.baseAddress)
        }
        guard status == 0 else { throw Failure(description: "SHA-256 failed (\(status))") }
        return hex(digest)
    }

    /// Lowercase hex digits of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The pixel size of a PNG or GIF image from its header, `nil` for anything else.
    ///
    /// An instance fills `image_width`/`image_height` for images ([DOC] c_AttachmentAPI); nowsim
    /// reads the two formats whose size sits at a fixed place, and leaves `average_image_color`
    /// empty (a simplification).
    static func imageSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        func big32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func little16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 24, bytes.prefix(8).elementsEqual(png), bytes[12..<16].elementsEqual(Array("IHDR".utf8)) {
            return (big32(16), big32(20))
        }
        if bytes.count >= 10, bytes.prefix(4).elementsEqual(Array("GIF8".utf8)) {
            return (little16(6), little16(8))
        }
        return nil
    }
}
