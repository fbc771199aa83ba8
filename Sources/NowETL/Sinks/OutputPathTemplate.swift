/// An output file path with placeholders, relative to the output directory (a pipeline's
/// `output_dir`): `"{table}-{run_date}.csv.gz"`.
///
/// Placeholders: `{table}` (the table name), `{run_date}` (the run's UTC start date, `yyyy-MM-dd`),
/// `{run_id}` (the run's identifier) and `{part}` (the 1-based part number of a split output, at least
/// four digits: `0001`). Nothing else may appear between braces, and there is no escape for literal
/// braces, so a typo fails when the template is parsed (at `nowetl validate`), not at 02:00.
///
/// **Split outputs.** `{part}` is optional. A split output whose template has no `{part}` gets `-0001`,
/// `-0002`, … before the file's extension (the last one before a final `.gz`):
/// `out/incident.csv.gz` → `out/incident-0001.csv.gz`. An output that is not split renders `{part}` as
/// `0001` (a pipeline file refuses `{part}` without `split`, as a likely mistake).
///
/// **Confinement.** The path must stay inside the output directory: it must be relative, name a file
/// rather than a directory, and no component may be empty, `.` or `..` (not even `a/../b`: the kernel
/// resolves `..` after following symbolic links, so only a path without it is sure to stay inside; one
/// spelling per file also lets a pipeline detect two outputs writing the same file). At
/// ``resolve(table:runDate:runID:part:)`` a placeholder's value must not be empty, a dot name, or hold
/// `/` or NUL. (Symbolic links already inside the output directory are followed: they are the
/// directory owner's choice.)
///
/// **Compression.** A path ending in `.gz` names a gzip file (``hasGzipSuffix``); see
/// ``Compression/inferred(from:)``.
public struct OutputPathTemplate: Sendable, Hashable, CustomStringConvertible {
    /// A value a path template can name.
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

    /// A piece of a template.
    public enum Segment: Sendable, Hashable {
        /// Text copied as it is.
        case literal(String)
        /// A placeholder.
        case placeholder(Placeholder)
    }

    /// Why a template was refused, and where: the UTF-8 offset of the offending character, so that a
    /// pipeline file can point at its line and column.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The kind of mistake.
        public enum Kind: Sendable, Hashable {
            /// Braces or placeholders: an unknown `{placeholder}`, an unmatched brace, an empty template.
            case syntax
            /// Where the path points: absolute, a directory (trailing `/`), or an empty, `.` or `..`
            /// component.
            case location
        }

        /// The kind of mistake.
        public var kind: Kind
        /// What is wrong, for people (without the template itself).
        public var message: String
        /// 0-based UTF-8 offset into ``template`` of the offending character.
        public var offset: Int
        /// The template as written.
        public var template: String

