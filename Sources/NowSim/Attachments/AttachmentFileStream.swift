import CZlib
import Foundation
import NowSQLite

/// The bytes of one attachment, assembled from its `sys_attachment_doc` rows while they are sent
/// (`GET /api/now/attachment/{sys_id}/file`).
///
/// The rows are taken in `position` order (numerically; rows with equal positions in insertion
/// order), each row's `data` base64-decoded on its own and, when the attachment is `compressed`,
/// the concatenation inflated as gzip (several gzip members in a row are read one after another;
/// zlib streams are accepted too). Rows written by any client through the Table API are read the
/// same way as the ones the Attachment API writes, whatever their chunk length.
///
/// Memory: one decoded row and zlib's window at a time; a pooled SQLite connection is taken only
/// for the moment a row is read, so a slow client holds none.
final class AttachmentFileStream: ResponseBodyStream, @unchecked Sendable {
    // @unchecked: every mutable member is touched only under `lock` (libmicrohttpd asks for one
    // block at a time, possibly from different threads).
    private let lock = NSLock()
    private let pool: SQLiteConnectionPool
    private let rowIDs: [Int64]
    private let compressed: Bool
    private var nextRow = 0
    private var input = Data()
    private var inputOffset = 0
    private var zlib: UnsafeMutablePointer<z_stream>?
    private var finished = false
    private var failed = false

    /// A stream of the chunks `rowIDs` (already in order); `compressed` says whether they hold a
    /// gzip stream.
    private init(pool: SQLiteConnectionPool, rowIDs: [Int64], compressed: Bool) throws {
        self.pool = pool
        self.rowIDs = rowIDs
        self.compressed = compressed
        if compressed {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            // 15 + 32: gzip or zlib, detected from the header.
            guard nowetl_inflate_init2(stream, 15 + 32) == Z_OK else {
                stream.deallocate()
                throw AttachmentEncoding.Failure(description: "inflateInit2 failed")
            }
            zlib = stream
        }
    }

    deinit {
        if let zlib {
            inflateEnd(zlib)
            zlib.deinitialize(count: 1)
            zlib.deallocate()
        }
    }

    /// The stream of attachment `sysId`'s chunks on `db` (the chunk list is read now, the chunks
    /// later through `pool`).
    static func open(
        sysId: String, compressed: Bool, db: SQLiteConnection, pool: SQLiteConnectionPool
    ) throws -> AttachmentFileStream {
        let rowIDs = try db.withStatement(
            "SELECT rowid FROM \"sys_attachment_doc\" WHERE \"sys_attachment\" = ? "
                + "ORDER BY CAST(\"position\" AS INTEGER), rowid"
        ) { statement -> [Int64] in
            try statement.bind([.text(sysId)])
            var ids: [Int64] = []
            while try statement.step() { ids.append(Int64(statement.integer(0))) }
            return ids
        }
        return try AttachmentFileStream(pool: pool, rowIDs: rowIDs, compressed: compressed)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        lock.withLock {
            guard !failed else { return nil }
            do {
                return try fill(buffer)
            } catch {
                failed = true
                return nil
            }
        }
    }

    /// Writes as many bytes as are available into `buffer` (at least one unless at the end).
    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var written = 0
        while written < buffer.count && !finished {
            if inputOffset >= input.count {
                guard try loadNextRow() else {
                    if compressed && zlib != nil && !atMemberBoundary {
                        throw AttachmentEncoding.Failure(description: "the gzip stream ends early")
                    }
                    finished = true
                    break
                }
                continue
            }
            if let zlib {
                written += try inflate(zlib, into: base + written, count: buffer.count - written)
            } else {
                let take = min(buffer.count - written, input.count - inputOffset)
                input.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress else { return }
                    (base + written).copyMemory(from: source + inputOffset, byteCount: take)
                }
                inputOffset += take
                written += take
            }
        }
        return written
    }

    /// Whether zlib stands between two gzip members (nothing of a member is pending).
    private var atMemberBoundary = true

    private func inflate(_ stream: UnsafeMutablePointer<z_stream>, into target: UnsafeMutableRawPointer, count: Int)
        throws -> Int
    {
        try input.withUnsafeBytes { bytes -> Int in
            guard let source = bytes.baseAddress else { return 0 }
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: (source + inputOffset).assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(min(input.count - inputOffset, Int(UInt32.max)))
            stream.pointee.next_out = target.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(count)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let consumed = min(input.count - inputOffset, Int(UInt32.max)) - Int(stream.pointee.avail_in)
            inputOffset += consumed
            let produced = count - Int(stream.pointee.avail_out)
            if produced == 0 && consumed == 0 && status != Z_STREAM_END {
                throw AttachmentEncoding.Failure(description: "the gzip stream does not advance (\(status))")
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                atMemberBoundary = false
            case Z_STREAM_END:
                // Another gzip member may follow (concatenated streams are one valid gzip file).
                inflateReset(stream)
                atMemberBoundary = true
            default:
                throw AttachmentEncoding.Failure(description: "the gzip stream is damaged (\(status))")
            }
            return produced
        }
    }

    /// Reads and decodes the next chunk into `input`; `false` when there is none left.
    private func loadNextRow() throws -> Bool {
        guard nextRow < rowIDs.count else { return false }
        let rowID = rowIDs[nextRow]
        nextRow += 1
        let text = try pool.withConnection { db in
            try db.withStatement("SELECT \"data\" FROM \"sys_attachment_doc\" WHERE rowid = ?") { statement in
                try statement.bind([.integer(Int(rowID))])
                guard try statement.step() else {
                    throw AttachmentEncoding.Failure(description: "a chunk was deleted while it was sent")
                }
                return statement.text(0) ?? ""
            }
        }
        guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw AttachmentEncoding.Failure(description: "a chunk is not base64")
        }
        input = decoded
        inputOffset = 0
        return true
    }
}
