/// A file a sink committed: where it is, what it holds, and its checksum.
public struct OutputFile: Sendable, Hashable, Codable {
    /// The path relative to the sink's output directory, with `/` separators (`out/incident-0001.csv.gz`).
    public var path: String
    /// The absolute path.
    public var absolutePath: String
    /// The table whose rows the file holds.
    public var table: String
    /// The format: `csv`, `xml-records`, `xml-unload`, `jsonl` or `json`.
    public var format: String
    /// The part number (1, 2, …) when the output is split, otherwise `nil`.
    public var part: Int?
    /// The number of data rows (records) in the file, not counting a header.
    public var rows: Int
    /// The size of the file in bytes (compressed size for gzip).
    public var bytes: Int
    /// SHA-256 of the file's bytes, 64 lowercase hex digits (what `sha256sum` prints).
    public var sha256: String

    /// Creates a description of a file.
    public init(
        path: String, absolutePath: String, table: String, format: String, part: Int?, rows: Int, bytes: Int,
        sha256: String
    ) {
        self.path = path
        self.absolutePath = absolutePath
        self.table = table
        self.format = format
        self.part = part
        self.rows = rows
        self.bytes = bytes
        self.sha256 = sha256
    }
}
