import Foundation
import NowData

/// Writes `nowetl`'s log lines to a ``Console`` (standard error): `key=value` text by default, JSON
/// lines with `--log-format json`, with a level threshold and secrets redacted.
///
/// ```
/// time=2024-03-01T02:00:04Z level=info msg="table finished" run_id=20240301T020000Z-7f3a table=incident rows=2000
/// {"time":"2024-03-01T02:00:04Z","level":"info","msg":"table finished","run_id":"…","table":"incident","rows":2000}
/// ```
///
/// Redaction is a second line of defence: the messages nowetl writes never contain credentials, but
/// an error from below might (a server echoing a header, a URL). Every whole occurrence of a secret
/// value in a message or field becomes `<redacted>`: the secret not running on into letters, digits or
/// `_` on either side, so a password `incident` is found in `password incident rejected`,
/// `https://etl:incident@host` or `Authorization: incident`, but leaves `incident_task` and
/// `incidents` alone. The secrets' URL-encoded forms count as well. The fields that carry the
/// pipeline's own identifiers (``identifierFields``, such as `table`) and fields whose value is a
/// number or boolean (``LogValue``, or text of digits) are written as they are: they never come from
/// below, and redacting them because a password happens to be a table name garbles the log without
/// hiding anything.
///
/// Field values are typed (``LogFieldValue``): JSON lines write an `Int` as a JSON number and a `Bool`
/// as `true`/`false`, text as a string; text lines write all of them as their text.
public struct RunLogger: Sendable {
    /// The line format.
    public var format: LogFormat
    /// Lines below this level are dropped.
    public var minimumLevel: LogLevel
    /// Values that must never appear in a line (passwords, client secrets and their URL-encoded
    /// forms), longest first. Tokens obtained while the process runs (``RuntimeSecrets``) are redacted
    /// as well.
    public var secrets: [String]
    /// Where lines go.
    public let console: Console
    /// The clock for the `time` field.
    public var now: @Sendable () -> Date

    /// Secrets shorter than this are not redacted: replacing every `a` in a line would garble the
    /// log without protecting anything (a three-character password is guessed, not leaked).
    public static let shortestRedactedSecret = 4

    /// The fields whose values are the pipeline's own identifiers (table names, the run id), written
    /// without redaction.
    public static let identifierFields: Set<String> = ["table", "tables", "journal_tables", "run_id"]

