/// A file path with placeholders, resolved per table inside an output directory.
///
/// Placeholders: `{table}` (the table name), `{run_date}` (the run's UTC start date, `yyyy-MM-dd`),
/// `{run_id}` and `{part}` (the 4-digit part number of a split output, `0001`; `0001` when the output is
/// not split). Anything else in braces is an error when the template is parsed, so a typo fails at
/// `nowetl validate`, not at 02:00.
///
/// The resolved path must stay inside the output directory: it must be relative, and no component may
/// be empty, `.` or `..`; a placeholder's value must not contain `/`. (Symbolic links already inside
/// the output directory are followed: they are the directory owner's choice.)
public struct OutputPathTemplate: Sendable, Hashable, CustomStringConvertible {
    /// A placeholder.
    public enum Placeholder: String, Sendable, Hashable, CaseIterable {
        /// `{table}`.
        case table
        /// `{run_date}`.
        case runDate = "run_date"
        /// `{run_id}`.
        case runID = "run_id"
        /// `{part}`.
        case part
    }

    enum Piece: Sendable, Hashable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The template text as written.
    public let text: String
    let pieces: [Piece]

    /// Parses a template.
    ///
    /// - Throws: ``SinkError`` with ``SinkError/Code/invalidTemplate`` for an unknown placeholder, an
    ///   unmatched brace or an empty template, and ``SinkError/Code/pathOutsideOutputDirectory`` when the
    ///   literal parts already make the path absolute or climb out with `..`.
    public init(_ text: String) throws {
        self.text = text
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(text)
        while let brace = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            literal += rest[..<brace]
            guard rest[brace] == "{", let close = rest[brace...].firstIndex(of: "}") else {
                throw SinkError(.invalidTemplate, path: text, "path template \"\(text)\" has an unmatched brace")
            }
            let name = rest[rest.index(after: brace)..<close]
            guard let placeholder = Placeholder(rawValue: String(name)) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                throw SinkError(
                    .invalidTemplate, path: text,
                    "path template \"\(text)\" has an unknown placeholder {\(name)}; known are \(known)")
            }
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
            pieces.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        guard !pieces.isEmpty else {
            throw SinkError(.invalidTemplate, path: text, "path template is empty")
        }
        self.pieces = pieces
        // Check what can be checked now with harmless placeholder values.
        _ = try resolve(table: "t", runDate: "2000-01-01", runID: "r", part: 1)
    }

    /// Whether the template contains `placeholder`.
    public func contains(_ placeholder: Placeholder) -> Bool {
        pieces.contains(.placeholder(placeholder))
    }

    /// The relative path for these placeholder values, checked to stay inside the output directory.
    ///
    /// - Throws: ``SinkError/Code/pathOutsideOutputDirectory``.
    public func resolve(table: String, runDate: String, runID: String, part: Int) throws -> String {
        var path = ""
        for piece in pieces {
            switch piece {
            case .literal(let text):
                path += text
            case .placeholder(let placeholder):
                let value: String
                switch placeholder {
                case .table: value = table
                case .runDate: value = runDate
                case .runID: value = runID
                case .part: value = Self.partNumber(part)
                }
                guard !value.isEmpty, !value.contains("/"), !value.contains("\0"), value != ".", value != ".."
                else {
                    throw SinkError(
                        .pathOutsideOutputDirectory, path: text,
                        "path template \"\(text)\": {\(placeholder.rawValue)} value \"\(value)\" is empty, "
                            + "contains '/' or is a dot name, so the path would leave its directory")
                }
                path += value
            }
        }
        try Self.checkConfined(path, template: text)
        return path
    }

    /// The part number as it appears in file names: at least four digits (`0001`, …, `9999`, `10000`).
    static func partNumber(_ part: Int) -> String {
        let digits = String(part)
        return digits.count >= 4 ? digits : String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Checks that a relative path stays inside its directory.
    static func checkConfined(_ path: String, template: String) throws {
        guard !path.hasPrefix("/") else {
            throw SinkError(
                .pathOutsideOutputDirectory, path: template,
                "output path \"\(path)\" (from \"\(template)\") is absolute; paths are relative to the output directory"
            )
        }
        guard !path.contains("\0") else {
            throw SinkError(.pathOutsideOutputDirectory, path: template, "output path \"\(path)\" contains NUL")
        }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else {
                throw SinkError(
                    .pathOutsideOutputDirectory, path: template,
                    "output path \"\(path)\" (from \"\(template)\") has an empty, '.' or '..' component; "
                        + "paths must stay inside the output directory")
            }
        }
    }

    /// The template text.
    public var description: String { text }
}
