/// One node of a parsed YAML document: a scalar, a sequence or a mapping, with where it starts.
///
/// The tree is deliberately small: it keeps what a strict configuration decoder needs and nothing
/// else. Scalars keep their text exactly as libyaml delivered it (escapes resolved, no type
/// guessing) together with their ``Scalar/Style``, so a decoder can tell `"1"` from `1` and refuse
/// `yes` where a boolean is expected. Aliases (`*name`) are resolved while reading: the alias
/// becomes a copy of the anchored node whose top ``mark`` is the alias's position.
struct YAMLNode: Sendable, Hashable {
    /// A position in a YAML text: 1-based line and column.
    ///
    /// Columns count Unicode scalars (characters as libyaml counts them), not bytes, so a
    /// position on a line with `é` still points at the right character in an editor.
    struct Mark: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The 1-based line.
        var line: Int
        /// The 1-based column, in Unicode scalars.
        var column: Int

        /// Creates a mark.
        init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        /// Document order: earlier lines first, then earlier columns.
        static func < (lhs: Mark, rhs: Mark) -> Bool {
            (lhs.line, lhs.column) < (rhs.line, rhs.column)
        }

        /// `line:column`.
        var description: String { "\(line):\(column)" }
    }

    /// A scalar's text and how it was written.
    struct Scalar: Sendable, Hashable {
        /// How a scalar was written in the file.
        enum Style: Sendable, Hashable {
            /// Unquoted: `incident`, `1000`, `true`.
            case plain
            /// `'…'` (`''` stands for one quote).
            case singleQuoted
            /// `"…"` with backslash escapes.
            case doubleQuoted
            /// A `|` block.
            case literal
            /// A `>` block.
            case folded
        }

        /// The value with quoting and escapes resolved; no `${VAR}` substitution yet.
        var text: String
        /// How the scalar was written.
        var style: Style
        /// Whether the scalar may be read as a number, boolean or null: written plain and without
        /// the `!!str` (or `!`) tag. Quoted and block scalars are always strings.
        var isPlain: Bool

        /// Creates a scalar; `isPlain` defaults to whether `style` is ``Style/plain``.
        init(text: String, style: Style, isPlain: Bool? = nil) {
            self.text = text
            self.style = style
            self.isPlain = isPlain ?? (style == .plain)
        }

        /// Whether this is YAML's null: an empty plain scalar, `~`, `null`, `Null` or `NULL`.
        var isNull: Bool {
            isPlain && (text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL")
        }
    }

    /// One `key: value` pair of a mapping; keys are always scalars.
    struct Entry: Sendable, Hashable {
        /// The key's text.
        var key: String
        /// Where the key starts.
        var keyMark: Mark
        /// The value.
        var value: YAMLNode
    }

    /// What a node holds.
    enum Content: Sendable, Hashable {
        /// A scalar.
        case scalar(Scalar)
        /// A sequence (`- a` or `[a, b]`), in order.
        case sequence([YAMLNode])
        /// A mapping (`k: v` or `{k: v}`), in file order; keys are unique.
        case mapping([Entry])
    }

    /// What the node holds.
    var content: Content
    /// Where the node starts (for a block mapping: its first key; for flow collections: the bracket).
    var mark: Mark
    /// Where the node ends (exclusive); for scalars, the position after the closing quote.
    var endMark: Mark

    /// Creates a node.
    init(_ content: Content, mark: Mark, endMark: Mark? = nil) {
        self.content = content
        self.mark = mark
        self.endMark = endMark ?? mark
    }

    /// The scalar, if this node is one.
    var scalar: Scalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    /// The mapping's entries, if this node is a mapping.
    var entries: [Entry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// The sequence's items, if this node is a sequence.
    var items: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// The value for `key`, if this node is a mapping that has it.
    subscript(key: String) -> YAMLNode? {
        entries?.first { $0.key == key }?.value
    }

    /// How many nodes this subtree holds (itself included).
    var nodeCount: Int {
        switch content {
        case .scalar: 1
        case .sequence(let items): items.reduce(1) { $0 + $1.nodeCount }
        case .mapping(let entries): entries.reduce(1) { $0 + 1 + $1.value.nodeCount }
        }
    }
}
