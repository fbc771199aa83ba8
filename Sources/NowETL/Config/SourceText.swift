/// The raw text of a YAML file, for turning positions into lines and columns the way libyaml
/// counts them (line breaks `\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029; columns in Unicode scalars).
///
/// Used only on error paths, so it favours simplicity over speed.
struct SourceText {
    let bytes: [UInt8]

    /// The Unicode scalars of a 1-based line, without its line break; `nil` past the end.
    func line(_ number: Int) -> [Unicode.Scalar]? {
        guard number >= 1 else { return nil }
        var current = 1
        var scalars: [Unicode.Scalar] = []
        var previousWasCR = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if Self.isBreak(scalar) {
                if current == number { return scalars }
                current += 1
                continue
            }
            if current == number { scalars.append(scalar) }
        }
        return current == number ? scalars : nil
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
