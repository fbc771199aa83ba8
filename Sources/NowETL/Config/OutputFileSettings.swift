import Foundation

/// The settings every file output has: `path`, `gzip`, `compression`, `level`, `split` (and, for `csv`,
/// `json` and `xml`, `keep_runs`).
///
/// * `path` — an ``OutputPathTemplate``.
/// * `gzip` — whether the file is gzip-compressed. The `.gz` suffix of `path` decides; `gzip` may
///   be written to say so explicitly, but must then agree with the suffix (a `.gz` file that is
///   not compressed, or a compressed one without the suffix, only confuses the next reader).
/// * `compression` — `fast`, `balanced` (the default) or `small` (``Compression/Preset``); only for
///   gzip'd outputs.
/// * `level` — zlib's gzip level 0…9, its bytes exactly as before `compression` existed; only for gzip'd
///   outputs, and not with `compression`.
/// * `split` — a ``SplitPolicy``. The path may contain `{part}` to place the part number; without it,
///   parts are named `-0001`, `-0002`, … before the extension. `{part}` without `split` is refused.
/// * `keep_runs` — how many committed runs' files of a per-run path (`{run_id}` or `{run_date}`) stay;
///   older ones are removed after each commit (``RunRetention``). At least 1; refused on a path without a
///   per-run placeholder (there is only ever one run's file) and on outputs whose format does not list it.
///
/// The types are the sinks' own, so an output maps to a ``FileSinkOptions`` as it is
/// (``fileSinkOptions(outputDirectory:fileMode:)``).
public struct OutputFileSettings: Sendable, Hashable {
    /// Where the file goes, relative to `output_dir`.
    public var path: OutputPathTemplate
    /// gzip as configured when the path ends in `.gz`, otherwise ``Compression/none``.
    public var compression: Compression
    /// When to start a new file (default ``SplitPolicy/none``, one file per table).
    public var split: SplitPolicy
    /// `keep_runs`: how many committed runs' files to keep (``RunRetention``); `nil` keeps every run's.
    public var keepRuns: Int?

    /// Creates settings; compression follows the path's `.gz` suffix: zlib at `compressionLevel`, or
    /// ``Compression/gzipDefault`` without one.
    public init(
        path: OutputPathTemplate, compressionLevel: Int? = nil, split: SplitPolicy = .none, keepRuns: Int? = nil
    ) {
        self.path = path
        self.compression =
            path.hasGzipSuffix ? compressionLevel.map { .gzip(level: $0) } ?? .gzipDefault : .none
        self.split = split
        self.keepRuns = keepRuns
    }

    /// The sink options for these settings under `outputDirectory` (the pipeline's `output_dir`), for
    /// files of `fileMode` (the pipeline's `file_mode`).
    public func fileSinkOptions(outputDirectory: String, fileMode: mode_t = 0o640) -> FileSinkOptions {
        FileSinkOptions(
            outputDirectory: outputDirectory, path: path, compression: compression, split: split, fileMode: fileMode)
    }

    /// Decodes the shared keys of an output mapping whose key type also has `path`, `gzip`,
    /// `compression`, `level` and `split`.
    init<Key: CodingKey>(from container: KeyedDecodingContainer<Key>) throws {
        let pathKey = Key(stringValue: "path")!
        let gzipKey = Key(stringValue: "gzip")!
        let levelKey = Key(stringValue: "level")!
        let presetKey = Key(stringValue: "compression")!
        let splitKey = Key(stringValue: "split")!
        let text = try container.decode(String.self, forKey: pathKey)
        do {
            path = try OutputPathTemplate(text)
        } catch {
            throw container.issue(
                pathKey, "invalid path in \(container.path(pathKey)): \(error.message)", utf8Offset: error.offset)
        }
        let gzip = path.hasGzipSuffix
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
        let preset = try container.decodeIfPresent(Compression.Preset.self, forKey: presetKey)
        for (key, given) in [(presetKey, preset != nil), (levelKey, level != nil)] where given && !gzip {
            throw container.issue(
                key, "\(container.path(key)) applies only to gzip'd outputs (paths ending in .gz)", pointsAtKey: true)
        }
        if let preset, level != nil {
            throw container.issue(
                levelKey,
                "\(container.path(levelKey)) and compression: \(preset.rawValue) both choose the gzip engine; keep "
                    + "one (level: 0…9 is zlib's level, as before compression: existed)",
                pointsAtKey: true)
        }
        compression = gzip ? level.map { .gzip(level: $0) } ?? preset?.compression ?? .gzipDefault : .none
        split = try container.decode(splitKey, default: SplitPolicy.none)
        if split == .none, path.contains(.part) {
            let offset = Array(text.utf8).firstRange(of: Array("{part}".utf8))?.lowerBound ?? 0
            throw container.issue(
                pathKey, "{part} in \(container.path(pathKey)) needs a split setting (split: { rows: N })",
                utf8Offset: offset)
        }
        keepRuns = try Key(stringValue: "keep_runs").flatMap { try RunRetention.decodeKeepRuns($0, path, container) }
    }
}
