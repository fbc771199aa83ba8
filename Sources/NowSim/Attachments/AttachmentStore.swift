import Foundation
import NowQuery
import NowSQLite

/// `sys_attachment` rows and their `sys_attachment_doc` chunks: writing a file as an instance
/// stores it (``AttachmentEncoding``), reading its metadata, deleting it.
struct AttachmentStore {
    /// The columns of `sys_attachment` the metadata is read from, in this order.
    static let columns = [
        "sys_id", "table_sys_id", "size_bytes", "sys_updated_on", "image_height", "sys_created_on", "file_name",
        "sys_created_by", "compressed", "average_image_color", "sys_updated_by", "sys_tags", "table_name",
        "image_width", "sys_mod_count", "content_type", "size_compressed", "state", "chunk_size_bytes", "hash",
    ]

    /// One attachment's `sys_attachment` values (absent and NULL columns as `""`).
    struct Metadata {
        var values: [String: String]

        /// The value of `column`, `""` when empty.
        subscript(_ column: String) -> String { values[column] ?? "" }
    }

    /// What a new attachment is.
    struct NewFile {
        var fileName: String
        var contentType: String
        var tableName: String
        var tableSysId: String
    }

    /// Stores `bytes` as a new attachment of `file.tableSysId`, created by `user` at `now`, on `db`
    /// (inside the caller's transaction); returns the new sys_id. The sys_ids of the attachment and its chunks come
    /// from `newSysId` (random ones; the seeder passes deterministic ones).
    static func insert(
        _ bytes: UnsafeRawBufferPointer, as file: NewFile, user: String, now: String, db: SQLiteConnection,
        newSysId: () -> String = RecordWriter.newSysId
    ) throws -> String {
        let sysId = newSysId()
        do {
            var position = 0
            let (compressed, _) = try AttachmentEncoding.gzipChunks(of: bytes) { chunk in
                let data = Data(chunk).base64EncodedString()
                try PlatformRows.insert(
                    into: "sys_attachment_doc",
                    [
                        ("sys_id", newSysId()), ("sys_attachment", sysId), ("position", String(position)),
                        ("length", String(chunk.count)), ("data", data),
                    ] + PlatformRows.systemFields(table: "sys_attachment_doc", user: user, now: now), db: db)
                position += 1
            }
            let image = AttachmentEncoding.imageSize(bytes)
            try PlatformRows.insert(
                into: "sys_attachment",
                [
                    ("sys_id", sysId), ("file_name", file.fileName), ("content_type", file.contentType),
                    ("table_name", file.tableName), ("table_sys_id", file.tableSysId),
                    ("size_bytes", String(bytes.count)), ("size_compressed", String(compressed)),
                    ("compressed", "true"), ("hash", try AttachmentEncoding.sha256Hex(bytes)),
                    ("chunk_size_bytes", String(AttachmentEncoding.chunkSize)), ("state", "available"),
                    ("image_width", image.map { String($0.width) } ?? ""),
                    ("image_height", image.map { String($0.height) } ?? ""),
                ] + PlatformRows.systemFields(table: "sys_attachment", user: user, now: now), db: db)
        }
        return sysId
    }

    /// The metadata of attachment `sysId`, `nil` when there is none.
    static func metadata(_ sysId: String, db: SQLiteConnection) throws -> Metadata? {
        let list = columns.map(SQLIdentifier.quote).joined(separator: ", ")
        return try db.withStatement("SELECT \(list) FROM \"sys_attachment\" WHERE \"sys_id\" = ?") { statement in
            try statement.bind([.text(sysId)])
            guard try statement.step() else { return nil }
            return metadata(from: statement)
        }
    }

    /// The metadata in the current row of `statement`, whose first columns are ``columns``.
    static func metadata(from statement: SQLiteStatement) -> Metadata {
        var values: [String: String] = [:]
        for (index, column) in columns.enumerated() {
            if let text = statement.text(Int32(index)), !text.isEmpty { values[column] = text }
        }
        return Metadata(values: values)
    }

    /// Deletes attachment `sysId` and its chunks in one transaction; `false` when there is none.
    static func delete(_ sysId: String, db: SQLiteConnection) throws -> Bool {
        try db.transaction {
            try db.withStatement("DELETE FROM \"sys_attachment_doc\" WHERE \"sys_attachment\" = ?") { statement in
                try statement.bind([.text(sysId)])
                try statement.step()
            }
            return try db.withStatement("DELETE FROM \"sys_attachment\" WHERE \"sys_id\" = ?") { statement in
                try statement.bind([.text(sysId)])
                try statement.step()
                return db.changes > 0
            }
        }
    }
}
