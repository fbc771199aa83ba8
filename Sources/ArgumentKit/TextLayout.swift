/// Word wrapping and the two-column rows of help texts.
enum TextLayout {
    /// The width help texts are wrapped to.
    static let width = 100
    /// Where the second column of an option row starts.
    static let column = 23

    /// `text` wrapped to `width`, each line starting with `indent` (the first with `firstIndent` if given).
    static func wrap(_ text: String, indent: String, firstIndent: String? = nil, width: Int = width) -> [String] {
        var lines: [String] = []
        var line = firstIndent ?? indent
        var lineIsEmpty = true
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if !lineIsEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                lineIsEmpty = true
            }
            line += (lineIsEmpty ? "" : " ") + word
            lineIsEmpty = false
        }
        if !lineIsEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// A row of two columns: `label` at 2, `text` reflowed from ``column`` (below the label when it is too long).
    static func row(_ label: String, _ text: String) -> [String] {
        let start = "  " + label
        let indent = String(repeating: " ", count: column)
        if start.count + 2 > column {
            return [start] + wrap(text, indent: indent)
        }
        let first = start + String(repeating: " ", count: column - start.count)
        return wrap(text, indent: indent, firstIndent: first)
    }

    /// A discussion: paragraphs split at blank lines; indented ones kept as written, the others reflowed.
    static func paragraphs(_ text: String) -> [(text: String, isVerbatim: Bool)] {
        var result: [(String, Bool)] = []
        var current: [Substring] = []
        func flush() {
            guard let first = current.first else { return }
            result.append((current.joined(separator: "\n"), first.hasPrefix("  ")))
            current = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) { flush() } else { current.append(line) }
        }
        flush()
        return result
    }
}
