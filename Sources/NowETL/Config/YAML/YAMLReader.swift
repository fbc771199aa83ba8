/// Reads YAML text into a ``YAMLDocument`` through libyaml's event parser, refusing what a
/// pipeline file must not contain.
///
/// Accepted: block and flow style (`{ name: x, path: y }`, `[a, b]`), comments, all scalar styles,
/// anchors and aliases (an alias becomes a copy of its anchored node; at most
/// ``maximumAliasExpansion`` nodes are copied in all, so a "billion laughs" file fails fast), and the
/// `!!str` tag (or `!`), which makes a plain scalar a string.
///
/// Refused with a ``ConfigError`` of kind ``ConfigError/Kind/syntax`` and the position:
/// everything libyaml rejects (tabs in indentation, bad indentation, unclosed brackets and quotes,
/// invalid UTF-8), a second document (`---`), duplicate keys, keys that are not scalars, merge keys
/// (`<<`), other tags, and aliases to anchors that were not defined before.
enum YAMLReader {
    /// The most nodes aliases may copy in one file.
    static let maximumAliasExpansion = 10_000

    /// Reads and parses a file.
    ///
    /// - Parameters:
    ///   - path: The file to read; also the name used in errors, as given.
    /// - Throws: ``ConfigError`` of kind ``ConfigError/Kind/unreadableFile`` when the file cannot be
    ///   read, or ``ConfigError/Kind/syntax`` for YAML problems.
    static func read(contentsOf path: String) throws(ConfigError) -> YAMLDocument {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.bytes(ofFile: path, limit: 16 << 20)
        } catch {
            throw ConfigError(
                kind: .unreadableFile, file: path, at: nil,
                message: NowETLError.text(of: error, after: "cannot read the file"))
        }
        return try parse(bytes, file: path)
    }

    /// Parses YAML text.
    ///
    /// - Parameters:
    ///   - bytes: The text, UTF-8 (libyaml also detects UTF-16 with a byte order mark).
    ///   - file: The name used in errors.
    /// - Throws: ``ConfigError`` of kind ``ConfigError/Kind/syntax``.
    static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> YAMLDocument {
        var builder = TreeBuilder(file: file, source: SourceText(bytes: bytes))
        let parser = LibYAMLParser(bytes: bytes)
        while true {
            let event: LibYAMLParser.Event
            do {
                event = try parser.next()
            } catch {
                throw builder.error(for: error)
            }
            if case .streamEnd = event { break }
            try builder.consume(event)
        }
        let root = builder.root ?? YAMLNode(.scalar(.init(text: "", style: .plain)), mark: .init(line: 1, column: 1))
        return YAMLDocument(file: file, root: root, source: bytes, isEmpty: builder.root == nil)
    }
}

/// Builds the node tree from libyaml events.
private struct TreeBuilder {
    enum Frame {
        case sequence(mark: YAMLNode.Mark, anchor: String?, items: [YAMLNode])
        case mapping(mark: YAMLNode.Mark, anchor: String?, entries: [YAMLNode.Entry], pendingKey: YAMLNode.Entry?)
    }

    let file: String
    let source: SourceText
    var stack: [Frame] = []
    var anchors: [String: YAMLNode] = [:]
    var copiedNodes = 0
    var documents = 0
    var root: YAMLNode?

    init(file: String, source: SourceText) {
        self.file = file
        self.source = source
    }

    mutating func consume(_ event: LibYAMLParser.Event) throws(ConfigError) {
        switch event {
        case .streamStart, .streamEnd, .documentEnd:
            break
        case .documentStart(let mark):
            documents += 1
            if documents > 1 {
                throw syntax(
                    at: mark, "a pipeline file holds one YAML document, but a second one starts here; remove the '---'")
            }
        case .alias(let anchor, let mark, let end):
            guard var node = anchors[anchor] else {
                throw syntax(at: mark, "alias '*\(anchor)' refers to no anchor defined before it")
            }
            copiedNodes += node.nodeCount
            if copiedNodes > YAMLReader.maximumAliasExpansion {
                throw syntax(
                    at: mark, "aliases expand to more than \(YAMLReader.maximumAliasExpansion) nodes; simplify the file"
                )
            }
            node.mark = mark
            node.endMark = end
            try add(node, anchor: nil)
        case .scalar(let scalar):
            var isPlain = scalar.style == .plain
            if let tag = scalar.tag {
                guard tag == "tag:yaml.org,2002:str" || tag == "!" else { throw unsupportedTag(tag, at: scalar.mark) }
                isPlain = false
            }
            let node = YAMLNode(
                .scalar(.init(text: scalar.text, style: scalar.style, isPlain: isPlain)), mark: scalar.mark,
                endMark: scalar.end)
            try add(node, anchor: scalar.anchor)
        case .sequenceStart(let start):
            try checkCollection(start, allowedTag: "tag:yaml.org,2002:seq")
            stack.append(.sequence(mark: start.mark, anchor: start.anchor, items: []))
        case .mappingStart(let start):
            try checkCollection(start, allowedTag: "tag:yaml.org,2002:map")
            stack.append(.mapping(mark: start.mark, anchor: start.anchor, entries: [], pendingKey: nil))
        case .sequenceEnd(let end):
            guard case .sequence(let mark, let anchor, let items) = stack.popLast() else { return }
            try add(YAMLNode(.sequence(items), mark: mark, endMark: end), anchor: anchor)
        case .mappingEnd(let end):
            guard case .mapping(let mark, let anchor, let entries, _) = stack.popLast() else { return }
            try add(YAMLNode(.mapping(entries), mark: mark, endMark: end), anchor: anchor)
        }
    }

