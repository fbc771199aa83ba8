extension YAMLDocument {
    /// The line and column of the character at a UTF-8 offset inside a scalar's value.
    ///
    /// Exact for plain, single-quoted and double-quoted scalars written on one line (quotes, `''`
    /// and backslash escapes are accounted for); for block scalars, scalars spanning lines, nodes
    /// that are not scalars, and trees without their source text it is the node's start. An offset
    /// at or past the end of the value points just after the last character.
    ///
    /// - Parameters:
    ///   - offset: 0-based UTF-8 byte offset into ``YAMLNode/Scalar/text``.
    ///   - node: A scalar node of this document.
    func position(ofUTF8Offset offset: Int, in node: YAMLNode) -> YAMLNode.Mark {
        guard let scalar = node.scalar, node.mark.line == node.endMark.line, !source.isEmpty,
            let line = SourceText(bytes: source).line(node.mark.line),
            let columns = Self.columns(of: scalar, startingAt: node.mark.column - 1, in: line)
        else { return node.mark }
        let prefix = scalar.text.utf8.prefix(max(0, offset))
        let index = min(String(decoding: prefix, as: UTF8.self).unicodeScalars.count, columns.count - 1)
        return YAMLNode.Mark(line: node.mark.line, column: columns[index])
    }

    /// The 1-based column of each Unicode scalar of the value, plus the column after the last one;
    /// `nil` when the line does not spell the value (then the caller falls back to the start).
    private static func columns(of scalar: YAMLNode.Scalar, startingAt start: Int, in line: [Unicode.Scalar])
        -> [Int]?
    {
        var columns: [Int] = []
        var index = start
        func at(_ position: Int) -> Unicode.Scalar? { position >= 0 && position < line.count ? line[position] : nil }
        let quote: Unicode.Scalar?
        switch scalar.style {
        case .plain: quote = nil
        case .singleQuoted: quote = "'"
        case .doubleQuoted: quote = "\""
        case .literal, .folded: return nil
        }
        // How many scalars of the line at `index` spell `character` in this style; `nil` if they do not.
        func spelling(_ character: Unicode.Scalar) -> Int? {
            switch quote {
            case "'"? where character == "'":
                return at(index) == "'" && at(index + 1) == "'" ? 2 : nil
            case "\""? where at(index) == "\\":
                guard let (decoded, length) = unescape(line, at: index + 1), decoded == character else { return nil }
                return 1 + length
            default:
                return at(index) == character ? 1 : nil
            }
        }
        if let quote {
            guard at(index) == quote else { return nil }
            index += 1
        }
        for character in scalar.text.unicodeScalars {
            guard let length = spelling(character) else { return nil }
            columns.append(index + 1)
            index += length
        }
        columns.append(index + 1)
        return columns
    }

    /// The character a double-quoted escape stands for and how many characters after the
    /// backslash it spans.
    private static func unescape(_ line: [Unicode.Scalar], at position: Int) -> (Unicode.Scalar, Int)? {
        guard position < line.count else { return nil }
        let simple: [Unicode.Scalar: UInt32] = [
            "0": 0, "a": 7, "b": 8, "t": 9, "\t": 9, "n": 10, "v": 11, "f": 12, "r": 13, "e": 27, " ": 32,
            "\"": 34, "/": 47, "\\": 92, "N": 0x85, "_": 0xA0, "L": 0x2028, "P": 0x2029,
        ]
        let letter = line[position]
        if let value = simple[letter], let decoded = Unicode.Scalar(value) { return (decoded, 1) }
        let digits: Int
        switch letter {
        case "x": digits = 2
        case "u": digits = 4
        case "U": digits = 8
        default: return nil
        }
        guard position + digits < line.count else { return nil }
        let hex = String(String.UnicodeScalarView(line[(position + 1)...(position + digits)]))
        guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
        return (decoded, 1 + digits)
    }
}
