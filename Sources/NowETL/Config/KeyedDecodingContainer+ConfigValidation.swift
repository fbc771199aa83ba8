/// Small helpers the configuration types use to decode with defaults and to report problems at
/// the right place.
extension KeyedDecodingContainer {
    /// The dotted path of `key` (`source.page_size`), for messages.
    func path(_ key: Key) -> String {
        ConfigPath(codingPath: codingPath + [key]).description
    }

    /// The dotted path of this container (`tables[0]`), or `the top level`.
    var containerPath: String {
        let path = ConfigPath(codingPath: codingPath)
        return path.isRoot ? "the top level" : path.description
    }

    /// A problem with the value of `key` (or with the key itself, `pointsAtKey`).
    func issue(
        _ key: Key, _ message: String, kind: ConfigError.Kind = .invalidValue, utf8Offset: Int? = nil,
        pointsAtKey: Bool = false
    ) -> ConfigIssue {
        ConfigIssue(kind, at: codingPath + [key], message, utf8Offset: utf8Offset, pointsAtKey: pointsAtKey)
    }

    /// A problem with this container's mapping as a whole.
    func issue(_ message: String, kind: ConfigError.Kind = .invalidValue) -> ConfigIssue {
        ConfigIssue(kind, at: codingPath, message)
    }

    /// The value of `key`, or `defaultValue` when the key is absent or null.
    func decode<T: Decodable>(_ key: Key, default defaultValue: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? defaultValue
    }

    /// The text of `key` (`defaultValue` when absent or null; required when `nil`), checked by
    /// `firstProblem` — the UTF-8 offset of its first bad character, `nil` when fine — and refused with
    /// `message(text)` positioned at that character.
    func decodeChecked(
        _ key: Key, default defaultValue: String? = nil, _ firstProblem: (String) -> Int?,
        message: (String) -> String
    ) throws -> String {
        let text = try defaultValue.map { try decode(key, default: $0) } ?? decode(String.self, forKey: key)
        if let offset = firstProblem(text) { throw issue(key, message(text), utf8Offset: offset) }
        return text
    }

    /// An integer in `range`, or `defaultValue` when absent or null.
    func decodeInteger(_ key: Key, default defaultValue: Int?, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = try decodeIfPresent(Int.self, forKey: key) else { return defaultValue }
        guard range.contains(value) else {
            throw issue(key, "\(path(key)) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// A non-empty list of non-empty strings, each matching `isValid`, without duplicates.
    ///
    /// - Parameters:
    ///   - isValid: Returns the UTF-8 offset of the first offending character, or `nil` when fine.
    ///   - rule: What a valid item looks like, for the message.
    func decodeNames(_ key: Key, rule: String, isValid: (String) -> Int?) throws -> [String]? {
        guard let names = try decodeIfPresent([String].self, forKey: key) else { return nil }
        guard !names.isEmpty else {
            throw issue(key, "\(path(key)) must not be empty; leave it out instead")
        }
        var seen: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            let itemPath = codingPath + [key, PathKey(index: index)]
            if let offset = isValid(name) {
                throw ConfigIssue(
                    .invalidValue, at: itemPath, "'\(name)' in \(path(key)) is not valid: \(rule)", utf8Offset: offset)
            }
            if let first = seen[name] {
                throw ConfigIssue(
                    .invalidValue, at: itemPath, "'\(name)' appears twice in \(path(key)) (first at [\(first)])")
            }
            seen[name] = index
        }
        return names
    }
}

/// Character rules for names in pipeline files.
enum NameRule {
    /// The offset of the first byte of `text` that is not in `[a-z0-9_]`, or of the end when empty.
    static func offsetOfInvalidLowercaseName(_ text: String) -> Int? {
        if text.isEmpty { return 0 }
        return text.utf8.firstIndex { !isLowercaseNameByte($0) }.map {
            text.utf8.distance(from: text.utf8.startIndex, to: $0)
        }
    }

    /// The offset of the first problem in a dot path of `[A-Za-z0-9_]+` segments (`caller_id.value`).
    static func offsetOfInvalidDotPath(_ text: String, lowercase: Bool) -> Int? {
        var previous: UInt8 = UInt8(ascii: ".")
        for (offset, byte) in text.utf8.enumerated() {
            if byte == UInt8(ascii: ".") {
                if previous == UInt8(ascii: ".") { return offset }
            } else if !(lowercase ? isLowercaseNameByte(byte) : isNameByte(byte)) {
                return offset
            }
            previous = byte
        }
        return previous == UInt8(ascii: ".") ? text.utf8.count : nil
    }

    /// The offset of the first problem in an identifier `[A-Za-z_][A-Za-z0-9_]*`.
    static func offsetOfInvalidIdentifier(_ text: String) -> Int? {
        guard let first = text.utf8.first else { return 0 }
        if first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") { return 0 }
        return text.utf8.firstIndex { !isNameByte($0) }.map { text.utf8.distance(from: text.utf8.startIndex, to: $0) }
    }

    private static func isLowercaseNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isLowercaseNameByte(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
