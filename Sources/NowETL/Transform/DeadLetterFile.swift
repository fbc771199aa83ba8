import Foundation

/// The dead-letter file of a table, `<output_dir>/<table>.rejects.jsonl`: one JSON line per rejected
/// record, written atomically like every output (created on the first rejection, renamed into place
/// on ``commit()``, removed on ``abort()``).
final class DeadLetterFile {
    /// The absolute path the file gets on commit.
    let targetPath: String
    private let displayPath: String
    private var file: AtomicFile?
    private(set) var lines = 0

    /// A dead-letter file for `table` under `outputDirectory`.
    init(outputDirectory: String, table: String) {
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        displayPath = table + ".rejects.jsonl"
        targetPath = directory + "/" + displayPath
    }

    /// Appends the record of `rejection` as a line.
    func append(_ rejection: Rejection) throws {
        if file == nil {
            let directory = (targetPath as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw SinkError(.io, path: displayPath, "cannot create the directory of \(displayPath): \(error)")
            }
            file = try AtomicFile(targetPath: targetPath, displayPath: displayPath)
        }
        var line = rejection.record
        line.append(UInt8(ascii: "\n"))
        try line.withUnsafeBytes { try file!.write($0) }
        lines += 1
    }

    /// Renames the file into place when there were rejections; returns whether a file was written.
    @discardableResult
    func commit() throws -> Bool {
        guard let file else { return false }
        try file.commit()
        return true
    }

    /// Removes the temporary file.
    func abort() {
        file?.abort()
    }
}