    private mutating func add(_ node: YAMLNode, anchor: String?) throws(ConfigError) {
        if let anchor { anchors[anchor] = node }
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(let mark, let anchor, var items):
            items.append(node)
            stack.append(.sequence(mark: mark, anchor: anchor, items: items))
        case .mapping(let mark, let anchor, var entries, let pendingKey):
            if var entry = pendingKey {
                entry.value = node
                entries.append(entry)
                stack.append(.mapping(mark: mark, anchor: anchor, entries: entries, pendingKey: nil))
                return
            }
            stack.append(top)
            guard let scalar = node.scalar else {
                throw syntax(at: node.mark, "mapping keys must be plain text, not lists or mappings")
            }
            if scalar.isPlain && scalar.text == "<<" {
                throw syntax(at: node.mark, "YAML merge keys (<<) are not supported in pipeline files; repeat the keys")
            }
            if let first = entries.first(where: { $0.key == scalar.text }) {
                throw syntax(
                    at: node.mark,
                    "duplicate key '\(scalar.text)' \(currentPath.inPhrase) (first at line \(first.keyMark.line), "
                        + "column \(first.keyMark.column))")
            }
            let key = YAMLNode.Entry(key: scalar.text, keyMark: node.mark, value: node)
            stack[stack.count - 1] = .mapping(mark: mark, anchor: anchor, entries: entries, pendingKey: key)
        }
    }

    /// The path of the collection on top of the stack.
    private var currentPath: ConfigPath {
        var path = ConfigPath()
        for frame in stack.dropLast() {
            switch frame {
            case .sequence(_, _, let items): path = path.appending(.index(items.count))
            case .mapping(_, _, _, let pendingKey): path = path.appending(.key(pendingKey?.key ?? "?"))
            }
        }
        return path
    }

    private func checkCollection(_ start: LibYAMLParser.Collection, allowedTag: String) throws(ConfigError) {
        if let tag = start.tag, tag != allowedTag, tag != "!" { throw unsupportedTag(tag, at: start.mark) }
    }

    private func unsupportedTag(_ tag: String, at mark: YAMLNode.Mark) -> ConfigError {
        let shown = tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst("tag:yaml.org,2002:".count) : tag
        return syntax(at: mark, "YAML tags such as '\(shown)' are not supported in pipeline files (only !!str)")
    }

    private func syntax(at mark: YAMLNode.Mark, _ message: String) -> ConfigError {
        ConfigError(kind: .syntax, file: file, at: mark, message: message)
    }

    /// libyaml's failure as a positioned error, with hints for the common causes.
    func error(for failure: LibYAMLParser.Failure) -> ConfigError {
        switch failure.stage {
        case .reader(let offset, let value):
            let mark = source.mark(ofByteOffset: offset)
            let byte = value >= 0 ? " (byte 0x\(String(value, radix: 16, uppercase: true)))" : ""
            return syntax(at: mark, "the file is not valid UTF-8: \(failure.problem)\(byte)")
        case .other:
            return ConfigError(kind: .syntax, file: file, at: nil, message: failure.problem)
        case .grammar(let reported):
            // At the end of a text without a final line break libyaml puts the end of the stream on the
            // line after the last: name the end of the last line instead, a place an editor can open.
            let mark = source.line(reported.line) == nil ? source.endMark : reported
            if source.character(at: mark) == "\t" {
                return syntax(at: mark, "found a tab character where YAML expects indentation; indent with spaces")
            }
            var message = failure.problem
            if source.character(at: mark) == "{",
                source.character(at: YAMLNode.Mark(line: mark.line, column: mark.column - 1)) == "$"
            {
                return syntax(
                    at: YAMLNode.Mark(line: mark.line, column: mark.column - 1),
                    "\(message); inside { } and [ ], quote values that use ${VAR}: \"${VAR}\"")
            }
            if let context = failure.context, let contextMark = failure.contextMark, contextMark != mark {
                message += " (\(context) at line \(contextMark.line), column \(contextMark.column))"
            }
            if failure.problem == "did not find expected key" || failure.problem.hasPrefix("mapping values are not") {
                message += "; check the indentation, and quote values that contain ': '"
            }
            return syntax(at: mark, message)
        }
    }
}
