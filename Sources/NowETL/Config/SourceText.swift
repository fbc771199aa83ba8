/// The raw text of a YAML file, for turning positions into lines and columns the way libyaml
/// counts them (line breaks `\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029; columns in Unicode scalars).
///
/// Used only on error paths, so it favours simplicity over speed.
struct SourceText {
    let bytes: [UInt8]

    /// The Unicode scalars of a 1-based line, without its line break; `nil` past the end.
    func line(_ number: Int) -> [Unicode.Scalar]? {
        let lines = self.lines
        return lines.indices.contains(number - 1) ? lines[number - 1] : nil
    }

    /// Every line without its line break; a text ending in a break ends with an empty line.
    private var lines: [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = [[]]
        var previousWasCR = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if Self.isBreak(scalar) {
                lines.append([])
            } else {
                lines[lines.count - 1].append(scalar)
            }
        }
        return lines
    }

    /// The position after the last character: the last line, the column after its last scalar.
    var endMark: YAMLNode.Mark {
        let lines = self.lines
        return YAMLNode.Mark(line: lines.count, column: (lines.last?.count ?? 0) + 1)
    }

    /// The character at a mark, if the mark is inside a line.
    func character(at mark: YAMLNode.Mark) -> Unicode.Scalar? {
        guard let line = line(mark.line), mark.column >= 1, mark.column <= line.count else { return nil }
        return line[mark.column - 1]
    }

    /// The line and column of a 0-based byte offset (for libyaml's reader errors).
    func mark(ofByteOffset offset: Int) -> YAMLNode.Mark {
        var line = 1
        var column = 1
        var index = 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if byte == 0x0D {
                // The \r of \r\n: the \n ends the line.
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return YAMLNode.Mark(line: line, column: column)
    }

    static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
