@testable import NowETL

/// Pipeline YAML through ``PipelineLoader/loadLocated(text:file:environment:)``: a configuration, or a
/// ``ConfigError`` about this file whose line and column lie in the text (every failure names a place
/// the user can open).
enum PipelineYAMLCheck {
    static let file = "pipeline.yaml"
    static let environment = [
        "SN_INSTANCE": "https://example.service-now.com", "SN_USER": "etl", "SN_PASSWORD": "fuzz-password",
        "HOME": "/nonexistent",
    ]

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let text = String(decoding: bytes, as: UTF8.self)
        // `*_file` keys read files: a device or FIFO (`/dev/stdin`, `/dev/tty`) would block for a reason
        // that is the operator's choice, not a fault of the loader.
        if text.contains("/dev/") { return nil }
        do {
            _ = try PipelineLoader.loadLocated(text: text, file: file, environment: environment)
        } catch {
            return place(of: error, in: text)
        }
        return nil
    }

    /// `nil` when the error's line and column (if any) lie in `text`; lines end where libyaml ends them
    /// (LF, CR, CR LF, NEL, LS, PS), so every such scalar may start one.
    static func place(of error: ConfigError, in text: String) -> FuzzFailure? {
        guard error.file == file else { return nil }  // about another file (a `*_file` secret)
        let breaks = text.unicodeScalars.reduce(0) { count, scalar in
            switch scalar {
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": count + 1
            default: count
            }
        }
        if let line = error.line, !(1...(breaks + 1)).contains(line) {
            return FuzzFailure("line \(line) outside the text's \(breaks + 1) lines: \(error)")
        }
        if let column = error.column, column < 1 {
            return FuzzFailure("column \(column) before the line: \(error)")
        }
        if error.column != nil && error.line == nil {
            return FuzzFailure("a column without a line: \(error)")
        }
        return nil
    }
}

/// `.env` text through ``DotEnvFile/parse(_:path:)``: what it reads, written back as `NAME="value"`
/// lines with the escapes the format defines, reads the same; what it refuses is a ``ConfigError`` at
/// a line and column of the text.
enum DotEnvCheck {
    static let file = ".env"

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let parsed: DotEnvFile
        do {
            parsed = try DotEnvFile.parse(bytes, path: file)
        } catch {
            guard error.file == file else { return FuzzFailure("the error names another file: \(error)") }
            if let line = error.line {
                let lines = bytes.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
                guard (1...lines).contains(line), (error.column ?? 1) >= 1 else {
                    return FuzzFailure("error outside the \(lines) lines: \(error)")
                }
            }
            return nil
        }
        var written = ""
        for (name, value) in parsed.values.sorted(by: { $0.key < $1.key }) {
            written += "\(name)=\"\(escaped(value))\"\n"
        }
        let reread: DotEnvFile
        do {
            reread = try DotEnvFile.parse(Array(written.utf8), path: file)
        } catch {
            return FuzzFailure("the values written back do not parse: \(error)\n\(written.debugDescription)")
        }
        guard reread.values == parsed.values else {
            return FuzzFailure("written back, the values read differently: \(written.debugDescription)")
        }
        return nil
    }

    /// `value` for a double-quoted `.env` value: `\`, `"` and `$` escaped, line breaks and tabs as
    /// `\n`, `\r`, `\t`.
    static func escaped(_ value: String) -> String {
        value.replacingScalars {
            switch $0 {
            case "\\": "\\\\"
            case "\"": "\\\""
            case "$": "\\$"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            default: nil
            }
        }
    }
}