        /// `invalid path template "…": message`.
        public var description: String { "invalid path template \"\(template)\": \(message)" }
    }

    /// The template as written.
    public let text: String
    /// The template in pieces, in order.
    public let segments: [Segment]

    /// Parses and checks a template.
    ///
    /// - Parameter text: The path as written, relative to the output directory.
    /// - Throws: ``ParseError`` for unknown or unclosed placeholders and empty templates
    ///   (``ParseError/Kind/syntax``), and for absolute paths, directories and empty, `.` or `..`
    ///   components (``ParseError/Kind/location``).
    public init(_ text: String) throws(ParseError) {
        self.text = text
        let bytes = Array(text.utf8)
        func fail(_ kind: ParseError.Kind, _ message: String, at offset: Int) -> ParseError {
            ParseError(kind: kind, message: message, offset: offset, template: text)
        }
        guard !bytes.isEmpty else { throw fail(.syntax, "the path is empty", at: 0) }
        var segments: [Segment] = []
        var literal: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "}") {
                throw fail(.syntax, "'}' without '{'; placeholders look like {table}", at: index)
            }
            guard byte == UInt8(ascii: "{") else {
                literal.append(byte)
                index += 1
                continue
            }
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                throw fail(.syntax, "'{' is not closed; placeholders look like {table}", at: index)
            }
            let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            guard let placeholder = Placeholder(rawValue: name) else {
                let names = Placeholder.allCases.map(\.rawValue)
                var message = "unknown placeholder '{\(name)}'"
                if let suggestion = KeySuggestion.closest(to: name, among: names) {
                    message += "; did you mean '{\(suggestion)}'?"
                } else {
                    message += "; use " + names.map { "{\($0)}" }.joined(separator: ", ")
                }
                throw fail(.syntax, message, at: index)
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
        if let (message, offset) = Self.locationProblem(bytes) { throw fail(.location, message, at: offset) }
    }

    /// The first reason why `path` could leave its directory or name no file, with its UTF-8 offset.
    private static func locationProblem(_ path: [UInt8]) -> (message: String, offset: Int)? {
        if path.first == UInt8(ascii: "/") {
            return ("the path must be relative to output_dir, not absolute", 0)
        }
        if path.last == UInt8(ascii: "/") {
            return ("the path must name a file, not a directory", path.count - 1)
        }
        var start = 0
        for end in 0...path.count where end == path.count || path[end] == UInt8(ascii: "/") {
            let component = path[start..<end]
            if component.isEmpty {
                return ("the path has an empty component ('//'); write one '/'", start)
            }
            if component.elementsEqual(".".utf8) {
                return ("'.' is not allowed in the path; leave the './' out", start)
            }
            if component.elementsEqual("..".utf8) {
                return ("'..' is not allowed in the path: it could climb out of output_dir", start)
            }
            if component.contains(0) {
                return (
                    "the path contains a NUL character", start + component.firstIndex(of: 0)! - component.startIndex
                )
            }
            start = end + 1
        }
        return nil
    }

    /// Whether the template uses a placeholder.
    public func contains(_ placeholder: Placeholder) -> Bool {
        segments.contains(.placeholder(placeholder))
    }

    /// Whether the path names a gzip file (it ends in `.gz`).
    public var hasGzipSuffix: Bool { text.hasSuffix(".gz") }

    /// The path for these values, relative to the output directory and checked to stay inside it.
    ///
    /// - Parameters:
    ///   - table: The table name.
    ///   - runDate: The run date, `yyyy-MM-dd`.
    ///   - runID: The run identifier.
    ///   - part: The 1-based part number of a split output, or `nil` when the output is not split.
    ///     Without `{part}` in the template, a part number goes before the extension
    ///     (``insertingPartNumber(_:into:)``); with it, `{part}` is the number (`0001` when `nil`).
    /// - Throws: ``NowETLError`` with ``NowETLError/Code/pathOutsideOutputDirectory`` when a value is
    ///   empty, `.` or `..`, or holds `/` or NUL.
    public func resolve(table: String, runDate: String, runID: String, part: Int? = nil) throws(NowETLError) -> String {
        var path = ""
        for segment in segments {
            switch segment {
            case .literal(let literal):
                path += literal
            case .placeholder(let placeholder):
                let value: String
                switch placeholder {
                case .table: value = table
                case .runDate: value = runDate
                case .runID: value = runID
                case .part: value = Self.partNumber(part ?? 1)
                }
                guard !value.isEmpty, !value.contains("/"), !value.contains("\0"), value != ".", value != ".."
                else {
                    throw NowETLError(
                        .pathOutsideOutputDirectory, path: text,
                        "path template \"\(text)\": {\(placeholder.rawValue)} value \"\(value)\" is empty, "
                            + "contains '/' or is a dot name, so the path would leave its directory")
                }
                path += value
            }
        }
        if let part, !contains(.part) { path = Self.insertingPartNumber(part, into: path) }
        try Self.checkConfined(path, template: text)
        return path
    }

    /// The part number as it appears in file names: at least four digits (`0001`, …, `9999`, `10000`).
    public static func partNumber(_ part: Int) -> String {
        let digits = String(part)
        return digits.count >= 4 ? digits : String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// `out/incident.csv.gz` → `out/incident-0002.csv.gz`: `-` and the ``partNumber(_:)`` go before the
    /// file name's last extension (ignoring a final `.gz`), or at the end of a name without one
    /// (`incident` → `incident-0002`, `.hidden` → `.hidden-0002`).
    public static func insertingPartNumber(_ number: Int, into path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        var name = path[slash...]
        var gz = ""
        if name.hasSuffix(".gz") && name.count > 3 {
            name = name.dropLast(3)
            gz = ".gz"
        }
        let suffix = "-" + partNumber(number)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<slash]) + name[..<dot] + suffix + name[dot...] + gz
        }
        return String(path[..<slash]) + name + suffix + gz
    }

    /// Checks that a relative path stays inside its directory: relative, no empty, `.` or `..`
    /// component, no NUL.
    ///
    /// - Throws: ``NowETLError/Code/pathOutsideOutputDirectory``, naming `template`.
    static func checkConfined(_ path: String, template: String) throws(NowETLError) {
        if let (message, _) = locationProblem(Array(path.utf8)) {
            let origin = path == template ? "" : " (from \"\(template)\")"
            throw NowETLError(
                .pathOutsideOutputDirectory, path: template, "output path \"\(path)\"\(origin): \(message)")
        }
    }

    /// The template as written.
    public var description: String { text }
}
