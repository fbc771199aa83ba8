/// Whether a file sink compresses its files, and with which DEFLATE engine.
///
/// Either way the file is one gzip (RFC 1952) member whose DEFLATE stream is compressed in chunks of
/// 1 MiB of uncompressed data on other cores (``GzipWriter``), as `pigz` does; the engines differ in
/// speed and size only (docs/guides/nightly-files.md, "Compression", has the figures).
public enum Compression: Sendable, Hashable {
    /// Plain files.
    case none
    /// gzip with zlib, at a level from 0 (store) to 9 (smallest): the `level:` key, whose bytes stay
    /// zlib's exactly.
    case gzip(level: Int)
    /// gzip with Intel ISA-L's igzip, at a level from 0 (fastest) to 3 (smallest): several times
    /// zlib's speed for somewhat larger files (`compression: fast` and `balanced`).
    case igzip(level: Int)

    /// gzip at zlib's default level 6 (`level: 6`, the default before `compression:`).
    public static let gzip = Compression.gzip(level: 6)

    /// What a `.gz` output without `compression:` or `level:` gets: ``Preset/balanced``.
    public static let gzipDefault = Preset.balanced.compression

    /// ``gzipDefault`` when the path ends in `.gz` (``OutputPathTemplate/hasGzipSuffix``), otherwise
    /// none: a pipeline file's outputs always follow the suffix, and ``FileSinkOptions`` does when it is
    /// given no compression.
    public static func inferred(from path: OutputPathTemplate) -> Compression {
        path.hasGzipSuffix ? .gzipDefault : .none
    }

    /// The `compression:` key of a gzip'd file output: a trade between CPU and size, named by intent
    /// rather than by engine.
    public enum Preset: String, Sendable, Hashable, CaseIterable, Codable {
        /// ISA-L level 1: the least CPU that still compresses well.
        case fast
        /// ISA-L level 3, the default: a few times less CPU than zlib level 6 for a file about a fifth
        /// larger.
        case balanced
        /// zlib level 9: the smallest file this build writes, at the most CPU.
        case small

        /// The engine and level it stands for.
        public var compression: Compression {
            switch self {
            case .fast: .igzip(level: 1)
            case .balanced: .igzip(level: 3)
            case .small: .gzip(level: 9)
            }
        }
    }
}
