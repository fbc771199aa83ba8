/// Whether a file sink compresses its files.
public enum Compression: Sendable, Hashable {
    /// Plain files.
    case none
    /// gzip (RFC 1952) through zlib, at a level from 0 (store) to 9 (smallest); 6 is zlib's default.
    case gzip(level: Int)

    /// gzip at zlib's default level 6.
    public static let gzip = Compression.gzip(level: 6)

    /// gzip when the path ends in `.gz`, otherwise none — the default when a pipeline does not say.
    public static func inferred(fromPath path: String) -> Compression {
        path.hasSuffix(".gz") ? .gzip : .none
    }
}
