/// A problem a configuration type's `init(from:)` found in a value it decoded, located by coding
/// path; ``YAMLDecoder`` turns it into a positioned ``ConfigError``.
///
/// Model types throw this (rather than `DecodingError`) to choose the error kind, to point at a
/// key instead of its value, or at one character inside a scalar (a bad encoded query).
struct ConfigIssue: Error {
    var kind: ConfigError.Kind
    var codingPath: [any CodingKey]
    var message: String
    /// A UTF-8 offset into the decoded (substituted) value, for a character-exact position.
    var utf8Offset: Int?
    /// Point at the key of the last path component rather than at its value.
    var pointsAtKey: Bool

    init(
        _ kind: ConfigError.Kind = .invalidValue, at codingPath: [any CodingKey], _ message: String,
        utf8Offset: Int? = nil, pointsAtKey: Bool = false
    ) {
        self.kind = kind
        self.codingPath = codingPath
        self.message = message
        self.utf8Offset = utf8Offset
        self.pointsAtKey = pointsAtKey
    }
}

/// A coding key for sequence positions and ad-hoc names.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(index: Int) {
        self.init(intValue: index)
    }
}
