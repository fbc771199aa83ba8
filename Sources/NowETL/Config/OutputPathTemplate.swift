/// An output file path with placeholders, relative to the pipeline's `output_dir`:
/// `"{table}-{run_date}.csv.gz"`.
///
/// Placeholders: `{table}` (the table name), `{run_date}` (the run's `yyyy-MM-dd` in UTC),
/// `{run_id}` (the run's identifier) and, only in outputs with a `split`, `{part}` (the 1-based
/// part number, at least 4 digits). Nothing else may appear between braces, and there is no
/// escape for literal braces.
///
/// Paths are confined to the output directory: absolute paths are refused, as are `..`
/// components that climb above it (`a/../b` is fine). Placeholder values cannot escape either:
/// table names are `[a-z0-9_]+`, and the runner must give `{run_id}` the same alphabet (plus `-`).
public struct OutputPathTemplate: Sendable, Hashable, CustomStringConvertible {
    /// A value a path template can name.
    public enum Placeholder: String, Sendable, Hashable, CaseIterable {
        /// `{table}`.
        case table
        /// `{run_date}`.
        case runDate = "run_date"
        /// `{run_id}`.
        case runID = "run_id"
        /// `{part}`, with `split` only.
        case part
    }

    /// A piece of a template.
    public enum Segment: Sendable, Hashable {
        /// Text copied as it is.
        case literal(String)
        /// A placeholder.
        case placeholder(Placeholder)
    }

    /// Why a template was refused, and the UTF-8 offset of the offending character.
    public struct ParseError: Error, Sendable, Hashable {
        /// What is wrong.
        public var message: String
        /// 0-based UTF-8 offset into the template.
        public var offset: Int
    }

    /// The template as written.
    public let template: String
    /// The template in pieces, in order.
    public let segments: [Segment]

    /// Parses and checks a template.
    ///
    /// - Parameter template: The path as written, relative to the output directory.
    /// - Throws: ``ParseError`` for unknown or unclosed placeholders, absolute paths, paths that
    ///   climb out of the output directory, and paths that name a directory.
    public init(parsing template: String) throws(ParseError) {
        self.template = template
        let bytes = Array(template.utf8)
        guard !bytes.isEmpty else { throw ParseError(message: "the path is empty", offset: 0) }
        guard bytes[0] != UInt8(ascii: "/") else {
            throw ParseError(message: "the path must be relative to output_dir, not absolute", offset: 0)
        }
        guard bytes.last != UInt8(ascii: "/") else {
            throw ParseError(message: "the path must name a file, not a directory", offset: bytes.count - 1)
        }
        var segments: [Segment] = []
        var literal: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "}") {
                throw ParseError(message: "'}' without '{'; placeholders look like {table}", offset: index)
            }
            guard byte == UInt8(ascii: "{") else {
                literal.append(byte)
                index += 1
                continue
            }
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                throw ParseError(message: "'{' is not closed; placeholders look like {table}", offset: index)
            }
            let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            guard let placeholder = Placeholder(rawValue: name) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }
                var message = "unknown placeholder '{\(name)}'"
                if let suggestion = KeySuggestion.closest(to: name, among: Placeholder.allCases.map(\.rawValue)) {
                    message += "; did you mean '{\(suggestion)}'?"
                } else {
                    message += "; use \(known.joined(separator: ", "))"
                }
                throw ParseError(message: message, offset: index)
            }
            if !literal.isEmpty {
                segments.append(.literal(String(decoding: literal, as: UTF8.self)))
                literal.removeAll()
            }
            segments.append(.placeholder(placeholder))
            index = close + 1
        }
        if !literal.isEmpty { segments.append(.literal(String(decoding: literal, as: UTF8.self))) }
        self.segments = segments
        try Self.checkConfinement(bytes)
    }

    /// Refuses `..` components that climb above the output directory.
    private static func checkConfinement(_ bytes: [UInt8]) throws(ParseError) {
        var depth = 0
        var start = 0
        for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
            let component = bytes[start..<end]
            if component.elementsEqual("..".utf8) {
                depth -= 1
                if depth < 0 {
                    throw ParseError(message: "the path climbs out of output_dir with '..'", offset: start)
                }
            } else if !component.isEmpty, !component.elementsEqual(".".utf8) {
                depth += 1
            }
            start = end + 1
        }
    }

    /// Whether the template uses a placeholder.
    public func contains(_ placeholder: Placeholder) -> Bool {
        segments.contains(.placeholder(placeholder))
    }

    /// Whether the file is a gzip file by name (`.gz`).
    public var hasGzipSuffix: Bool { template.hasSuffix(".gz") }

    /// The path with placeholders filled in, relative to the output directory.
    ///
    /// - Parameters:
    ///   - table: The table name.
    ///   - runDate: The run date, `yyyy-MM-dd`.
    ///   - runID: The run identifier (`[A-Za-z0-9_-]+`).
    ///   - part: The 1-based part number for split outputs; written with at least 4 digits.
    public func render(table: String, runDate: String, runID: String, part: Int? = nil) -> String {
        var path = ""
        for segment in segments {
            switch segment {
            case .literal(let text): path += text
            case .placeholder(.table): path += table
            case .placeholder(.runDate): path += runDate
            case .placeholder(.runID): path += runID
            case .placeholder(.part):
                let digits = String(part ?? 1)
                path += String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            }
        }
        return path
    }

    /// The template as written.
    public var description: String { template }
}
