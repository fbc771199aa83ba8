/// The optional `.env` file beside a pipeline file: `NAME=VALUE` lines that give `${NAME}` values.
///
/// ```sh
/// # nowetl reads this as pipelines/.env for pipelines/*.yaml; keep it private (chmod 600)
/// SN_INSTANCE=https://acme.service-now.com
/// export SN_USER=etl                  # `export` is allowed, so a shell can source the file too
/// SN_PASSWORD='s3cr#t with spaces'    # single quotes: taken exactly as written
/// GREETING="line one\nline two"       # double quotes: \n \t \" \\ are escapes
/// ```
///
/// The rules are the ones docker compose, python-dotenv and shells read alike: blank lines and lines
/// starting with `#` are skipped; a name is a letter or `_` followed by letters, digits and `_`;
/// blanks around `=` are allowed; an unquoted value ends at the end of the line or at ` #`, trailing
/// blanks removed; a quoted value ends at its closing quote on the same line, and only blanks or a
/// comment may follow it. Values are taken as written: `${…}` inside a `.env` value is not expanded.
/// A name given twice is an error (which of two values was meant cannot be guessed), as is any line
/// that is not one of these forms — at the file's line and column, exit 78, never quoting a value.
///
/// Precedence, highest first: `--var NAME=VALUE`, the process environment, the `.env` file. A `.env`
/// that its group or others can read is used, with a warning. The values are never printed.
struct DotEnvFile: Sendable {
    /// The largest `.env` file read, in bytes.
    static let maximumFileSize = 1 << 20

    /// The file, as named in messages (`pipelines/.env`).
    var path: String
    /// The variables it sets.
    var values: [String: String]
    /// A warning when the file is readable by its group or others.
    var warnings: [ConfigWarning]

    /// The `.env` file in the directory of the pipeline file `pipeline`, or `nil` when there is none.
    ///
    /// - Throws: ``ConfigError`` when the file exists but cannot be read or a line is malformed.
    static func read(besidePipeline pipeline: String) throws(ConfigError) -> DotEnvFile? {
        let path = PipelineLoadContext(file: pipeline).resolve(".env")
        let bytes: [UInt8]
        do {
            bytes = try FileContents.bytes(ofFile: path, limit: maximumFileSize)
        } catch {
            if error.isMissingFile { return nil }
            throw ConfigError(
                kind: .unreadableFile, file: path, line: nil, column: nil,
                message: NowETLError.text(of: error, after: "cannot read the .env file beside the pipeline"))
        }
        var file = try parse(bytes, path: path)
        if let permissions = FileContents.readableByGroupOrOthers(path) {
            file.warnings.append(
                ConfigWarning(
                    file: path, line: nil, column: nil,
                    message: "the .env file can be read by its group or others (mode "
                        + "\(FileContents.octal(permissions))); make it private: chmod 600 '\(path)'"))
        }
        return file
    }

    /// Parses `.env` text (see the type's rules); `path` names the file in errors.
    static func parse(_ bytes: [UInt8], path: String) throws(ConfigError) -> DotEnvFile {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(
                kind: .syntax, file: path, line: nil, column: nil, message: "the .env file is not valid UTF-8")
        }
        var values: [String: String] = [:]
        var firstLine: [String: Int] = [:]
        // By scalars: as Characters, "\r\n" is one and would not split at "\n".
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            var line = Array(rawLine)
            if line.last == "\r" { line.removeLast() }
            var parser = LineParser(line: line, file: path, lineNumber: lineNumber)
            guard let (name, value) = try parser.assignment() else { continue }
            if let first = firstLine[name] {
                throw parser.error(
                    at: 0, "\(name) is set twice in the .env file (first on line \(first)); keep one")
            }
            firstLine[name] = lineNumber
            values[name] = value
        }
        return DotEnvFile(path: path, values: values, warnings: [])
    }

    /// Reads one line: `nil` for a blank or comment line, else the name and value.
    private struct LineParser {
        let line: [Unicode.Scalar]
        let file: String
        let lineNumber: Int
        var position = 0

        init(line: [Unicode.Scalar], file: String, lineNumber: Int) {
            self.line = line
            self.file = file
            self.lineNumber = lineNumber
        }

        mutating func assignment() throws(ConfigError) -> (String, String)? {
            skipBlanks()
            if position == line.count || line[position] == "#" { return nil }
            if matches("export"), position + 6 < line.count, isBlank(line[position + 6]) {
                position += 6
                skipBlanks()
            }
            let nameStart = position
            while position < line.count, isNameCharacter(line[position], first: position == nameStart) {
                position += 1
            }
            guard position > nameStart else {
                throw error(at: nameStart, "expected NAME=VALUE, where NAME is a letter or _ then letters, digits, _")
            }
            let name = String(String.UnicodeScalarView(line[nameStart..<position]))
            skipBlanks()
            guard position < line.count, line[position] == "=" else {
                throw error(at: position, "expected '=' after \(name) (a .env line is NAME=VALUE)")
            }
            position += 1
            skipBlanks()
            guard position < line.count else { return (name, "") }
            let value: String
            switch line[position] {
            case "'": value = try quoted(closing: "'", escapes: false, name: name)
            case "\"": value = try quoted(closing: "\"", escapes: true, name: name)
            default: return (name, unquoted())
            }
            skipBlanks()
            guard position == line.count || line[position] == "#" else {
                throw error(
                    at: position, "unexpected text after the quoted value of \(name); put a comment after ' #'")
            }
            return (name, value)
        }

        /// Up to the end of the line or a `#` after a blank, trailing blanks removed.
        private mutating func unquoted() -> String {
            var end = position
            while end < line.count, !(line[end] == "#" && isBlank(line[end - 1])) { end += 1 }
            var last = end
            while last > position, isBlank(line[last - 1]) { last -= 1 }
            defer { position = line.count }
            return String(String.UnicodeScalarView(line[position..<last]))
        }

        private mutating func quoted(closing: Unicode.Scalar, escapes: Bool, name: String) throws(ConfigError)
            -> String
        {
            let opening = position
            position += 1
            var value = String.UnicodeScalarView()
            while position < line.count {
                let scalar = line[position]
                if scalar == closing {
                    position += 1
                    return String(value)
                }
                if escapes, scalar == "\\", position + 1 < line.count {
                    let next = line[position + 1]
                    switch next {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "r": value.append("\r")
                    case "\"", "\\", "$": value.append(next)
                    default: value.append(contentsOf: [scalar, next])
                    }
                    position += 2
                    continue
                }
                value.append(scalar)
                position += 1
            }
            throw error(
                at: opening,
                "the value of \(name) opens a quote that this line does not close "
                    + "(values do not span lines; write \\n inside double quotes)")
        }

        private func matches(_ word: String) -> Bool {
            let scalars = Array(word.unicodeScalars)
            return position + scalars.count <= line.count
                && Array(line[position..<position + scalars.count]) == scalars
        }

        private mutating func skipBlanks() {
            while position < line.count, isBlank(line[position]) { position += 1 }
        }

        private func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

        private func isNameCharacter(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
            switch scalar {
            case "A"..."Z", "a"..."z", "_": return true
            case "0"..."9": return !first
            default: return false
            }
        }

        func error(at index: Int, _ message: String) -> ConfigError {
            ConfigError(kind: .syntax, file: file, line: lineNumber, column: index + 1, message: message)
        }
    }
}