    /// Creates a logger.
    public init(
        format: LogFormat = .text, minimumLevel: LogLevel = .info, secrets: [String] = [], console: Console,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.format = format
        self.minimumLevel = minimumLevel
        var all: Set<String> = []
        for secret in secrets where secret.count >= Self.shortestRedactedSecret {
            all.insert(secret)
            // As it stands in a URL's user info or query (`p@ss` as `p%40ss`).
            for allowed in [CharacterSet.urlPasswordAllowed, .urlQueryAllowed] {
                if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) { all.insert(encoded) }
            }
        }
        self.secrets = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        self.console = console
        self.now = now
    }

    /// Logs `message` with `fields` (in the order given) at `level`.
    public func log(_ level: LogLevel, _ message: String, _ fields: [(String, any LogFieldValue)] = []) {
        guard level >= minimumLevel else { return }
        let line = Self.line(
            format: format, time: now(), level: level, message: redact(message),
            fields: fields.map { key, value in
                let value = value.logValue
                guard case .string(let text) = value, !Self.isPublic(key, text) else { return (key, value) }
                return (key, .string(redact(text)))
            })
        console.writeLine(line)
    }

    /// Logs at ``LogLevel/debug``.
    public func debug(_ message: String, _ fields: [(String, any LogFieldValue)] = []) { log(.debug, message, fields) }
    /// Logs at ``LogLevel/info``.
    public func info(_ message: String, _ fields: [(String, any LogFieldValue)] = []) { log(.info, message, fields) }
    /// Logs at ``LogLevel/warning``.
    public func warning(_ message: String, _ fields: [(String, any LogFieldValue)] = []) {
        log(.warning, message, fields)
    }
    /// Logs at ``LogLevel/error``.
    public func error(_ message: String, _ fields: [(String, any LogFieldValue)] = []) { log(.error, message, fields) }

    /// `text` with every whole occurrence of a secret replaced by `<redacted>` (see the type's
    /// documentation); where secrets overlap, the longer one is replaced.
    public func redact(_ text: String) -> String {
        var found: [Range<String.Index>] = []
        let runtime = RuntimeSecrets.all
        for secret in runtime.isEmpty ? secrets : (runtime + secrets).sorted(by: { $0.count > $1.count }) {
            var start = text.startIndex
            while start < text.endIndex, let range = text.range(of: secret, range: start..<text.endIndex) {
                if Self.isWhole(range, in: text), !found.contains(where: { $0.overlaps(range) }) {
                    found.append(range)
                    start = range.upperBound
                } else {
                    start = text.index(after: range.lowerBound)
                }
            }
        }
        guard !found.isEmpty else { return text }
        var redacted = ""
        var cursor = text.startIndex
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            redacted += text[cursor..<range.lowerBound]
            redacted += "<redacted>"
            cursor = range.upperBound
        }
        return redacted + text[cursor...]
    }

    /// Whether `range` of `text` stands on its own: where it begins (ends) with a word character
    /// (letter, digit, `_`), the character before (after) it is none.
    static func isWhole(_ range: Range<String.Index>, in text: String) -> Bool {
        if range.lowerBound > text.startIndex, let first = text[range].first, isWordCharacter(first),
            isWordCharacter(text[text.index(before: range.lowerBound)])
        {
            return false
        }
        if range.upperBound < text.endIndex, let last = text[range].last, isWordCharacter(last),
            isWordCharacter(text[range.upperBound])
        {
            return false
        }
        return true
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// Whether a text field is written without redaction: an identifier field, or text of a number.
    private static func isPublic(_ key: String, _ value: String) -> Bool {
        if identifierFields.contains(key) { return true }
        return !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }
    }

    /// One log line without the line break (a pure function: the format itself).
    ///
    /// Text: `time=… level=… msg=…` then the fields; a value is quoted (with `\"`, `\\`, `\n`, `\r`,
    /// `\t` escaped) when it is empty or holds a space, `=`, a quote or a control character. JSON: one
    /// object with `time`, `level`, `msg` and the fields — text as strings (escaped as ``JSONText``
    /// does), numbers as numbers (`null` for a ``LogValue/number(_:)`` that is none), booleans as
    /// `true`/`false` (a field named like those three comes out as `field.time` and so on
    /// rather than replacing them).
    public static func line(
        format: LogFormat, time: Date, level: LogLevel, message: String, fields: [(String, LogValue)]
    ) -> String {
        let timestamp = timestamp(time)
        switch format {
        case .text:
            var line = "time=\(timestamp) level=\(level.rawValue) msg=\(textValue(message))"
            for (key, value) in fields {
                line += " \(key)=\(textValue(value.description))"
            }
            return line
        case .json:
            var line = "{\"time\":\(JSONText.quoted(timestamp)),\"level\":\(JSONText.quoted(level.rawValue))"
            line += ",\"msg\":\(JSONText.quoted(message))"
            for (key, value) in fields {
                let name = ["time", "level", "msg"].contains(key) ? "field.\(key)" : key
                switch value {
                case .string(let text): line += ",\(JSONText.quoted(name)):\(JSONText.quoted(text))"
                // Text that is no JSON number (`-` for a time not measured) is no number: null.
                case .number(let text): line += ",\(JSONText.quoted(name)):\(JSONText.isNumber(text) ? text : "null")"
                case .int, .bool: line += ",\(JSONText.quoted(name)):\(value.description)"
                }
            }
            return Self.jsonEscapingTerminalControls(line + "}")
        }
    }

    /// `line` (a JSON object) with the characters ``PrintableText`` escapes for a terminal and
    /// ``JSONText`` leaves as they are (DEL, the C1 controls, the bidirectional controls) written as
    /// `\uXXXX`: they can only stand inside its strings, where that escape keeps the JSON what it was,
    /// and the console then finds nothing to escape in a JSON line.
    static func jsonEscapingTerminalControls(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: { PrintableText.needsEscape($0) }) else { return line }
        var escaped = ""
        for scalar in line.unicodeScalars {
            if PrintableText.needsEscape(scalar) {
                escaped += PrintableText.quotedStringEscape(scalar)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `2024-03-01T02:00:04Z` (UTC, whole seconds).
    static func timestamp(_ date: Date) -> String {
        RunTimestamp(date).text
    }

    private static func textValue(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains {
                $0 == " " || $0 == "=" || $0 == "\"" || $0.value < 0x20 || $0 == "\u{7F}"
            }
        return needsQuotes ? PrintableText.doubleQuoted(value) : value
    }
}
