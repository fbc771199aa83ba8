import Foundation

/// Where and how a file sink writes: the shared options of ``CSVSink``, ``XMLSink`` and ``JSONSink``.
public struct FileSinkOptions: Sendable, Hashable {
    /// The directory every output path is confined to; created when missing.
    public var outputDirectory: String
    /// The file path relative to ``outputDirectory``, with placeholders.
    public var path: OutputPathTemplate
    /// Compression; `nil` infers it from the path (`.gz` → gzip level 6).
    public var compression: Compression?
    /// When to start a new file for the same table.
    public var split: SplitPolicy
    /// The mode of the files (and of a SQLite database file), set whatever the umask: the pipeline's
    /// `file_mode`, default 0640.
    public var fileMode: mode_t

    /// Creates options.
    public init(
        outputDirectory: String, path: OutputPathTemplate, compression: Compression? = nil, split: SplitPolicy = .none,
        fileMode: mode_t = 0o640
    ) {
        self.outputDirectory = outputDirectory
        self.path = path
        self.compression = compression
        self.split = split
        self.fileMode = fileMode
    }

    /// The compression in effect.
    var effectiveCompression: Compression {
        compression ?? .inferred(from: path)
    }
}
