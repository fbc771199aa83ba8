import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// The attachments a table's run has downloaded, kept in its journal directory so that a rerun after a
/// crash downloads only what was not finished: `attachments/<sys_id>` holds the bytes, and
/// `attachments.done` one line per finished download (`{"sys_id", "bytes", "sha256"}`), appended and
/// synced only after the bytes are.
///
/// A download in progress goes to `attachments/<sys_id>.part` and is renamed when complete; a listed
/// download whose file is missing or of another size is fetched again. The directory is the table's
/// journal's, removed with it once the run commits.
struct AttachmentDownloads {
    /// A finished download.
    struct Done: Sendable, Hashable, Codable {
        var sysID: String
        var bytes: Int
        var sha256: String
        /// The file, in the download directory (not encoded: it follows from the sys_id).
        var path: String = ""

        enum CodingKeys: String, CodingKey {
            case sysID = "sys_id"
            case bytes, sha256
        }
    }

    /// `<journal>/attachments`.
    let directory: String
    /// `<journal>/attachments.done`.
    let logPath: String
    private var done: [String: Done] = [:]

    /// Opens the download cache of the journal in `journalDirectory`, reading what a previous run finished.
    ///
    /// - Throws: ``NowETLError`` (`io`) when the directory cannot be made or the record not read.
    init(directory journalDirectory: String) throws {
        directory = journalDirectory + "/attachments"
        logPath = journalDirectory + "/attachments.done"
        try OwnFiles.makeDirectories(directory, mode: OwnFiles.privateDirectoryMode)
        guard let data = FileManager.default.contents(atPath: logPath) else { return }
        // A line cut short by a crash is no record: its download is fetched again.
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard var entry = try? JSONDecoder().decode(Done.self, from: Data(line)),
                WholeRecordSink.isPathSafe(entry.sysID)
            else { continue }
            entry.path = directory + "/" + entry.sysID
            done[entry.sysID] = entry
        }
    }

    /// The finished download of attachment `sysID` (`bytes` long), fetched now by `download` into the
    /// stream it is given, unless a previous run finished it.
    ///
    /// - Throws: ``NowETLError`` for a failed download, an answer of another size than declared, or
    ///   the file system.
    mutating func fetch(
        _ sysID: String, bytes: Int, download: (AttachmentFileStream) async throws -> Void
    ) async throws -> Done {
        let path = directory + "/" + sysID
        if let entry = done[sysID], entry.bytes == bytes, Self.size(of: path) == bytes { return entry }
        let stream = try AttachmentFileStream(path: path + ".part", limit: bytes)
        try await download(stream)
        guard stream.byteCount == bytes else {
            throw NowETLError(
                .failed, path: path,
                "attachment \(sysID) came with \(stream.byteCount) bytes; its metadata declares \(bytes)")
        }
        let digest = try stream.finish()
        guard rename(path + ".part", path) == 0 else { throw NowETLError.io("rename the download", path: path) }
        AtomicFile.syncDirectory(directory)
        let entry = Done(sysID: sysID, bytes: bytes, sha256: digest.hexString, path: path)
        try append(entry)
        CrashPoint.reached("attachment-downloaded")
        done[entry.sysID] = entry
        return entry
    }

    /// Appends `entry` to the record and syncs it.
    private func append(_ entry: Done) throws {
        var line = try JSONEncoder().encode(entry)
        line.append(UInt8(ascii: "\n"))
        let fd = try OwnFiles.open(logPath, O_WRONLY | O_CREAT | O_APPEND, action: "record a finished download in")
        defer { _ = close(fd) }
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(fd) == 0 else {
            throw NowETLError.io("record a finished download in", path: logPath)
        }
    }

    /// The size of the regular file at `path`, `nil` when there is none.
    private static func size(of path: String) -> Int? {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Copies the file at `path` into `file`, 64 KiB at a time.
    static func copy(_ path: String, into file: AtomicFile) throws {
        let fd = try OwnFiles.open(path, O_RDONLY, action: "read the download")
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw NowETLError.io("read the download", path: path)
            }
            if count == 0 { return }
            try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }
}
