/// A file a sink committed: what the manifest lists of it (``Manifest/File``: its path relative to the
/// output directory, table, format, part, rows, size and checksum) and where it is.
///
/// The entry's fields read as the file's own (`file.rows`, `file.sha256`).
@dynamicMemberLookup
public struct OutputFile: Sendable, Hashable, Codable {
    /// What the manifest lists.
    public var entry: Manifest.File
    /// The absolute path.
    public var absolutePath: String

    /// Creates a description of a file: `path` relative to the sink's output directory, with `/`
    /// separators (`out/incident-0001.csv.gz`); `format` `csv`, `xml-records`, `xml-unload`, `jsonl`
    /// or `json`; `part` 1, 2, … for a split output, else `nil`; `rows` not counting a header; `bytes`
    /// on disk (compressed for gzip); `sha256` in lowercase hex (what `sha256sum` prints).
    public init(
        path: String, absolutePath: String, table: String, format: String, part: Int?, rows: Int, bytes: Int,
        sha256: String
    ) {
        entry = Manifest.File(
            path: path, table: table, format: format, part: part, rows: rows, bytes: bytes, sha256: sha256)
        self.absolutePath = absolutePath
    }

    /// The file `entry` describes, at `absolutePath`.
    init(entry: Manifest.File, absolutePath: String) {
        self.entry = entry
        self.absolutePath = absolutePath
    }

    /// A field of the manifest entry (``Manifest/File``).
    public subscript<Value>(dynamicMember field: WritableKeyPath<Manifest.File, Value>) -> Value {
        get { entry[keyPath: field] }
        set { entry[keyPath: field] = newValue }
    }
}
