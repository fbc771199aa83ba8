import Foundation
import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// The rows of one load into a target instance confirmed written, kept on disk so that the rerun of a
/// killed migration sends no write for them.
///
/// The file lives in the table's run journal directory (`<output_dir>/.nowetl/tables/<table>/`), so it
/// goes with the journal: a rerun that resumes the journal (same ``SinkContext/loadID``) finds it, and
/// the commit that removes the journal removes it. Its first line names the load
/// (`nowetl-instance-progress 1 <load id>`); a file of another load is discarded. Then one sys_id per
/// line, appended after each group of requests has been answered and `fsync`ed before the sink goes
/// on: a row is confirmed only once its line is on disk. A line torn by a crash (no newline) is not
/// a confirmation; when an existing file is opened it is rewritten compactly under a temporary name,
/// synced and renamed into place (an ``AtomicFile``, mode 0600), so later appends never follow a torn line.
final class InstanceLoadProgress {
    /// The file's path.
    let path: String
    /// The sys_ids confirmed written, this attempt's and the earlier ones'.
    private(set) var confirmed: Set<String>
    private var descriptor: Int32 = -1

    private static let magic = "nowetl-instance-progress 1 "

    private init(path: String, confirmed: Set<String>) {
        self.path = path
        self.confirmed = confirmed
    }

    deinit { close() }

    /// Opens (or starts) the progress record `name` in `directory` for the load `loadID`.
    ///
    /// - Throws: ``NowETLError`` (`io`) when the directory or the file cannot be written.
    static func open(directory: String, name: String, loadID: String) throws(NowETLError) -> InstanceLoadProgress {
        try OwnFiles.makeDirectories(directory)
        let path = directory + "/" + name
        var confirmed: Set<String> = []
        if let data = FileManager.default.contents(atPath: path) {
            let text = String(decoding: data, as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            // The last element is what follows the last newline: empty, or a torn line.
            lines.removeLast()
            if let header = lines.first, header == Self.magic + loadID {
                for line in lines.dropFirst() where SysIDRule.accepts(line) {
                    confirmed.insert(String(line))
                }
            }
        }
        let progress = InstanceLoadProgress(path: path, confirmed: confirmed)
        try progress.rewrite(loadID: loadID)
        return progress
    }

    /// Records `sysIDs` as written: appended and `fsync`ed before it returns.
    ///
    /// - Throws: ``NowETLError`` (`io`); the rows then count as not confirmed.
    func confirm(_ sysIDs: [String]) throws(NowETLError) {
        guard !sysIDs.isEmpty else { return }
        guard descriptor >= 0 else { throw NowETLError(.misuse, path: path, "the progress record \(path) is closed") }
        let bytes = Array(sysIDs.map { $0 + "\n" }.joined().utf8)
        if let number = bytes.withUnsafeBytes({ FileDescriptorIO.writeAll(descriptor, $0) }) {
            throw NowETLError.io("append to", path: path, errno: number)
        }
        guard fsync(descriptor) == 0 else { throw NowETLError.io("sync", path: path) }
        confirmed.formUnion(sysIDs)
    }

    /// Closes the file (it stays on disk for a rerun; the commit removes it with the journal).
    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Writes the header and the confirmed sys_ids under a temporary name, syncs, renames it into place,
    /// syncs the directory, and opens the file for appending.
    private func rewrite(loadID: String) throws(NowETLError) {
        let text = Self.magic + loadID + "\n" + confirmed.sorted().map { $0 + "\n" }.joined()
        // A new temporary name (O_EXCL, mode 0600), never a fixed one opened with O_TRUNC.
        do {
            let file = try AtomicFile(targetPath: path, displayPath: path, mode: OwnFiles.privateFileMode)
            do {
                try Array(text.utf8).withUnsafeBytes { try file.write($0) }
                try file.commit()
            } catch {
                file.abort()
                throw error
            }
        } catch {
            throw error as? NowETLError ?? NowETLError(.io, path: path, "cannot write \(path)", cause: error)
        }
        descriptor = try OwnFiles.open(path, O_WRONLY | O_APPEND, action: "open")
    }
}
