/// The settings every file output has: `path`, `gzip`, `level`, `split`.
///
/// * `path` — an ``OutputPathTemplate``.
/// * `gzip` — whether the file is gzip-compressed. The `.gz` suffix of `path` decides; `gzip` may
///   be written to say so explicitly, but must then agree with the suffix (a `.gz` file that is
///   not compressed, or a compressed one without the suffix, only confuses the next reader).
/// * `level` — the gzip level 0…9 (default 6); only for gzip'd outputs.
/// * `split` — an ``OutputSplit``; the path must then contain `{part}`, and may not otherwise.
public struct OutputFileSettings: Sendable, Hashable {
    /// Where the file goes, relative to `output_dir`.
    public var path: OutputPathTemplate
    /// Whether the file is gzip-compressed (the path ends in `.gz`).
    public var gzip: Bool
    /// The gzip level 0…9 (default 6); meaningless without ``gzip``.
    public var compressionLevel: Int
    /// When to start a new file, or `nil` for one file per table.
    public var split: OutputSplit?

    /// Creates settings; `gzip` follows the path's `.gz` suffix.
    public init(path: OutputPathTemplate, compressionLevel: Int = 6, split: OutputSplit? = nil) {
        self.path = path
        self.gzip = path.hasGzipSuffix
        self.compressionLevel = compressionLevel
        self.split = split
    }

    /// The keys these settings use, by name.
    static let keyNames = ["path", "gzip", "level", "split"]

    /// Decodes the shared keys of an output mapping whose key type also has `path`, `gzip`,
    /// `level` and `split`.
    init<Key: CodingKey>(from container: KeyedDecodingContainer<Key>) throws {
        let pathKey = Key(stringValue: "path")!
        let gzipKey = Key(stringValue: "gzip")!
        let levelKey = Key(stringValue: "level")!
        let splitKey = Key(stringValue: "split")!
        let text = try container.decode(String.self, forKey: pathKey)
        do {
            path = try OutputPathTemplate(parsing: text)
        } catch {
            throw container.issue(
                pathKey, "invalid path in \(container.path(pathKey)): \(error.message)", utf8Offset: error.offset)
        }
        gzip = path.hasGzipSuffix
        switch try container.decodeIfPresent(Bool.self, forKey: gzipKey) {
        case false? where gzip:
            throw container.issue(
                gzipKey, "\(container.path(gzipKey)) is false, but the path ends in .gz; remove .gz or the gzip setting"
            )
        case true? where !gzip:
            throw container.issue(
                pathKey, "\(container.path(gzipKey)) is true, but the path does not end in .gz; add .gz to the path")
        default: break
        }
        let level = try container.decodeInteger(levelKey, default: nil, in: 0...9)
        if level != nil, !gzip {
            throw container.issue(
                levelKey, "\(container.path(levelKey)) applies only to gzip'd outputs (paths ending in .gz)",
                pointsAtKey: true)
        }
        compressionLevel = level ?? 6
        split = try container.decodeIfPresent(OutputSplit.self, forKey: splitKey)
        if split != nil, !path.contains(.part) {
            throw container.issue(
                pathKey, "\(container.path(pathKey)) must contain {part} when the output is split, to name each file")
        }
        if split == nil, path.contains(.part) {
            let offset = Array(text.utf8).firstRange(of: Array("{part}".utf8))?.lowerBound ?? 0
            throw container.issue(
                pathKey, "{part} in \(container.path(pathKey)) needs a split setting (split: { rows: N })",
                utf8Offset: offset)
        }
    }
}
