/// A parsed pipeline file: its name, its node tree and its text (kept for precise error positions).
struct YAMLDocument: Sendable {
    /// The file name used in messages (`pipelines/x.yaml`), as given to the reader.
    var file: String
    /// The root node; an empty plain scalar when the file holds no document.
    var root: YAMLNode
    /// Whether the file held no YAML document at all (only comments or whitespace).
    var isEmpty: Bool
    /// The raw bytes, to map a position inside a scalar's value back to a line and column.
    let source: [UInt8]

    /// Creates a document from a tree (for tests and for callers building trees by hand).
    ///
    /// Positions inside scalars (``position(ofUTF8Offset:in:)``) need the `source` text the tree
    /// was read from; without it they fall back to the scalar's start.
    init(file: String, root: YAMLNode, source: [UInt8] = [], isEmpty: Bool = false) {
        self.file = file
        self.root = root
        self.source = source
        self.isEmpty = isEmpty
    }
}
