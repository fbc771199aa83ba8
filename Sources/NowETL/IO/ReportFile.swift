import Foundation

/// The reports a run leaves for monitoring (`--summary-json`, `--metrics-file`): written atomically —
/// Foundation's `.atomic` writes a temporary file beside the target and renames it into place — so a
/// reader (a script, node_exporter's textfile collector) sees the previous report or the new one, never
/// half of one.
enum ReportFile {
    /// Writes `data` to `path` atomically, creating the directory if needed (0666 less the umask).
    static func write(_ data: Data, toFile path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }
}
