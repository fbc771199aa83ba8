/// Whether a file sink compresses its files.
public enum Compression: Sendable, Hashable {
    /// Plain files.
    case none
    /// gzip (RFC 1952), at a level from 0 (store) to 9 (smallest); 6 is the default.
    ///
    /// The file is one gzip member whose DEFLATE stream is compressed in chunks of 1 MiB of uncompressed
    /// data on other cores (``GzipWriter``), as `pigz` does.
    case gzip(level: Int)

    /// gzip at zlib's default level 6.
    public static let gzip = Compression.gzip(level: 6)

    /// gzip at level 6 when the path ends in `.gz` (``OutputPathTemplate/hasGzipSuffix``), otherwise
    /// none: a pipeline file's outputs always follow the suffix, and ``FileSinkOptions`` does when it is
    /// given no compression.
    public static func inferred(from path: OutputPathTemplate) -> Compression {
        path.hasGzipSuffix ? .gzip : .none
    }
}
